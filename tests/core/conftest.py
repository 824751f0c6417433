"""The demo site and its main pages, shared by the page tests of tests/core."""

from __future__ import annotations

from os import devnull

import pytest
from django.contrib.auth.models import User
from django.test import Client

from teams.models import Game
from tests.shared_data import built_once


@pytest.fixture
def demo_site(db):
    return load_demo_site()


@pytest.fixture(scope="module")
def demo_site_once(django_db_setup, django_db_blocker):
    """The demo made once for a module whose tests only read it (``tests.shared_data``): the
    demo command takes seconds, and each test's own writes are rolled back with it."""
    with built_once(django_db_blocker):
        yield load_demo_site()


def load_demo_site() -> dict:
    from django.core.management import call_command

    from gorod.models import GorodGame
    from kingofhill.models import KothGame
    from teams.models import Application

    call_command("demo", stdout=open(devnull, "w"))
    from gorod.demo import LIVE_TITLE

    # The demo season's nights are GoRoD games too (config.demo_season): the live one by title.
    koth, gorod = KothGame.objects.get(), GorodGame.objects.get(game__title=LIVE_TITLE)
    token = {game: Application.objects.filter(game_id=game, status="approved")
             .exclude(join_token=None).first().join_token for game in (koth.pk, gorod.pk)}
    return {"koth": koth.pk, "gorod": gorod.pk, "token": token,
            "registration": Game.objects.filter(format="gorod", gorod__isnull=True).get().pk,
            "team": Application.objects.filter(game_id=koth.pk).first().team_id}


def main_pages(site) -> dict[str, list[str]]:
    return {
        "guest": ["/", "/teams/games/", "/teams/join/", "/teams/all/", "/rating/seasons/",
                  f"/rating/games/{site['koth']}/", "/accounts/login/", "/accounts/signup/",
                  "/accounts/password_reset/", "/accounts/password_reset/done/",
                  f"/gorod/{site['gorod']}/statistics/", f"/koth/{site['koth']}/projector/"],
        "organizer": ["/teams/", f"/teams/{site['team']}/", f"/teams/games/{site['registration']}/",
                      f"/teams/games/{site['registration']}/sheet/", "/gorod/", "/gorod/setup/",
                      f"/gorod/{site['gorod']}/", "/koth/", f"/koth/{site['koth']}/host/",
                      "/accounts/roles/", "/accounts/profile/", "/accounts/password_change/",
                      f"/rating/games/{site['gorod']}/", "/admin/", "/admin/teams/game/",
                      "/admin/teams/game/add/", f"/admin/teams/team/{site['team']}/change/"],
        "koth phone": [f"/koth/{site['koth']}/play/", f"/teams/play/{site['koth']}/"],
        "gorod phone": [f"/gorod/{site['gorod']}/play/"],
    }


def open_as(who: str, site) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    if who == "organizer":
        client.force_login(User.objects.get(username="organizer"))
    elif who.endswith("phone"):
        game = site["koth"] if who.startswith("koth") else site["gorod"]
        assert client.post(f"/teams/j/{site['token'][game]}/").status_code == 302
    return client


