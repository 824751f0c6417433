"""The embedded default runs the GoRoD clock inside the server (``core.scheduler``): an open
organizer page receives the hint that falls due with no request in between — the server pushes
it over the page's one socket, as ``make run`` serves it."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from gorod import services
from live.delta import patch
from tests.gorod.fixtures_live import LEVELS, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_server_pushes_a_hint_that_falls_due_to_an_open_organizer_page_by_itself(
        asgi_server, new_page):
    from core.roles import ORGANIZER
    from teams.models import Game

    organizer = make_user("organizer-clock-e2e", ORGANIZER)
    game = Game.objects.create(title="ГоРоД clock", format="gorod",
                               starts_at=timezone.now() + timedelta(days=3))
    make_teams(game, ["Alpha"], organizer)
    gg = services.gorod_create(actor=organizer, game=game, levels=LEVELS)
    # Hint 1 (at +25 min) falls due four seconds from now.
    services.game_start(actor=organizer, game=gg,
                        now=timezone.now() - timedelta(minutes=25) + timedelta(seconds=4))
    client = Client()
    client.force_login(organizer)
    page = new_page()
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": asgi_server}])
    hints: list[int] = []
    requests: list[str] = []

    followed: dict = {}  # the state the frames lead to, as the page follows them

    def on_socket(ws):
        def frame(payload):
            message = json.loads(payload)
            if message.get("type") == "gorod.state":
                followed["state"] = (patch(followed["state"], message["delta"])
                                     if "delta" in message else message["state"])
                rows = followed["state"]["statistics"]["rows"]
                hints.append(rows[0]["cells"][0]["hints_shown"])
        ws.on("framereceived", frame)

    page.on("websocket", on_socket)
    page.goto(f"{asgi_server}/gorod/{gg.pk}/")
    page.wait_for_function("() => document.querySelector('#live-status').dataset.status === 'online'")
    page.on("request", lambda request: requests.append(request.url))
    # The page's own state shows the hint once its socket brought it.
    page.wait_for_function("() => { const s = Live.streams[0].state;"
                           " return s && s.statistics.rows[0].cells[0].hints_shown >= 1; }",
                           timeout=20000)
    assert hints[0] == 0 and 1 in hints, hints
    assert requests == []  # no request of the page's between its first state and the hint
