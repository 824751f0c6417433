"""Fixtures for the live King of the Hill tests: organizer → host → game → teams.

The cast: ``organizer`` and ``host`` (staff roles), ``outsider`` (logged in, no role), and a
game with the teams Alpha, Beta, Gamma (registration order), summit 3 so games are short.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.utils import timezone

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.models import KothGame
from teams.models import Application, Game, Team

TEAM_NAMES = ("Alpha", "Beta", "Gamma")


def make_user(username: str, group: str | None = None) -> User:
    user = User.objects.create_user(username=username, password="pw-" + username)
    if group:
        # get_or_create: transactional tests flush the groups the roles migration made.
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def make_teams(game: Game, names, captain: User) -> list[Application]:
    entries = []
    for i, name in enumerate(names):
        team = Team.objects.create(name=name, name_key=name.casefold(), captain=captain)
        entries.append(Application.objects.create(
            game=game, team=team, status=Application.Status.APPROVED,
            join_token=secrets.token_urlsafe(24), join_pin=f"{i:06d}"))
    return entries


@pytest.fixture
def organizer(db) -> User:
    return make_user("organizer", ORGANIZER)


@pytest.fixture
def host(db) -> User:
    return make_user("host", HOST)


@pytest.fixture
def outsider(db) -> User:
    return make_user("outsider")


@pytest.fixture
def scheduled(organizer) -> Game:
    return Game.objects.create(title="Царь Горы, декабрь", format=Game.Format.KINGOFHILL,
                               starts_at=timezone.now() + timedelta(days=5),
                               created_by=organizer)


@pytest.fixture
def entries(scheduled, organizer) -> list[Application]:
    return make_teams(scheduled, TEAM_NAMES, organizer)


@pytest.fixture
def koth(scheduled, entries, organizer, host) -> KothGame:
    """The board, with ``host`` assigned to it (hosts control only their games)."""
    koth = services.koth_create(actor=organizer, game=scheduled, summit=3, main_questions=10,
                                reserve_questions=2)
    services.host_assign(actor=organizer, game=koth, user=host, assigned=True)
    return koth


@pytest.fixture
def alpha(entries) -> Application:
    return entries[0]


@pytest.fixture
def beta(entries) -> Application:
    return entries[1]


@pytest.fixture
def gamma(entries) -> Application:
    return entries[2]


@pytest.fixture
def running(koth, host) -> KothGame:
    services.game_start(actor=host, game=koth)
    koth.refresh_from_db()
    return koth


def join_session(client, application: Application) -> None:
    """Bind the test client's session to a team, as opening its join link does."""
    from teams.services import join_by_token

    session = client.session
    join_by_token(session=session, token=application.join_token)
    session.save()
    client.cookies["sessionid"] = session.session_key
