"""A team's timeline is kept between its codes: a code reuses the result its team's last code
computed while the team's rows (closing codes, rulings, route) and the game's settings stand and
none of the team's deadlines passed; anything else computes it again. What a code finds is what
``selectors.team_snapshot`` answers on the team's rows: a kept result is the very object an
earlier write computed. Every write here also goes through ``verify_action``: its pushes and
stored states equal a rebuild from scratch."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from gorod import reads, rules, selectors, services
from gorod.live import LIVE
from gorod.models import GorodGame
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.live_checks import verify_action

pytestmark = pytest.mark.django_db


def found(running, entry, at) -> rules.TeamResult:
    """The team's result as a code at ``at`` finds it (its rows read as a code reads them)."""
    gg = GorodGame.objects.get(pk=running.pk)
    rows = reads.team_rows(gg.pk, entry.pk, since=at - timedelta(seconds=gg.wrong_window_s))
    return selectors.team_snapshot(gg, entry.pk, at, team_rows=rows).by_name[entry.team.name]


def code(running, entry, text, at, monkeypatch, capture) -> services.Submitted:
    """A code through ``verify_action``; its answer."""
    answer = []
    verify_action(LIVE, running.pk, lambda: answer.append(services.code_submit(
        game=running, application=entry, text=text, now=at)), now=at,
        monkeypatch=monkeypatch, capture=capture)
    return answer[0] if answer else None


def me(running, entry) -> dict:
    return selectors.read_state(running, kind="team", application_id=entry.pk)["state"]["me"]


def test_a_wrong_code_after_a_wrong_code_computes_no_timeline(
        running, alpha, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "nope", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    kept = found(running, alpha, minutes(5.5))
    answer = code(running, alpha, "nope again", minutes(6), monkeypatch,
                  django_capture_on_commit_callbacks)
    assert answer.attempt.verdict == "wrong"
    # The same team, the same rows, no deadline passed: the second code kept no new result.
    assert found(running, alpha, minutes(6.5)) is kept


def test_a_code_after_a_hint_became_due_computes_the_timeline_again(
        running, alpha, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "nope", minutes(20), monkeypatch, django_capture_on_commit_callbacks)
    before = found(running, alpha, minutes(20.5))
    assert before.levels[-1].hints_shown == 0  # level 1's
    code(running, alpha, "nope again", minutes(26), monkeypatch,
         django_capture_on_commit_callbacks)  # the first hint is due at 25 min
    after = found(running, alpha, minutes(26.5))
    assert after is not before and after.levels[-1].hints_shown == 1
    assert [h["n"] for h in me(running, alpha)["level"]["hints"]] == [1]


def test_a_code_after_its_level_failed_by_the_clock_is_checked_on_the_next_level(
        running, alpha, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "nope", minutes(60), monkeypatch, django_capture_on_commit_callbacks)
    # Level 1 fails at 70 min: the team is on level 2, whose code this is.
    answer = code(running, alpha, "G1R2D", minutes(71), monkeypatch,
                  django_capture_on_commit_callbacks)
    assert answer.attempt.verdict == "accepted" and answer.attempt.level.label == "2"


def test_a_timeout_ruled_between_two_codes_refuses_the_second(
        running, alpha, organizer, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "nope", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    services.ruling_add(actor=organizer, game=running, application=alpha, type="timeout",
                        minutes=5, now=minutes(6))
    with pytest.raises(services.DomainError, match="timeout"):
        services.code_submit(game=running, application=alpha, text="G1R1D", now=minutes(7))


def test_a_penalty_ruled_between_two_codes_is_on_the_teams_screen_after_the_second(
        running, alpha, organizer, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "nope", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    services.ruling_add(actor=organizer, game=running, application=alpha, type="penalty",
                        minutes=5, now=minutes(6))
    code(running, alpha, "still nope", minutes(7), monkeypatch,
         django_capture_on_commit_callbacks)
    assert me(running, alpha)["penalty_s"] == 300.0


def test_a_closing_code_leaves_its_teams_new_timeline_for_the_next_code(
        running, alpha, monkeypatch, django_capture_on_commit_callbacks):
    code(running, alpha, "G1R1D", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    kept = found(running, alpha, minutes(5.5))
    assert kept.current_level == "2"
    answer = code(running, alpha, "nope", minutes(6), monkeypatch,
                  django_capture_on_commit_callbacks)
    assert answer.attempt.level.label == "2"
    assert found(running, alpha, minutes(6.5)) is kept  # the code on level 2 computed nothing


def test_closing_codes_after_a_standing_ruling_leave_the_result_the_whole_record_gives(
        running, alpha, organizer, monkeypatch, django_capture_on_commit_callbacks):
    # A standing ruling puts its events after the closing codes in a built record; each close
    # adds its code to the record its check parsed, after the ruling: no result may change.
    services.ruling_add(actor=organizer, game=running, application=alpha, type="penalty",
                        minutes=5, now=minutes(2))
    code(running, alpha, "nope", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    for text, at in (("G1R1D", minutes(6)), ("G1R2D", minutes(8))):
        answer = code(running, alpha, text, at, monkeypatch, django_capture_on_commit_callbacks)
        assert answer.attempt.closes_level
    assert me(running, alpha)["levels_closed"] == 2 and me(running, alpha)["penalty_s"] == 300.0
    kept = found(running, alpha, minutes(9))
    whole = rules.team_result(rules.parse_record(services.game_record(running, now=minutes(9))),
                              "Alpha", minutes(9))
    assert kept == whole


def test_teams_never_share_a_timeline(running, alpha, beta, monkeypatch,
                                      django_capture_on_commit_callbacks):
    code(running, alpha, "G1R1D", minutes(5), monkeypatch, django_capture_on_commit_callbacks)
    answer = code(running, beta, "G1R2D", minutes(6), monkeypatch,
                  django_capture_on_commit_callbacks)
    assert answer.attempt.verdict == "wrong" and answer.attempt.level.label == "1"


def test_iso_gives_the_sites_local_time_of_any_instant_remembered_or_not():
    utc = datetime(2026, 12, 5, 19, 0, tzinfo=UTC)
    assert selectors.iso(utc) == "2026-12-05T22:00:00+03:00"
    assert selectors.iso(utc) == "2026-12-05T22:00:00+03:00"  # remembered
    assert selectors.iso(utc.astimezone(selectors.timezone.get_default_timezone())) == (
        "2026-12-05T22:00:00+03:00")  # the same instant, another zone: the same key
    assert selectors.iso(None) is None


def test_iso_follows_a_changed_site_zone():
    moment = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert selectors.iso(moment) == "2026-07-01T15:00:00+03:00"
    with override_settings(TIME_ZONE="Europe/Berlin"):
        assert selectors.iso(moment) == "2026-07-01T14:00:00+02:00"
    assert selectors.iso(moment) == "2026-07-01T15:00:00+03:00"
