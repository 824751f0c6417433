"""The scheduled start (rules 4.1.7-4.1.8: every team receives level 1 at the game's start
time): the organizer arms it (``services.autostart_set``), refused while the set-up would stop
the start; the clock (``gorod.clock.run_due``, as ``manage.py gorod_clock`` and the in-process
scheduler run it) starts a due armed game through the live pipeline, stamped at the announced
time even when it runs late, audited as the clock."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from core.errors import NotAllowed
from core.models import AuditEntry
from gorod import clock, selectors, services
from gorod.models import GorodGame, Level
from teams.models import Application, Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import make_teams

pytestmark = pytest.mark.django_db


@pytest.fixture
def armed(gorod, organizer) -> GorodGame:
    services.autostart_set(actor=organizer, game=gorod, on=True)
    gorod.refresh_from_db()
    return gorod


def starts_at(gg: GorodGame):
    return Game.objects.get(pk=gg.pk).starts_at


def test_the_scheduled_start_is_off_by_default(gorod):
    assert gorod.auto_start is False
    assert clock.run_due(starts_at(gorod) + timedelta(minutes=1)) == []
    gorod.refresh_from_db()
    assert gorod.status == GorodGame.Status.SETUP


def test_the_clock_starts_an_armed_game_at_its_announced_time_audited_as_the_clock(armed, alpha):
    at = starts_at(armed)
    clock.run_due(at + timedelta(seconds=1))
    armed.refresh_from_db()
    assert armed.status == GorodGame.Status.RUNNING and armed.started_at == at
    assert armed.team_order == [a.pk for a in selectors.entries(armed)]
    assert Game.objects.get(pk=armed.pk).status == Game.Status.RUNNING
    # Through the live pipeline: the screens say so and the clock has its next deadline.
    assert armed.next_deadline == at + timedelta(minutes=25)
    me = selectors.read_state(armed, kind="team", application_id=alpha.pk)["state"]["me"]
    assert me["level"]["label"] == "1"
    entry = AuditEntry.objects.get(game_id=armed.pk, action="gorod.start")
    assert entry.actor is None and entry.after["by"] == "clock"


def test_the_clock_does_not_start_an_armed_game_before_its_time_or_a_disarmed_one(
        armed, organizer):
    at = starts_at(armed)
    clock.run_due(at - timedelta(seconds=1))
    armed.refresh_from_db()
    assert armed.status == GorodGame.Status.SETUP
    services.autostart_set(actor=organizer, game=armed, on=False)
    clock.run_due(at + timedelta(minutes=5))
    armed.refresh_from_db()
    assert armed.status == GorodGame.Status.SETUP and armed.started_at is None


def test_a_late_clock_starts_the_game_stamped_at_the_announced_time_with_what_was_missed(
        armed, alpha):
    at = starts_at(armed)
    # The server was down for two hours: level 1 (70 min) and level 2 (45 min) failed since.
    clock.run_due(at + timedelta(hours=2))
    armed.refresh_from_db()
    assert armed.started_at == at
    me = selectors.read_state(armed, kind="team", application_id=alpha.pk)["state"]["me"]
    assert me["level"]["label"] == "3"


def test_a_game_started_by_hand_is_not_started_again_by_the_clock(armed, organizer):
    services.game_start(actor=organizer, game=armed)
    armed.refresh_from_db()
    started = armed.started_at
    clock.run_due(starts_at(armed) + timedelta(minutes=1))
    armed.refresh_from_db()
    assert armed.started_at == started
    assert not AuditEntry.objects.filter(game_id=armed.pk, action="gorod.start").exists()


def test_arming_is_refused_while_the_set_up_would_stop_the_start(gorod, organizer, entries):
    Level.objects.filter(gorod=gorod).delete()
    with pytest.raises(services.DomainError, match="at least one level"):
        services.autostart_set(actor=organizer, game=gorod, on=True)
    gorod.refresh_from_db()
    assert gorod.auto_start is False


def test_arming_is_refused_without_a_team_or_a_personal_code(scheduled, organizer):
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=[
        {"label": "1", "codes": {"sectors": [{"name": "t", "kind": "personal_digit",
                                              "codes": ["G1R1D"], "personal": {}}]}}])
    with pytest.raises(services.DomainError, match="approved team"):
        services.autostart_set(actor=organizer, game=gg, on=True)
    make_teams(scheduled, ["Alpha"], organizer)
    with pytest.raises(services.DomainError, match="no personal code for: Alpha"):
        services.autostart_set(actor=organizer, game=gg, on=True)


def test_arming_is_refused_once_the_announced_time_has_passed_or_the_game_started(
        gorod, organizer, outsider):
    Game.objects.filter(pk=gorod.pk).update(starts_at=starts_at(gorod) - timedelta(days=6))
    with pytest.raises(services.DomainError, match="Start button"):
        services.autostart_set(actor=organizer, game=gorod, on=True)
    with pytest.raises(NotAllowed):
        services.autostart_set(actor=outsider, game=gorod, on=False)
    services.game_start(actor=organizer, game=gorod)
    with pytest.raises(services.DomainError, match="already started"):
        services.autostart_set(actor=organizer, game=gorod, on=False)


def test_an_armed_game_whose_set_up_broke_is_disarmed_by_the_clock_with_the_reason(
        armed, entries):
    Application.objects.filter(pk__in=[a.pk for a in entries]).update(
        status=Application.Status.REJECTED)
    clock.run_due(starts_at(armed) + timedelta(minutes=1))
    armed.refresh_from_db()
    assert armed.status == GorodGame.Status.SETUP and armed.auto_start is False
    entry = AuditEntry.objects.filter(game_id=armed.pk, action="gorod.autostart").latest("pk")
    assert entry.actor is None and "approved team" in entry.reason


def test_the_api_arms_the_start_and_answers_a_refusal_with_a_detail(gorod, organizer):
    client = Client()
    client.force_login(organizer)
    url = f"/gorod/api/games/{gorod.pk}/autostart/"
    ok = client.post(url, {"on": True}, content_type="application/json")
    assert ok.status_code == 200, ok.json()
    gorod.refresh_from_db()
    assert gorod.auto_start is True
    Level.objects.filter(gorod=gorod).delete()
    refused = client.post(url, {"on": True}, content_type="application/json")
    assert refused.status_code == 400 and "level" in refused.json()["detail"]
    bad = client.post(url, {}, content_type="application/json")
    assert bad.status_code == 400
