"""Browser-test fixtures shared by the live-page tests."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from gorod import services as gorod_services
from kingofhill import services as koth_services
from teams.models import Game
from tests.conftest import settle_server
from tests.gorod.fixtures_live import LEVELS
from tests.kingofhill.conftest import make_teams, make_user


@pytest.fixture(autouse=True)
def _server_settled_before_the_flush(request):
    """After a browser test's pages are closed (its own fixtures end first), wait for the
    server to finish what they left, before the database is flushed: whichever fixture opened
    the pages."""
    yield
    if "browser" in request.fixturenames:
        settle_server()


@pytest.fixture
def games(asgi_server):
    """A running King of the Hill game and a running GoRoD game, each with two teams."""
    organizer = make_user("organizer-live", ORGANIZER)
    host = make_user("host-live", HOST)
    soon = timezone.now() + timedelta(days=3)
    koth_game = Game.objects.create(title="Царь Горы: связь", format="kingofhill", starts_at=soon)
    koth_entries = make_teams(koth_game, ["Alpha", "Beta"], organizer)
    koth = koth_services.koth_create(actor=organizer, game=koth_game, summit=3, main_questions=10,
                                     reserve_questions=0)
    koth_services.host_assign(actor=organizer, game=koth, user=host)
    koth_services.game_start(actor=host, game=koth)
    gorod_game = Game.objects.create(title="ГоРоД: связь", format="gorod", starts_at=soon)
    gorod_entries = make_teams(gorod_game, ["Gamma", "Delta"], organizer)
    gg = gorod_services.gorod_create(actor=organizer, game=gorod_game, levels=LEVELS)
    gorod_services.game_start(actor=organizer, game=gg)
    return {"organizer": organizer, "host": host, "koth": koth, "koth_team": koth_entries[0],
            "gorod": gg, "gorod_team": gorod_entries[0]}
