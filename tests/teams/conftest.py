"""The cast: organizer, host, captain "alpha" with team Альфа, captain "beta" with team Бета,
and "outsider" (logged in, no rights). A GoRoD game 10 days ahead; both teams have 3 members."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from teams import services
from teams.models import Game


def _user(username: str, group: str | None = None) -> User:
    user = User.objects.create_user(username)  # no password: hashing is slow, tests force_login
    if group:
        # get_or_create: a transactional test before this one flushed the migration's groups.
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


@pytest.fixture(autouse=True)
def fresh_cache():
    """Wrong-PIN counts live in the (process-wide) cache: each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def organizer(db):
    return _user("organizer", "organizer")


@pytest.fixture
def host(db):
    return _user("host", "host")


@pytest.fixture
def alpha(db):
    return _user("alpha")


@pytest.fixture
def beta(db):
    return _user("beta")


@pytest.fixture
def outsider(db):
    return _user("outsider")


def _team(captain, name, nicks):
    team = services.team_create(captain=captain, name=name)
    for i, nick in enumerate(nicks):
        services.member_create(
            team=team,
            nickname=nick,
            full_name=f"{nick} Приватов",
            phone=f"+7900000{i:04d}{captain.pk}",
            email=f"{nick.lower()}@example.org",
        )
    return team


@pytest.fixture
def team_alpha(alpha):
    return _team(alpha, "Альфа", ["Ann", "Bob", "Cat"])


@pytest.fixture
def team_beta(beta):
    return _team(beta, "Бета", ["Dan", "Eve", "Fox"])


@pytest.fixture
def now():
    return timezone.now()


@pytest.fixture
def game(organizer, now):
    return services.game_create(
        actor=organizer,
        title="Ночной ГоРоД",
        game_format=Game.Format.GOROD,
        starts_at=now + timedelta(days=10),
    )


@pytest.fixture
def koth_game(organizer, now):
    return services.game_create(
        actor=organizer,
        title="Царь Горы",
        game_format=Game.Format.KINGOFHILL,
        starts_at=now + timedelta(days=10),
    )


def apply(team, game, now=None):
    return services.application_submit(game=game, team=team, members=team.members.all(), now=now)


@pytest.fixture
def approved_alpha(game, team_alpha, organizer):
    return services.application_approve(application=apply(team_alpha, game), actor=organizer)


@pytest.fixture
def approved_beta(game, team_beta, organizer):
    return services.application_approve(application=apply(team_beta, game), actor=organizer)


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_login(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def phone_for(application) -> Client:
    """A browser (no account) that opened the team's join link and tapped its button."""
    client = Client()
    response = client.post(f"/teams/j/{application.join_token}/")
    assert response.status_code == 302
    return client
