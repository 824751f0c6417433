"""Fixtures for the live GoRoD tests (import them with ``from tests.gorod.fixtures_live import *``).

The cast: ``organizer`` and ``outsider`` (logged in, no role), a GoRoD game with the teams
Alpha, Beta, Gamma and three levels (codes G1R1D, G1R2D, and level 3 with two sectors
north/south), started at ``T0``.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from core.roles import ORGANIZER
from gorod import services
from gorod.models import GorodGame
from teams.models import Application, Game, Team

TEAM_NAMES = ("Alpha", "Beta", "Gamma")
# 22:00 in Moscow on a Saturday far ahead. The services take this clock, but some paths read the
# real one (a team's rename refreshes its games, pages and the API check the protest window): a
# night still to come keeps those paths before it, whatever day the suite runs. A past night
# would be ended by the first real-clock refresh (its time cap long gone).
T0 = datetime(2037, 12, 5, 19, 0, tzinfo=UTC)
LEVELS = [
    {"label": "1", "task": "Find the bridge", "hint1": "Near water", "hint2": "Red bridge",
     "codes": {"code": "G1R1D"}},
    {"label": "2", "task": "Find the tower", "hint1": "Tall", "hint2": "Old",
     "duration_min": 45, "codes": {"code": "G1R2D"}},
    {"label": "3", "task": "Two sectors", "codes": {"sectors": [
        {"name": "north", "codes": ["G1R31D"]}, {"name": "south", "codes": ["G1R32D"]}]}},
]


def minutes(m: float) -> datetime:
    return T0 + timedelta(minutes=m)


def make_user(username: str, group: str | None = None) -> User:
    user = User.objects.create_user(username=username, password="pw-" + username)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def make_teams(game: Game, names, captain: User) -> list[Application]:
    entries = []
    for i, name in enumerate(names):
        team = Team.objects.create(name=name, name_key=name.casefold(), captain=captain)
        entries.append(Application.objects.create(
            game=game, team=team, status=Application.Status.APPROVED,
            join_token=secrets.token_urlsafe(24), join_pin=f"{i + 10:06d}"))
    return entries


def join_session(client, application: Application) -> None:
    """Bind the test client's session to a team, as opening its join link does."""
    from teams.services import join_by_token

    session = client.session
    join_by_token(session=session, token=application.join_token)
    session.save()
    client.cookies["sessionid"] = session.session_key


@pytest.fixture
def organizer(db) -> User:
    return make_user("organizer", ORGANIZER)


@pytest.fixture
def outsider(db) -> User:
    return make_user("outsider")


@pytest.fixture
def scheduled(organizer) -> Game:
    return Game.objects.create(title="ГоРоД, декабрь", format=Game.Format.GOROD,
                               starts_at=timezone.now() + timedelta(days=5), created_by=organizer)


@pytest.fixture
def entries(scheduled, organizer) -> list[Application]:
    return make_teams(scheduled, TEAM_NAMES, organizer)


@pytest.fixture
def alpha(entries) -> Application:
    return entries[0]


@pytest.fixture
def beta(entries) -> Application:
    return entries[1]


@pytest.fixture
def gorod(scheduled, entries, organizer) -> GorodGame:
    return services.gorod_create(actor=organizer, game=scheduled, levels=LEVELS)


@pytest.fixture
def running(gorod, organizer) -> GorodGame:
    """Started at T0 (a fixed night: pass ``now`` to every call)."""
    services.game_start(actor=organizer, game=gorod, now=T0)
    gorod.refresh_from_db()
    return gorod


@pytest.fixture
def live(gorod, organizer) -> GorodGame:
    """Started a minute ago, for tests that go through the real clock (HTTP, sockets)."""
    services.game_start(actor=organizer, game=gorod, now=timezone.now() - timedelta(minutes=1))
    gorod.refresh_from_db()
    return gorod
