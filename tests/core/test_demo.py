from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from core.demo import DEMO_PASSWORD
from core.roles import is_host, is_organizer
from tests.shared_data import built_once

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo_loaded(django_db_setup, django_db_blocker):
    """What ``manage.py demo --port 8123`` printed into an empty database, loaded once for the
    module (``tests.shared_data``): each test's own writes, a second load included, are rolled
    back with it. The command takes about a second of CPU; the tests ran it fourteen times."""
    with built_once(django_db_blocker):
        out = StringIO()
        call_command("demo", "--port", "8123", stdout=out)
        yield out.getvalue()


def test_the_demo_creates_working_organizer_and_host_logins_and_prints_the_urls(demo_loaded):
    out = demo_loaded
    assert "http://127.0.0.1:8123/admin/" in out
    for path in ("/rating/seasons/", "/gorod/setup/", "/accounts/roles/", "/teams/games/"):
        assert f"http://127.0.0.1:8123{path}" in out
    organizer = authenticate(username="organizer", password=DEMO_PASSWORD)
    host = authenticate(username="host", password=DEMO_PASSWORD)
    assert is_organizer(organizer) and is_host(host) and not is_organizer(host)


def test_loading_the_demo_twice_changes_nothing(demo_loaded, capsys):
    from django.contrib.auth.models import User

    count = User.objects.count()
    call_command("demo")
    assert User.objects.count() == count


def test_the_demo_has_a_gorod_game_open_for_registration_with_approved_and_pending_teams(
        demo_loaded):
    from gorod.demo import DEMO_TITLE
    from teams.models import Application, Game

    out = demo_loaded
    game = Game.objects.get(title=DEMO_TITLE)
    statuses = sorted(game.applications.values_list("status", flat=True))
    assert statuses == [Application.Status.APPROVED, Application.Status.APPROVED, Application.Status.PENDING]
    assert f"/teams/games/{game.pk}/sheet/" in out


def test_the_demo_organizer_can_use_the_admin(demo_loaded, client):
    from teams.models import Team

    assert client.login(username="organizer", password=DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 200
    team = Team.objects.first()
    assert client.get(f"/admin/teams/team/{team.pk}/change/").status_code == 200


def test_the_demo_host_cannot_open_the_admin(demo_loaded, client):
    assert client.login(username="host", password=DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 302


def test_the_demo_prints_each_login_as_user_slash_password_and_every_results_page(demo_loaded):
    from teams.models import Game

    out = demo_loaded
    for username in ("organizer", "host"):
        line = next(line for line in out.splitlines() if line.strip().startswith(username + " /"))
        assert line.split()[:3] == [username, "/", DEMO_PASSWORD]
        assert authenticate(username=line.split()[0], password=line.split()[2]) is not None
    for game in Game.objects.all():
        assert f"http://127.0.0.1:8123/rating/games/{game.pk}/" in out


def test_the_demo_host_hosts_the_demo_king_of_the_hill_game(demo_loaded, capsys):
    from kingofhill.demo import DEMO_TITLE
    from kingofhill.selectors import can_host
    from teams.models import Game

    call_command("demo")  # idempotent: assigned once
    game = Game.objects.get(title=DEMO_TITLE)
    host = authenticate(username="host", password=DEMO_PASSWORD)
    assert can_host(host, game.pk)
    assert list(game.koth.hosts.values_list("username", flat=True)) == ["host"]


# --- the demo season and its captains -------------------------------------------------------------


def test_the_demo_has_a_season_with_both_demo_nights_and_published_points(demo_loaded, capsys,
                                                                           client):
    from config.demo_season import NIGHTS, SEASON_TITLE
    from rating.models import GameResult, Season

    call_command("demo")  # idempotent: one season, two nights
    season = Season.objects.get(title=SEASON_TITLE)
    games = list(season.games.order_by("starts_at"))
    assert [game.title for game in games] == [title for title, _hours in NIGHTS]
    assert GameResult.objects.filter(game__in=games).count() == 2
    assert f"http://127.0.0.1:8123/rating/seasons/{season.pk}/" in demo_loaded
    page = client.get(f"/rating/seasons/{season.pk}/", HTTP_ACCEPT_LANGUAGE="ru")
    assert page.status_code == 200
    text = page.content.decode()
    for game in games:
        assert game.title in text
    # the first night is final, so the table shows its points for each team (the three that
    # played it and «Совы», which organized it and earns the organizer's points)
    rows = page.context["data"]["teams"]
    assert rows and all(row["points"] > 0 for row in rows), rows
    names = {row.cells[1].text for row in page.context["table"].rows}
    assert names == {"Полуночники", "Следопыты", "Сталкеры", "Совы"}


def test_each_demo_captain_logs_in_and_captains_a_team_of_the_season(demo_loaded):
    from core.demo import DEMO_CAPTAINS
    from teams.models import Team

    for username, team_name in DEMO_CAPTAINS:
        user = authenticate(username=username, password=DEMO_PASSWORD)
        assert user is not None
        assert Team.objects.get(name=team_name).captain == user


def test_a_demo_captain_can_protest_and_vote_on_the_second_night_at_once(demo_loaded, client):
    from config.demo_season import NIGHTS
    from core.demo import DEMO_CAPTAINS
    from rating.models import OrganizerVote, Protest
    from teams.models import Game, Team

    username, team_name = DEMO_CAPTAINS[0]
    game = Game.objects.get(title=NIGHTS[1][0])
    team = Team.objects.get(name=team_name)
    assert client.login(username=username, password=DEMO_PASSWORD)
    protest = client.post(f"/rating/api/games/{game.pk}/results/protests/",
                          {"team": team.pk, "text": "Код принят с опозданием"},
                          content_type="application/json")
    assert protest.status_code == 201, protest.content
    vote = client.post(f"/rating/api/games/{game.pk}/results/votes/{team.pk}/", {"value": 75},
                       content_type="application/json")
    assert vote.status_code in (200, 201), vote.content
    assert Protest.objects.filter(team=team).count() == 1
    assert OrganizerVote.objects.filter(team=team).count() == 1


def test_the_readme_names_each_demo_captain_login_and_team():
    from pathlib import Path

    from core.demo import DEMO_CAPTAINS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for username, team_name in DEMO_CAPTAINS:
        assert f"`{username}`" in readme and team_name in readme
