"""Safety check-ins on dangerous levels (``gorod.safety``, ``rules.checkin_due``): when a
check-in is due, the team's "all fine", the organizer's alarm and its acknowledgement, and the
clock that raises the alarm with no write."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from core.models import AuditEntry
from gorod import clock, rules, scenario, selectors, services
from gorod.models import CheckIn, GorodGame
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import LEVELS, T0, join_session, minutes

# --- when a check-in is due (pure) -------------------------------------------------------------

R = datetime(2026, 12, 5, 19, 0, tzinfo=UTC)


def m(x: float) -> datetime:
    return R + timedelta(minutes=x)


@pytest.mark.parametrize(("every", "danger", "last", "due"), [
    (15, 4, None, 15),          # N minutes after the level was received
    (15, 3, None, 15),          # grade 3 asks too
    (15, 4, 12, 27),            # then N minutes after the last check-in
    (15, 4, -5, 15),            # a check-in before the level belongs to another level
    (15, 2, None, None),        # grades 1–2 ask nothing
    (15, None, None, None),     # no grade stated
    (0, 4, None, None),         # check-ins off
    (None, 4, None, None),      # check-ins off (empty)
])
def test_a_check_in_is_due_n_minutes_after_the_level_or_the_last_check_in(
        every, danger, last, due):
    got = rules.checkin_due(every_min=every, danger=danger, received_at=m(0),
                            last_checkin=None if last is None else m(last))
    assert got == (None if due is None else m(due))


@pytest.mark.parametrize(("due", "now", "overdue"), [
    (None, 100, False), (15, 14.9, False), (15, 15, True), (15, 40, True)])
def test_a_check_in_is_overdue_once_its_due_moment_has_come(due, now, overdue):
    assert rules.checkin_overdue(None if due is None else m(due), m(now)) is overdue


def test_the_clock_wakes_at_the_earliest_check_in_still_ahead():
    assert rules.next_checkin_wake([m(30), m(10), None, m(20)], m(15)) == m(20)
    assert rules.next_checkin_wake([m(10)], m(15)) is None


# --- a live game with a grade-4 first level -----------------------------------------------------

DANGEROUS = [{**LEVELS[0], "danger": 4}, *LEVELS[1:]]

pytestmark = pytest.mark.django_db


@pytest.fixture
def night(scheduled, entries, organizer) -> GorodGame:
    """Check-ins every 15 min; level 1 is of grade 4, level 2 of none; started at T0."""
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=DANGEROUS,
                               checkin_every_min=15)
    services.game_start(actor=organizer, game=gg, now=T0)
    gg.refresh_from_db()
    return gg


def organizer_state(gg):
    return selectors.read_state(gg, kind="organizer")["state"]


def safety(gg, entry):
    return selectors.read_state(gg, kind="team", application_id=entry.pk)["state"]["safety"]


def test_a_team_on_a_grade_4_level_is_asked_to_check_in_every_n_minutes(night, alpha):
    assert safety(night, alpha) == {"level": "1", "every_min": 15,
                                    "due_at": selectors.iso(minutes(15)), "overdue": False,
                                    "last_checkin": None}
    services.checkin(game=night, application=alpha, now=minutes(10))
    assert safety(night, alpha)["due_at"] == selectors.iso(minutes(25))
    assert safety(night, alpha)["last_checkin"] == selectors.iso(minutes(10))


def test_a_team_on_a_level_without_danger_is_not_asked_and_may_not_check_in(night, alpha):
    services.code_submit(game=night, application=alpha, text="G1R1D", now=minutes(3))
    assert safety(night, alpha) is None
    with pytest.raises(services.DomainError, match="grade 3 or 4"):
        services.checkin(game=night, application=alpha, now=minutes(4))


def test_a_game_without_check_ins_refuses_one_and_shows_no_alarm(running, alpha):
    with pytest.raises(services.DomainError, match="no safety check-ins"):
        services.checkin(game=running, application=alpha, now=minutes(4))
    assert organizer_state(running)["alarms"] == []


def test_a_second_all_fine_within_a_minute_is_the_same_check_in(night, alpha):
    first = services.checkin(game=night, application=alpha, now=minutes(10))
    again = services.checkin(game=night, application=alpha, now=minutes(10.5))
    assert again.pk == first.pk
    assert CheckIn.objects.filter(gorod=night).count() == 1
    services.checkin(game=night, application=alpha, now=minutes(11.5))
    assert CheckIn.objects.filter(gorod=night).count() == 2


def test_an_overdue_check_in_raises_an_alarm_with_the_teams_last_activity(night, alpha):
    services.code_submit(game=night, application=alpha, text="WRONG", now=minutes(7))
    services.checkin(game=night, application=alpha, now=minutes(5))
    services.game_tick(game=night, now=minutes(21))
    alarms = organizer_state(night)["alarms"]
    by_team = {a["team"]: a for a in alarms}
    assert by_team["Alpha"] == {
        "application": alpha.pk, "team": "Alpha", "level": "1", "level_number": 1,
        "overdue_since": selectors.iso(minutes(20)), "received_at": selectors.iso(T0),
        "last_checkin": selectors.iso(minutes(5)), "last_attempt": selectors.iso(minutes(7))}
    # Beta and Gamma never checked in: theirs are overdue since 22:15, listed first.
    assert [a["team"] for a in alarms] == ["Beta", "Gamma", "Alpha"]
    assert safety(night, alpha)["overdue"] is True


def test_the_alarm_clears_when_the_team_checks_in(night, alpha):
    services.game_tick(game=night, now=minutes(16))
    assert "Alpha" in [a["team"] for a in organizer_state(night)["alarms"]]
    services.checkin(game=night, application=alpha, now=minutes(17))
    assert "Alpha" not in [a["team"] for a in organizer_state(night)["alarms"]]
    assert safety(night, alpha)["due_at"] == selectors.iso(minutes(32))


def test_the_organizer_acknowledges_an_alarm_audited_and_the_interval_restarts(
        night, organizer, alpha):
    services.game_tick(game=night, now=minutes(16))
    services.alarm_acknowledge(actor=organizer, game=night, application=alpha.pk,
                               now=minutes(18))
    assert "Alpha" not in [a["team"] for a in organizer_state(night)["alarms"]]
    assert safety(night, alpha)["due_at"] == selectors.iso(minutes(33))
    entry = AuditEntry.objects.get(action="gorod.alarm_acknowledge")
    assert entry.actor == organizer
    assert entry.before == {"team": "Alpha", "level": "1", "due_at": selectors.iso(minutes(15))}


def test_an_alarm_that_is_not_overdue_cannot_be_acknowledged(night, organizer, alpha):
    with pytest.raises(services.DomainError, match="no safety alarm"):
        services.alarm_acknowledge(actor=organizer, game=night, application=alpha,
                                   now=minutes(10))
    with translation.override("ru"), pytest.raises(services.DomainError,
                                                   match="нет тревоги, которую нужно снять"):
        services.alarm_acknowledge(actor=organizer, game=night, application=alpha,
                                   now=minutes(10))


def test_only_an_organizer_acknowledges_an_alarm(night, outsider, alpha):
    with pytest.raises(services.NotAllowed):
        services.alarm_acknowledge(actor=outsider, game=night, application=alpha,
                                   now=minutes(16))


# --- the clock ---------------------------------------------------------------------------------


def test_the_clock_wakes_at_the_due_check_in_and_raises_the_alarm_with_no_write(
        scheduled, entries, organizer):
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=DANGEROUS,
                               checkin_every_min=15)
    start = timezone.now() - timedelta(minutes=16)
    services.game_start(actor=organizer, game=gg, now=start)  # the last write, 16 min ago
    gg.refresh_from_db()
    # Hint 1 is at +25: the check-in due at +15 comes first.
    assert gg.next_deadline == start + timedelta(minutes=15)
    assert organizer_state(gg)["alarms"] == []
    assert clock.run_due() == [gg.pk]
    assert {a["team"] for a in organizer_state(gg)["alarms"]} == {"Alpha", "Beta", "Gamma"}
    gg.refresh_from_db()
    assert gg.next_deadline == start + timedelta(minutes=25)  # nothing ahead but hint 1 now


def test_the_clock_keeps_the_engines_deadlines_in_a_game_without_check_ins(running):
    assert running.next_deadline == minutes(25)


# --- settings ------------------------------------------------------------------------------------


def test_the_check_in_interval_is_a_setting_checked_before_the_start(gorod, organizer):
    with pytest.raises(services.DomainError, match="whole number of minutes"):
        services.settings_edit(actor=organizer, game=gorod, hint_offsets_min=[25, 50],
                               sliv_penalty_min=15, max_duration_h=24, max_wrong=10,
                               wrong_window_s=60, checkin_every_min=-3)
    services.settings_edit(actor=organizer, game=gorod, hint_offsets_min=[25, 50],
                           sliv_penalty_min=15, max_duration_h=24, max_wrong=10,
                           wrong_window_s=60, checkin_every_min=20)
    assert GorodGame.objects.get(pk=gorod.pk).checkin_every_min == 20


# --- API -----------------------------------------------------------------------------------------


@pytest.fixture
def live_night(scheduled, entries, organizer) -> GorodGame:
    """Check-ins every 15 min on a grade-4 level 1, started 20 minutes ago (the real clock)."""
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=DANGEROUS,
                               checkin_every_min=15)
    services.game_start(actor=organizer, game=gg, now=timezone.now() - timedelta(minutes=20))
    services.game_tick(game=gg)
    gg.refresh_from_db()
    return gg


def test_the_phones_check_in_over_the_api(client, live_night, alpha):
    join_session(client, alpha)
    response = client.post(reverse("gorod:api_checkin", args=[live_night.pk]))
    assert response.status_code == 200, response.content
    assert response.json()["state"]["safety"]["overdue"] is False
    assert CheckIn.objects.filter(application=alpha, by__isnull=True).count() == 1


def test_a_phone_without_a_team_cannot_check_in(client, live_night):
    response = client.post(reverse("gorod:api_checkin", args=[live_night.pk]))
    assert response.status_code == 403


def test_the_organizer_acknowledges_over_the_api_and_a_second_time_is_a_clear_400(
        client, live_night, organizer, alpha):
    client.force_login(organizer)
    url = reverse("gorod:api_alarm_acknowledge", args=[live_night.pk, alpha.pk])
    response = client.post(url)
    assert response.status_code == 200, response.content
    assert "Alpha" not in [a["team"] for a in response.json()["state"]["alarms"]]
    again = client.post(url)
    assert again.status_code == 400
    assert "no safety alarm" in again.json()["detail"]


def test_the_check_in_interval_travels_with_the_scenario_and_a_bad_one_is_named(
        gorod, organizer):
    services.settings_edit(actor=organizer, game=gorod, hint_offsets_min=[25, 50],
                           sliv_penalty_min=15, max_duration_h=24, max_wrong=10,
                           wrong_window_s=60, checkin_every_min=20)
    exported = scenario.scenario_dict(scenario.scenario_of(gorod))
    assert exported["settings"]["checkin_every_min"] == 20
    assert scenario.parse_scenario(exported).settings["checkin_every_min"] == 20
    with pytest.raises(scenario.ScenarioError, match="settings.checkin_every_min"):
        scenario.parse_scenario({**exported, "settings": {"checkin_every_min": "often"}})


def test_a_scenario_without_check_ins_is_written_as_before(gorod):
    assert "checkin_every_min" not in scenario.scenario_dict(
        scenario.scenario_of(gorod))["settings"]
