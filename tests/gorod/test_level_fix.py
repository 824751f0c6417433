"""Fixing a level during play (``gorod.level_fix``): texts re-render the phones on the level; a
corrected code credits the stored attempts that match it — a ``code`` for a team still on the
level, ``bonus`` minutes for a team that had left it — as rulings the record replays and the
undo takes out; the preview says who gains what without a write; a property: a live night with
codes and fixes replays from its record to the live statistics."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import NeedsConfirmation
from core.models import AuditEntry
from gorod import rules, selectors, services, states
from gorod.live import LIVE
from gorod.models import Level, Ruling
from live.messages import team_audience
from rating import services as rating_services
from rating.models import GameResult
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.gorod.test_live import check_steps
from tests.properties import examples
from tests.rating.helpers import captained_teams, gorod_game

pytestmark = pytest.mark.django_db


def submit(game, entry, text, m):
    return services.code_submit(game=game, application=entry, text=text, now=minutes(m))


def fix(game, organizer, m, level="1", **fields):
    return services.level_fix(actor=organizer, game=game, level=level, now=minutes(m), **fields)


def preview(game, organizer, m, level="1", **fields):
    return services.fix_preview(actor=organizer, game=game, level=level, now=minutes(m),
                                **fields)


def me(game, entry):
    return selectors.read_state(game, kind="team", application_id=entry.pk)["state"]["me"]


def standing(game, entry):
    return Ruling.objects.filter(gorod=game, application=entry, undone_at__isnull=True)


def replays_to_live(game, now):
    record = services.game_record(game.pk, now=now)
    live = selectors.read_state(game, kind="organizer")["state"]["statistics"]
    replayed = states.statistics_table(rules.compute(rules.parse_record(record)))
    ids = {r["team"]: r["application"] for r in live["rows"]}
    for row in replayed["rows"]:
        row["application"] = ids[row["team"]]
    return replayed == live


def no_writes(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries
            if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]


# --- the table of cases ---------------------------------------------------------------------


def test_a_team_still_on_the_level_closes_it_at_the_fix_with_a_bonus_back_to_its_attempt(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)  # the misprinted code, typed right
    fix(running, organizer, 25, codes="G1R1D | G1R1X")
    rulings = list(standing(running, alpha).order_by("type").values_list(
        "type", "minutes", "at"))
    assert rulings == [("bonus", 15.0, None), ("code", None, minutes(25))]
    state = me(running, alpha)
    assert state["level"]["label"] == "2"
    # Its next level starts now, with its whole time: not in the past.
    assert state["level"]["received_at"] == selectors.iso(minutes(25))
    assert state["level"]["fail_at"] == selectors.iso(minutes(25 + 45))
    # Its time on level 1 counts as if it had closed at its attempt.
    assert state["bonus_s"] == 15 * 60
    assert replays_to_live(running, minutes(26))


def test_a_team_that_left_the_level_later_with_another_code_gets_the_time_it_lost(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    submit(running, alpha, "G1R1D", 32)  # closed 22 minutes later
    fix(running, organizer, 40, codes="G1R1D | G1R1X")
    assert list(standing(running, alpha).values_list("type", "minutes")) == [("bonus", 22.0)]
    assert me(running, alpha)["level"]["label"] == "2"  # its play stands
    assert replays_to_live(running, minutes(41))


def test_a_team_failed_by_the_clock_gets_the_time_from_its_attempt_and_the_fails_penalty(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    services.game_tick(game=running.pk, now=minutes(70))  # failed at +70
    fix(running, organizer, 80, codes="G1R1X")
    assert list(standing(running, alpha).values_list("type", "minutes")) == [("bonus", 75.0)]
    state = me(running, alpha)
    assert state["history"][0]["outcome"] == "auto_sliv"  # the fail stays, its cost goes back
    assert replays_to_live(running, minutes(81))


def test_a_team_that_never_tried_the_code_gets_nothing(running, organizer, alpha, beta):
    submit(running, alpha, "G1R1X", 10)
    submit(running, beta, "something else", 12)
    fix(running, organizer, 20, codes="G1R1D | G1R1X")
    assert not standing(running, beta).exists()
    assert me(running, beta)["level"]["label"] == "1"


def test_the_earliest_matching_attempt_counts_and_the_pause_is_not_lost_time(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    submit(running, alpha, "g1r1x", 12)
    services.game_pause(actor=organizer, game=running, now=minutes(15))
    services.game_resume(actor=organizer, game=running, now=minutes(20))
    fix(running, organizer, 30, codes="G1R1X")
    bonus = standing(running, alpha).get(type="bonus")
    assert bonus.minutes == 15.0  # 20 min since 22:10, less the 5-min pause
    assert "22:10" in bonus.reason
    assert replays_to_live(running, minutes(31))


def test_a_second_fix_of_the_level_credits_only_an_earlier_attempts_extra_time(
        running, organizer, alpha):
    submit(running, alpha, "G1R1Y", 4)
    submit(running, alpha, "G1R1X", 10)
    fix(running, organizer, 20, codes="G1R1D | G1R1X")  # closed at 20, 10 min back
    fix(running, organizer, 25, codes="G1R1D | G1R1X | G1R1Z")  # X is still the earliest
    assert list(standing(running, alpha).filter(type="bonus").values_list(
        "minutes", flat=True)) == [10.0]  # the same credit is not given twice
    fix(running, organizer, 30, codes="G1R1D | G1R1X | G1R1Y")
    assert sorted(standing(running, alpha).filter(type="bonus").values_list(
        "minutes", flat=True)) == [6.0, 10.0]  # the earlier attempt: 6 min more
    assert me(running, alpha)["bonus_s"] == 16 * 60
    assert replays_to_live(running, minutes(31))


def test_a_text_only_fix_re_renders_the_phones_on_that_level_and_credits_nobody(
        running, organizer, alpha, beta):
    submit(running, beta, "G1R1D", 5)  # Beta is on level 2
    services.game_tick(game=running.pk, now=minutes(26))  # Alpha's first hint is shown
    versions = {e: LIVE.read(running.pk, team_audience(e.pk)).version for e in (alpha, beta)}
    fix(running, organizer, 27, task="Find the red bridge", hint1="Near the river")
    level = me(running, alpha)["level"]
    assert level["task"] == "Find the red bridge"
    assert level["hints"][0]["text"] == "Near the river"  # the hint already shown updates
    assert LIVE.read(running.pk, team_audience(alpha.pk)).version == versions[alpha] + 1
    assert LIVE.read(running.pk, team_audience(beta.pk)).version == versions[beta]
    assert not Ruling.objects.filter(gorod=running).exists()
    assert Level.objects.get(gorod=running, label="1").codes == {"code": "G1R1D"}


def test_a_removed_code_takes_no_credit_back_and_no_longer_matches(
        running, organizer, alpha, beta):
    submit(running, alpha, "G1R1D", 10)
    fix(running, organizer, 20, codes="G1R1Z")
    assert me(running, alpha)["history"][0]["outcome"] == "code"
    assert not Ruling.objects.filter(gorod=running).exists()
    assert submit(running, beta, "G1R1D", 21).attempt.verdict == "wrong"
    assert submit(running, beta, "G1R1Z", 22).attempt.closes_level


def test_a_fix_that_drops_a_sector_a_team_on_the_level_found_is_refused(
        running, organizer, alpha):
    for m, text in ((1, "G1R1D"), (2, "G1R2D"), (3, "G1R31D")):  # Alpha found "north" of 3
        submit(running, alpha, text, m)
    with pytest.raises(services.DomainError, match="north"):
        fix(running, organizer, 10, level="3", codes="south: G1R32D")


def test_a_sector_credited_by_a_fix_closes_the_level_once_every_sector_is_found(
        running, organizer, alpha):
    for m, text in ((1, "G1R1D"), (2, "G1R2D"), (3, "G1R31D"), (5, "G1R3SOUTH")):
        submit(running, alpha, text, m)
    fix(running, organizer, 10, level="3", codes="north: G1R31D\nsouth: G1R32D | G1R3SOUTH")
    assert standing(running, alpha).get(type="code").at == minutes(10)
    assert standing(running, alpha).get(type="bonus").minutes == 5.0
    assert me(running, alpha)["status"] == "finished"


def test_a_credit_is_undone_like_any_ruling_and_the_team_is_back_on_the_level(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    fix(running, organizer, 20, codes="G1R1D | G1R1X")
    for ruling in standing(running, alpha):
        services.ruling_undo(actor=organizer, game=running, ruling=ruling, reason="misread",
                             now=minutes(21))
    assert me(running, alpha)["level"]["label"] == "1"
    assert replays_to_live(running, minutes(22))


def test_a_team_stopped_on_the_level_closes_it_at_the_end_after_the_night(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    services.game_end(actor=organizer, game=running, now=minutes(40))
    running.refresh_from_db()
    fix(running, organizer, 60, codes="G1R1D | G1R1X")
    assert standing(running, alpha).get(type="code").at == minutes(40)
    assert standing(running, alpha).get(type="bonus").minutes == 30.0
    row = next(r for r in selectors.read_state(running, kind="organizer")["state"][
        "statistics"]["rows"] if r["team"] == "Alpha")
    assert row["levels_closed"] == 1 and row["total_s"] == 10 * 60
    assert replays_to_live(running, minutes(61))


def test_the_fix_is_audited_and_the_credits_name_the_level_and_the_attempt(
        running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    fix(running, organizer, 20, codes="G1R1D | G1R1X", reason="misprint on the sign")
    entry = AuditEntry.objects.get(game_id=running.pk, action="gorod.level_fix")
    assert entry.before["codes"] == "G1R1D" and entry.after["codes"] == "1: G1R1D | G1R1X"
    assert entry.reason == "misprint on the sign"
    assert entry.after["credits"][0]["team"] == "Alpha"
    ruling = standing(running, alpha).get(type="code")
    assert ruling.reason.startswith("Level 1 fixed: “G1R1X” sent at 22:10")
    assert ruling.reason.endswith("misprint on the sign") and ruling.by == organizer


# --- refusals -------------------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "message"), [
    ({"level": "9", "codes": "A"}, "no level 9"),
    ({"codes": ""}, "at least one code"),
    ({"codes": "   \n "}, "at least one code"),
    ({"codes": "G1R1D"}, "Nothing to change"),
    ({"task": "Find the bridge"}, "Nothing to change"),
    ({"codes": "a: X\na: Y"}, "already named above"),
    ({"codes": "X" * 201}, "at most 200 characters"),
    ({"level": " ", "codes": "X"}, "Choose the level"),
])
def test_a_bad_fix_is_refused_with_a_clear_message(running, organizer, fields, message):
    fields = {"level": "1", **fields}
    with pytest.raises(services.DomainError, match=message):
        fix(running, organizer, 10, **fields)
    with pytest.raises(services.DomainError, match=message):
        preview(running, organizer, 10, **fields)


def test_a_fix_before_the_start_or_by_a_non_organizer_is_refused(gorod, running, outsider):
    with pytest.raises(services.NotAllowed):
        fix(running, outsider, 10, codes="X")


def test_a_fix_is_refused_before_the_start_the_set_up_page_changes_levels_then(
        gorod, organizer):
    with pytest.raises(services.DomainError, match="not started"):
        services.level_fix(actor=organizer, game=gorod, level="1", codes="X")


def test_a_code_fix_waits_for_the_end_of_a_credited_teams_timeout(running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    services.ruling_add(actor=organizer, game=running, application=alpha, type="timeout",
                        minutes=10, now=minutes(15))
    with pytest.raises(services.DomainError, match="timeout until"):
        fix(running, organizer, 20, codes="G1R1X")
    fix(running, organizer, 20, task="Texts can be fixed now")
    fix(running, organizer, 26, codes="G1R1X")
    assert standing(running, alpha).get(type="bonus").minutes == 6.0  # 16 less 10 of timeout


def test_the_ruling_form_cannot_credit_a_code_by_itself(running, organizer, alpha):
    with pytest.raises(services.DomainError, match="Fix level"):
        services.ruling_add(actor=organizer, game=running, application=alpha, type="code",
                            level="1", now=minutes(5))


# --- the preview ----------------------------------------------------------------------------


def test_the_preview_says_who_gains_what_and_how_the_places_move_without_a_write(
        running, organizer, alpha, beta):
    submit(running, alpha, "G1R1X", 10)
    submit(running, beta, "G1R1D", 20)
    with CaptureQueriesContext(connection) as captured:
        shown = preview(running, organizer, 30, codes="G1R1D | G1R1X").as_data()
    assert no_writes(captured) == []
    assert not Ruling.objects.exists()
    assert [c["team"] for c in shown["credits"]] == ["Alpha"]
    credit = shown["credits"][0]
    assert credit["closes_at"] == selectors.iso(minutes(30)) and credit["bonus_min"] == 20
    assert "Alpha: “G1R1X” sent at 22:10 — the level closes at 22:30, +20 min bonus" in shown[
        "text"]
    # Alpha's 10 min on level 1 now beats Beta's 20: the places swap.
    moved = {t["team"]: (t["place_before"], t["place_after"]) for t in shown["teams"]}
    assert moved["Alpha"] == (2, 1) and moved["Beta"] == (1, 2)


def test_a_text_only_preview_says_only_the_texts_change(running, organizer):
    shown = preview(running, organizer, 5, hint2="A red bridge").as_data()
    assert shown["codes_changed"] is False and shown["credits"] == []
    assert shown["text"].startswith("Only the texts change")


def test_the_preview_speaks_russian(running, organizer, alpha):
    submit(running, alpha, "G1R1X", 10)
    with translation.override("ru"):
        text = preview(running, organizer, 30, codes="G1R1D | G1R1X").text
    assert "отправлен в 22:10" in text and "уровень закрывается в 22:30" in text


# --- the API --------------------------------------------------------------------------------


def test_the_api_previews_applies_and_answers_a_bad_fix_with_a_detail(
        client, live, organizer, alpha):
    client.force_login(organizer)
    base = f"/gorod/api/games/{live.pk}/level-fix/"
    form = client.get(base, {"level": "1"})
    assert form.status_code == 200 and form.json()["codes"] == "G1R1D"
    unknown = client.post(base + "preview/", {"level": "7", "codes": "X"},
                          content_type="application/json")
    assert unknown.status_code == 400 and "no level 7" in unknown.json()["detail"]
    empty = client.post(base, {"level": "1", "codes": ""}, content_type="application/json")
    assert empty.status_code == 400 and "at least one code" in empty.json()["detail"]
    shown = client.post(base + "preview/", {"level": "1", "codes": "G1R1D\nextra: G1R1E"},
                        content_type="application/json")
    assert shown.status_code == 200 and shown.json()["codes_changed"] is True
    done = client.post(base, {"level": "1", "task": "New task"},
                       content_type="application/json")
    assert done.status_code == 200
    assert Level.objects.get(gorod=live, label="1").task == "New task"
    assert client.get(base, {"level": "nope"}).status_code == 400


def test_the_api_refuses_a_fix_of_a_game_not_started(client, gorod, organizer):
    client.force_login(organizer)
    refused = client.post(f"/gorod/api/games/{gorod.pk}/level-fix/", {"level": "1",
                          "codes": "X"}, content_type="application/json")
    assert refused.status_code == 400 and "not started" in refused.json()["detail"]


# --- the property ---------------------------------------------------------------------------


STEPS = st.lists(st.tuples(
    st.sampled_from(["code", "code", "code", "fix", "fix", "tick", "pause", "resume"]),
    st.integers(0, 2),  # which team
    st.integers(0, 5),  # which code / which fix
    st.integers(1, 25 * 60),  # seconds since the previous step
), min_size=1, max_size=12)
CODES = ("G1R1D", "G1R1X", "G1R2D", "G1R2X", "G1R31D", "G1R3SOUTH")
FIXES = (("1", "G1R1D | G1R1X"), ("2", "G1R2X"), ("3", "north: G1R31D\nsouth: G1R32D | G1R3SOUTH"),
         ("1", "G1R1X"), ("2", "G1R2D | G1R2X"), ("1", "G1R1D"))


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_a_live_night_with_codes_and_level_fixes_replays_to_the_live_statistics(
        running, organizer, entries, monkeypatch, django_capture_on_commit_callbacks, steps):
    """Every write keeps the pushed views equal to a rebuild (``verify_action``), and at the end
    the exported record replays to exactly the live statistics."""
    def act(kind, entry, choice, now):
        if kind == "code":
            services.code_submit(game=running.pk, application=entry, text=CODES[choice],
                                 now=now)
        elif kind == "fix":
            level, codes = FIXES[choice]
            services.level_fix(actor=organizer, game=running.pk, level=level, codes=codes,
                               now=now)
        elif kind == "pause":
            services.game_pause(actor=organizer, game=running.pk, now=now)
        elif kind == "resume":
            services.game_resume(actor=organizer, game=running.pk, now=now)
        else:
            services.game_tick(game=running.pk, now=now)

    def replays_to_the_live_statistics(now):
        services.game_tick(game=running.pk, now=now)
        assert replays_to_live(running, now)

    check_steps(running, entries, steps, act, monkeypatch, django_capture_on_commit_callbacks,
                then=replays_to_the_live_statistics)


def test_a_fix_after_the_published_night_waits_for_the_confirmation_and_outdates_them(
        organizer):
    game = gorod_game(organizer, teams=captained_teams())
    rating_services.results_publish(actor=organizer, game=game)
    with pytest.raises(NeedsConfirmation, match="results are published"):
        services.level_fix(actor=organizer, game=game.pk, level="2", task="Find the old tower",
                           now=minutes(600))
    assert GameResult.objects.get(game=game).outdated_at is None
    services.level_fix(actor=organizer, game=game.pk, level="2", task="Find the old tower",
                       confirm=True, now=minutes(600))
    assert Level.objects.get(gorod_id=game.pk, label="2").task == "Find the old tower"
    assert GameResult.objects.get(game=game).outdated_at is not None
