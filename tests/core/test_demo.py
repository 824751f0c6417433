import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from core.demo import DEMO_PASSWORD
from core.roles import is_host, is_organizer

pytestmark = pytest.mark.django_db


def test_the_demo_creates_working_organizer_and_host_logins_and_prints_the_urls(capsys):
    call_command("demo", "--port", "8123")
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8123/admin/" in out
    for path in ("/rating/seasons/", "/gorod/setup/", "/accounts/roles/", "/teams/games/"):
        assert f"http://127.0.0.1:8123{path}" in out
    organizer = authenticate(username="organizer", password=DEMO_PASSWORD)
    host = authenticate(username="host", password=DEMO_PASSWORD)
    assert is_organizer(organizer) and is_host(host) and not is_organizer(host)


def test_loading_the_demo_twice_changes_nothing(capsys):
    from django.contrib.auth.models import User

    call_command("demo")
    count = User.objects.count()
    call_command("demo")
    assert User.objects.count() == count


def test_the_demo_has_a_gorod_game_open_for_registration_with_approved_and_pending_teams(capsys):
    from gorod.demo import DEMO_TITLE
    from teams.models import Application, Game

    call_command("demo")
    out = capsys.readouterr().out
    game = Game.objects.get(title=DEMO_TITLE)
    statuses = sorted(game.applications.values_list("status", flat=True))
    assert statuses == [Application.Status.APPROVED, Application.Status.APPROVED, Application.Status.PENDING]
    assert f"/teams/games/{game.pk}/sheet/" in out


def test_the_demo_organizer_can_use_the_admin(client):
    from teams.models import Team

    call_command("demo")
    assert client.login(username="organizer", password=DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 200
    team = Team.objects.first()
    assert client.get(f"/admin/teams/team/{team.pk}/change/").status_code == 200


def test_the_demo_host_cannot_open_the_admin(client):
    call_command("demo")
    assert client.login(username="host", password=DEMO_PASSWORD)
    assert client.get("/admin/").status_code == 302


def test_the_demo_prints_each_login_as_user_slash_password_and_every_results_page(capsys):
    from teams.models import Game

    call_command("demo", "--port", "8123")
    out = capsys.readouterr().out
    for username in ("organizer", "host"):
        line = next(line for line in out.splitlines() if line.strip().startswith(username + " /"))
        assert line.split()[:3] == [username, "/", DEMO_PASSWORD]
        assert authenticate(username=line.split()[0], password=line.split()[2]) is not None
    for game in Game.objects.all():
        assert f"http://127.0.0.1:8123/rating/games/{game.pk}/" in out


def test_the_demo_host_hosts_the_demo_king_of_the_hill_game(capsys):
    from kingofhill.demo import DEMO_TITLE
    from kingofhill.selectors import can_host
    from teams.models import Game

    call_command("demo")
    call_command("demo")  # idempotent: assigned once
    game = Game.objects.get(title=DEMO_TITLE)
    host = authenticate(username="host", password=DEMO_PASSWORD)
    assert can_host(host, game.pk)
    assert list(game.koth.hosts.values_list("username", flat=True)) == ["host"]
