"""The GoRoD services: every action, every refusal, and the record round trip."""

from __future__ import annotations

import json
import uuid

import pytest

from gorod import realtime, rules, selectors, services
from gorod.models import CodeAttempt, GorodGame, Ruling
from live.delta import patch
from teams.models import Game
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import LEVELS, T0, make_teams, minutes

pytestmark = pytest.mark.django_db


def submit(game, entry, text, m, **kw):
    return services.code_submit(game=game, application=entry, text=text, now=minutes(m), **kw)


def read(game, m, kind, **kw):
    """The stored state a screen reads at minute ``m``: the clock has ticked by then."""
    services.game_tick(game=game.pk, now=minutes(m))
    return selectors.read_state(game, kind=kind, **kw)


def team(game, entry, m):
    return read(game, m, "team", application_id=entry.pk)["state"]["me"]


def stats(game, m):
    return read(game, m, "organizer")["state"]["statistics"]


# --- set-up -------------------------------------------------------------------------------------


def test_create_needs_an_organizer_and_a_gorod_game(scheduled, outsider, organizer):
    with pytest.raises(services.NotAllowed):
        services.gorod_create(actor=outsider, game=scheduled)
    koth = Game.objects.create(title="KotH", format=Game.Format.KINGOFHILL,
                               starts_at=scheduled.starts_at)
    with pytest.raises(services.DomainError, match="not a GoRoD game"):
        services.gorod_create(actor=organizer, game=koth)


def test_a_bad_code_description_is_refused_and_nothing_is_created(scheduled, organizer):
    with pytest.raises(services.DomainError, match="Level 1"):
        services.gorod_create(actor=organizer, game=scheduled,
                              levels=[{"label": "1", "codes": {"sectors": [{"name": "x"}]}}])
    assert not GorodGame.objects.exists()


def test_create_twice_is_refused(gorod, organizer, scheduled):
    with pytest.raises(services.DomainError, match="already set up"):
        services.gorod_create(actor=organizer, game=scheduled)


def test_start_freezes_the_teams_and_everybody_receives_level_one(gorod, organizer, entries):
    services.game_start(actor=organizer, game=gorod, now=T0)
    gorod.refresh_from_db()
    assert gorod.status == "running" and gorod.team_order == [e.pk for e in entries]
    assert Game.objects.get(pk=gorod.pk).status == Game.Status.RUNNING
    me = team(gorod, entries[0], 1)
    assert me["level"]["label"] == "1" and me["level"]["task"] == "Find the bridge"
    assert me["level"]["next_hint_at"] == selectors.iso(minutes(25))
    assert me["level"]["fail_at"] == selectors.iso(minutes(70))
    with pytest.raises(services.DomainError, match="already started"):
        services.game_start(actor=organizer, game=gorod, now=T0)


def test_start_needs_an_organizer(gorod, outsider):
    with pytest.raises(services.NotAllowed):
        services.game_start(actor=outsider, game=gorod)


def test_routes_are_generated_before_the_start_and_followed(gorod, organizer, entries):
    routes = services.routes_generate(actor=organizer, game=gorod, seed=3)
    assert sorted(r[0] for r in routes.values()) == ["1", "2", "3"]
    services.game_start(actor=organizer, game=gorod, now=T0)
    gorod.refresh_from_db()
    for entry in entries:
        assert team(gorod, entry, 1)["level"]["label"] == routes[entry.pk][0]
    with pytest.raises(services.DomainError, match="before the start"):
        services.routes_generate(actor=organizer, game=gorod)


# --- codes --------------------------------------------------------------------------------------


def test_a_code_before_the_start_is_refused(gorod, alpha):
    with pytest.raises(services.DomainError):
        services.code_submit(game=gorod, application=alpha, text="G1R1D")
    assert not CodeAttempt.objects.exists()


def test_a_team_that_does_not_play_is_refused(running, organizer, scheduled):
    other = Game.objects.create(title="Other", format=Game.Format.GOROD,
                                starts_at=scheduled.starts_at)
    stranger = make_teams(other, ["Delta"], organizer)[0]
    with pytest.raises(services.DomainError, match="does not play"):
        submit(running, stranger, "G1R1D", 1)


def test_wrong_then_right_code_closes_the_level(running, alpha):
    wrong = submit(running, alpha, "nope", 5)
    assert wrong.attempt.verdict == "wrong" and wrong.remaining == 1
    right = submit(running, alpha, " g1 r1 d ", 10)
    assert right.attempt.verdict == "accepted" and right.attempt.closes_level
    me = team(running, alpha, 11)
    assert me["level"]["label"] == "2" and me["history"][0]["outcome"] == "code"
    assert [a["verdict"] for a in me["attempts"]] == ["accepted", "wrong"]


def test_a_code_of_another_level_is_just_wrong(running, alpha):
    assert submit(running, alpha, "G1R2D", 5).attempt.verdict == "wrong"
    assert team(running, alpha, 6)["level"]["label"] == "1"


def test_sectors_close_the_level_only_when_all_are_found(running, alpha):
    submit(running, alpha, "G1R1D", 1)
    submit(running, alpha, "G1R2D", 2)
    first = submit(running, alpha, "g1r32d", 3)
    assert (first.attempt.sector, first.remaining, first.attempt.closes_level) == ("south", 1, False)
    assert submit(running, alpha, "G1R32D", 4).attempt.verdict == "repeat"
    me = team(running, alpha, 4)
    assert me["level"]["sectors"] == [{"name": "north", "found": False},
                                      {"name": "south", "found": True}]
    assert submit(running, alpha, "G1R31D", 5).attempt.closes_level
    me = team(running, alpha, 6)
    assert me["status"] == "finished" and me["level"] is None


def test_brute_force_refuses_with_the_wait_and_stores_the_refused_try_as_limited(
        running, alpha):
    for i in range(10):
        submit(running, alpha, f"bad{i}", 1 + i / 60)
    refused = submit(running, alpha, "G1R1D", 1 + 10 / 60)
    assert refused.attempt.verdict == "limited" and refused.wait_s == 50
    assert not refused.attempt.closes_level and refused.attempt.client_id is None
    assert CodeAttempt.objects.filter(verdict="wrong").count() == 10
    assert CodeAttempt.objects.filter(verdict="limited").count() == 1
    # A refused try is not wrong: it does not lengthen the wait.
    assert submit(running, alpha, "G1R1D", 1 + 20 / 60).wait_s == 40
    assert submit(running, alpha, "G1R1D", 2).attempt.verdict == "accepted"


def test_a_limited_try_resent_with_its_client_id_after_the_wait_is_checked(running, alpha):
    for i in range(10):
        submit(running, alpha, f"bad{i}", 1 + i / 60)
    cid = uuid.uuid4()
    assert submit(running, alpha, "G1R1D", 1.2, client_id=cid).attempt.verdict == "limited"
    again = submit(running, alpha, "G1R1D", 2.5, client_id=cid)
    assert again.attempt.verdict == "accepted" and not again.duplicate


def test_a_code_of_a_level_already_closed_answers_so_and_is_not_a_wrong_attempt(running, alpha):
    assert submit(running, alpha, "G1R1D", 5).attempt.closes_level
    again = submit(running, alpha, "g1r1d", 6)
    assert again.attempt.verdict == "closed_level" and again.attempt.level.label == "1"
    assert not again.attempt.closes_level
    # Eleven of them within a minute: none counts for the brute-force limit.
    for i in range(11):
        assert submit(running, alpha, "G1R1D", 7 + i / 60).attempt.verdict == "closed_level"
    assert submit(running, alpha, "G1R2D", 7.5).attempt.closes_level
    me = team(running, alpha, 8)
    assert me["attempts"][1]["verdict"] == "closed_level" and me["attempts"][1]["level"] == "1"


def test_the_code_of_a_failed_level_is_closed_level_too_and_other_levels_stay_wrong(
        running, alpha):
    # Level 1 fails at 70 min: the team got its code and is on level 2.
    assert submit(running, alpha, "G1R1D", 71).attempt.verdict == "closed_level"
    assert submit(running, alpha, "G1R31D", 72).attempt.verdict == "wrong"


def test_the_team_sees_its_penalties_bonuses_and_failed_levels_live_and_total_and_place_at_the_end(
        running, organizer, alpha, beta):
    services.ruling_add(actor=organizer, game=running, application=alpha, type="penalty",
                        minutes=10, now=minutes(2))
    services.ruling_add(actor=organizer, game=running, application=alpha, type="bonus",
                        minutes=3, now=minutes(2))
    me = team(running, alpha, 71)  # level 1 failed at 70
    assert (me["penalty_s"], me["bonus_s"], me["failed_levels"]) == (600, 180, 1)
    assert me["failed_penalty_s"] == 15 * 60
    assert me["status"] == "playing" and me["total_s"] is None and me["place"] is None
    for m, code in ((72, "G1R2D"), (73, "G1R31D"), (74, "G1R32D")):
        submit(running, alpha, code, m)
    me = team(running, alpha, 75)
    # Finished: its total is fixed; its place waits for the end (other teams still play).
    assert me["status"] == "finished" and me["total_s"] == (74 + 15 + 10 - 3) * 60
    assert me["place"] is None and me["teams"] is None
    services.game_end(actor=organizer, game=running, now=minutes(80))
    me = team(running, alpha, 81)
    assert me["place"] == 1 and me["teams"] == 3
    other = team(running, beta, 81)
    assert other["status"] == "stopped" and other["place"] == 2 and other["total_s"] is not None


def test_a_retried_submission_with_the_same_client_id_counts_once(running, alpha):
    cid = uuid.uuid4()
    first = submit(running, alpha, "bad", 1, client_id=cid)
    again = submit(running, alpha, "bad", 1.5, client_id=str(cid))
    assert again.duplicate and again.attempt.pk == first.attempt.pk
    assert CodeAttempt.objects.count() == 1


def test_hints_appear_and_a_level_fails_by_the_clock_alone(running, alpha):
    me = team(running, alpha, 30)
    assert [h["text"] for h in me["level"]["hints"]] == ["Near water"]
    assert [h["text"] for h in team(running, alpha, 55)["level"]["hints"]] == [
        "Near water", "Red bridge"]
    me = team(running, alpha, 71)
    assert me["level"]["label"] == "2" and me["history"][0]["outcome"] == "auto_sliv"
    # level 2 is 45 min: its 50-min hint never comes, the next deadline is the fail
    assert me["level"]["next_hint_at"] == selectors.iso(minutes(95))
    assert team(running, alpha, 96)["level"]["next_hint_at"] is None


def test_codes_after_the_end_are_refused(running, organizer, alpha):
    services.game_end(actor=organizer, game=running, now=minutes(30))
    with pytest.raises(services.DomainError, match="ended"):
        submit(running, alpha, "G1R1D", 31)


def test_a_team_never_sees_another_teams_attempts(running, alpha, beta):
    submit(running, alpha, "secret-alpha", 1)
    state = read(running, 2, "team", application_id=beta.pk)
    assert "secret-alpha" not in str(state)
    org = read(running, 2, "organizer")
    assert org["state"]["attempts"][0]["text"] == "secret-alpha"


# --- rulings ------------------------------------------------------------------------------------


def test_rulings_need_an_organizer(running, outsider, alpha):
    with pytest.raises(services.NotAllowed):
        services.ruling_add(actor=outsider, game=running, application=alpha, type="penalty",
                            minutes=10, now=minutes(5))
    assert not Ruling.objects.exists()


@pytest.mark.parametrize("kind,extra", [
    ("penalty", {"minutes": 20}), ("bonus", {"minutes": 5}), ("disqualify", {}),
    ("timeout", {"minutes": 10}), ("sliv", {}), ("force_majeure", {}),
])
def test_each_ruling_is_stored_and_counted(running, organizer, alpha, kind, extra):
    services.ruling_add(actor=organizer, game=running, application=alpha, type=kind,
                        reason="why", now=minutes(20), **extra)
    row = next(r for r in stats(running, 21)["rows"] if r["team"] == "Alpha")
    if kind == "timeout":
        assert row["timeout_s"] == 600.0
    else:
        assert row["rulings"][0]["type"] == kind and row["rulings"][0]["by"] == "organizer"
    if kind == "sliv":
        assert row["cells"][0]["outcome"] == "sliv"
    if kind == "force_majeure":
        assert row["cells"][0]["outcome"] == "force_majeure"
    if kind == "disqualify":
        assert row["status"] == "disqualified"
        with pytest.raises(services.DomainError, match="disqualified"):
            submit(running, alpha, "G1R1D", 22)
    if kind == "timeout":
        with pytest.raises(services.DomainError, match="timeout"):
            submit(running, alpha, "G1R1D", 25)


def test_average_time_replaces_the_level_time(running, organizer, alpha, beta):
    submit(running, alpha, "G1R1D", 10)
    submit(running, beta, "G1R1D", 30)
    services.ruling_add(actor=organizer, game=running, application=alpha, type="average_time",
                        level="1", now=minutes(31))
    row = next(r for r in stats(running, 31)["rows"] if r["team"] == "Alpha")
    assert row["average_adjust_s"] == 1200.0


def test_a_ruling_the_engine_refuses_is_not_stored(running, organizer, alpha):
    services.ruling_add(actor=organizer, game=running, application=alpha, type="timeout",
                        minutes=5, now=minutes(10))
    with pytest.raises(services.DomainError, match="second timeout"):
        services.ruling_add(actor=organizer, game=running, application=alpha, type="timeout",
                            minutes=5, now=minutes(30))
    with pytest.raises(services.DomainError, match="outside"):
        services.ruling_add(actor=organizer, game=running, application=alpha, type="penalty",
                            minutes=-3, now=minutes(30))
    with pytest.raises(services.DomainError, match="before the team received"):
        services.ruling_add(actor=organizer, game=running, application=alpha, type="sliv",
                            level="2", now=minutes(30))
    assert Ruling.objects.count() == 1


# --- end and record -----------------------------------------------------------------------------


def test_the_game_finishes_when_every_team_has_finished(running, organizer, entries):
    for i, entry in enumerate(entries):
        for j, code in enumerate(("G1R1D", "G1R2D", "G1R31D", "G1R32D")):
            submit(running, entry, code, 1 + 4 * i + j)
    running.refresh_from_db()
    assert running.status == "finished" and running.ended_at == minutes(12)
    assert read(running, 13, "public")["state"]["statistics"]


def test_end_needs_an_organizer_and_a_running_game(gorod, organizer, outsider):
    with pytest.raises(services.DomainError):
        services.game_end(actor=organizer, game=gorod)
    services.game_start(actor=organizer, game=gorod, now=T0)
    with pytest.raises(services.NotAllowed):
        services.game_end(actor=outsider, game=gorod)


def played_night(game, organizer, alpha, beta):
    submit(game, alpha, "bad", 3)
    submit(game, alpha, "G1R1D", 12)
    submit(game, beta, "G1R1D", 40)
    services.ruling_add(actor=organizer, game=game, application=beta, type="penalty",
                        minutes=10, reason="late", now=minutes(41))
    services.ruling_add(actor=organizer, game=game, application=alpha, type="sliv",
                        now=minutes(50))
    services.ruling_add(actor=organizer, game=game, application=beta, type="timeout",
                        minutes=5, now=minutes(60))


def test_the_record_of_a_running_game_replays_to_the_live_statistics(
        running, organizer, alpha, beta):
    played_night(running, organizer, alpha, beta)
    record = services.game_record(running, now=minutes(80))
    live = stats(running, 80)
    out = rules.replay(record)
    # Every figure and moment of each team's row and of each level's cell, as the replay
    # writes them (its levels in the team's order, the table's cells in the game's).
    assert [t["team"] for t in out["teams"]] == [r["team"] for r in live["rows"]]
    for team, row in zip(out["teams"], live["rows"], strict=True):
        assert {key: team[key] for key in ROW_FIGURES} == {key: row[key] for key in ROW_FIGURES}
        assert team["rulings"] == row["rulings"]
        cells = [cell for cell in row["cells"] if cell is not None]
        assert [{**{key: level[key] for key in CELL_FIGURES}, "time_s": level["duration_s"],
                 "order": order} for order, level in enumerate(team["levels"], 1)] == sorted(
            ({key: cell[key] for key in (*CELL_FIGURES, "time_s", "order")} for cell in cells),
            key=lambda cell: cell["order"])


ROW_FIGURES = ("place", "status", "levels_closed", "slivs", "penalty_s", "bonus_s", "timeout_s",
               "average_adjust_s", "total_s", "finished_at")
CELL_FIGURES = ("received_at", "hints_shown", "closed_at", "outcome", "timeout_s", "average_s")


def test_the_record_of_a_finished_game_replays_to_the_final_statistics(
        running, organizer, alpha, beta):
    played_night(running, organizer, alpha, beta)
    services.game_end(actor=organizer, game=running, now=minutes(100))
    running.refresh_from_db()
    record = services.game_record(running)
    assert "now" not in record and record["end"] == selectors.iso(minutes(100))
    out = rules.replay(record)
    live = stats(running, 300)
    assert [t["team"] for t in out["teams"]] == [r["team"] for r in live["rows"]]
    assert [t["total_s"] for t in out["teams"]] == [r["total_s"] for r in live["rows"]]


def test_a_wrong_code_pushes_after_the_commit_to_its_team_and_the_organizer_only(
        running, alpha, beta, monkeypatch, django_capture_on_commit_callbacks):
    sent = []
    monkeypatch.setattr("live.messages.send_to_groups", sent.extend)
    before = {kind: selectors.read_state(running, kind=kind, application_id=app)["version"]
              for kind, app in (("public", None), ("organizer", None), ("team", alpha.pk))}
    held = selectors.read_state(running, kind="team", application_id=alpha.pk)["state"]
    with django_capture_on_commit_callbacks() as callbacks:
        submit(running, alpha, "bad", 1)
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    groups = {group: message for group, message in sent}
    assert set(groups) == {realtime.organizer_group(running.pk),
                           realtime.team_group(running.pk, alpha.pk)}
    mine = json.loads(groups[realtime.team_group(running.pk, alpha.pk)]["text"])
    assert mine["version"] == before["team"] + 1
    # The push carries what changed, applied to the state the phone holds.
    assert "state" not in mine
    assert patch(held, mine["delta"])["me"]["attempts"][0]["text"] == "bad"
    assert selectors.read_state(running, kind="public")["version"] == before["public"]


def test_the_clock_tick_ends_the_game_at_the_cap(scheduled, entries, organizer):
    gg = services.gorod_create(actor=organizer, game=scheduled, levels=LEVELS[:1],
                               max_duration_h=1)
    services.game_start(actor=organizer, game=gg, now=T0)
    assert services.game_tick(game=gg, now=minutes(30)) == minutes(50)  # hint 2
    assert services.game_tick(game=gg, now=minutes(61)) is None
    gg.refresh_from_db()
    assert gg.status == "finished" and gg.ended_at == minutes(60)


def test_a_clock_round_finishes_a_game_whose_time_is_up(scheduled, entries, organizer):
    from datetime import timedelta

    from django.utils import timezone

    from gorod import clock

    gg = services.gorod_create(actor=organizer, game=scheduled, levels=LEVELS[:1],
                               max_duration_h=1)
    services.game_start(actor=organizer, game=gg, now=timezone.now() - timedelta(hours=2))
    assert clock.run_due() == [gg.pk]
    gg.refresh_from_db()
    assert gg.status == "finished" and gg.next_deadline is None


def test_the_organizer_sees_each_teams_level_since_when_its_next_deadline_and_last_attempt(
        running, alpha, beta):
    submit(running, alpha, "G1R1D", 5)
    submit(running, alpha, "nope", 6)
    state = read(running, 7, "organizer")["state"]
    rows = {t["name"]: t for t in state["teams"]}
    a, b = rows["Alpha"], rows["Beta"]
    assert (a["current_level"], a["level_number"], a["status"]) == ("2", 2, "playing")
    assert a["received_at"] == selectors.iso(minutes(5))
    # Level 2 (45 min) received at 5: hint 1 at 30 is its next deadline.
    assert a["next_deadline"] == selectors.iso(minutes(30))
    assert a["last_attempt"] == {"at": selectors.iso(minutes(6)), "text": "nope",
                                 "verdict": "wrong", "level": "2"}
    assert b["received_at"] == selectors.iso(T0) and b["last_attempt"] is None
    assert b["next_deadline"] == selectors.iso(minutes(25))
    assert state["end_rule"] == {"share": 0.8, "allowed": False}


def test_the_organizer_log_shows_refused_and_closed_level_attempts(running, alpha):
    for i in range(10):
        submit(running, alpha, f"bad{i}", 1 + i / 60)
    submit(running, alpha, "G1R1D", 1.2)
    submit(running, alpha, "G1R1D", 3)
    submit(running, alpha, "G1R1D", 4)
    log = read(running, 5, "organizer")["state"]["attempts"]
    assert [a["verdict"] for a in log[:3]] == ["closed_level", "accepted", "limited"]
    assert log[0]["level"] == "1" and log[2]["text"] == "G1R1D"


def test_the_end_rule_is_not_reached_below_80_percent_of_finished_teams(running, entries):
    for n, entry in enumerate(entries[:2]):
        for m, code in ((1, "G1R1D"), (2, "G1R2D"), (3, "G1R31D"), (4, "G1R32D")):
            submit(running, entry, code, m + 4 * n)
    state = read(running, 9, "organizer")["state"]
    # Two of three finished: 67 % < 80 %.
    assert state["end_rule"]["allowed"] is False
    assert round(state["game"]["finished_share"], 2) == 0.67
