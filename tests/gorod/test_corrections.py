"""Timeouts asked from the phone (3.10), rulings undone or edited, photo-proof levels (3.23):
the services, their refusals, and what every screen then shows."""

from __future__ import annotations

import pytest

from gorod import selectors, services
from gorod.models import CodeAttempt, Level, PhotoProof, Ruling, TimeoutRequest
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.images import PNG

pytestmark = pytest.mark.django_db



def submit(game, entry, text, m):
    return services.code_submit(game=game, application=entry, text=text, now=minutes(m))


def me(game, entry, m):
    services.game_tick(game=game.pk, now=minutes(m))
    return selectors.read_state(game, kind="team", application_id=entry.pk)["state"]["me"]


def organizer_state(game, m):
    services.game_tick(game=game.pk, now=minutes(m))
    return selectors.read_state(game, kind="organizer")["state"]


def ask(game, entry, m, length=10, reason="a member is hurt"):
    return services.timeout_request(game=game, application=entry, minutes=length,
                                    reason=reason, now=minutes(m))


def decide(game, organizer, request, m, confirm=True, answer=""):
    return services.timeout_decide(actor=organizer, game=game, request=request, confirm=confirm,
                                   answer=answer, now=minutes(m))


# --- timeouts ---------------------------------------------------------------------------------


def test_an_asked_timeout_stops_the_clock_only_once_the_organizer_confirms_it(
        running, organizer, alpha):
    asked = ask(running, alpha, 10)
    assert me(running, alpha, 11)["timeout_request"]["status"] == "pending"
    assert me(running, alpha, 11)["level"]["timeout_until"] is None
    assert organizer_state(running, 11)["timeout_requests"][0]["reason"] == "a member is hurt"
    # Codes are still accepted while the request waits.
    assert submit(running, alpha, "wrong", 11).attempt.verdict == "wrong"
    decide(running, organizer, asked, 12)
    asked.refresh_from_db()
    assert asked.status == "confirmed" and asked.ruling.type == Ruling.Type.TIMEOUT
    assert asked.ruling.at == minutes(12) and asked.ruling.minutes == 10
    state = me(running, alpha, 13)
    assert state["timeout_request"]["status"] == "confirmed" and state["timeout_taken"]
    assert state["level"]["timeout_until"] == selectors.iso(minutes(22))
    with pytest.raises(services.DomainError, match="timeout"):
        submit(running, alpha, "G1R1D", 15)


@pytest.mark.parametrize("length", [0, 0.5, 30.5, 45, float("nan")])
def test_a_timeout_outside_1_to_30_minutes_is_refused(running, alpha, length):
    with pytest.raises(services.DomainError, match="1 to 30 minutes"):
        ask(running, alpha, 10, length=length)
    assert not TimeoutRequest.objects.exists()


def test_a_second_request_is_refused_while_one_waits_and_after_the_timeout_was_taken(
        running, organizer, alpha):
    first = ask(running, alpha, 10)
    with pytest.raises(services.DomainError, match="waits for the organizer"):
        ask(running, alpha, 11)
    decide(running, organizer, first, 12)
    with pytest.raises(services.DomainError, match="one per game"):
        ask(running, alpha, 13)  # running
    with pytest.raises(services.DomainError, match="one per game"):
        ask(running, alpha, 40)  # over
    assert TimeoutRequest.objects.count() == 1


def test_a_refused_request_leaves_the_clock_running_and_the_team_may_ask_again(
        running, organizer, alpha):
    first = ask(running, alpha, 10)
    decide(running, organizer, first, 11, confirm=False, answer="keep playing")
    state = me(running, alpha, 12)
    assert state["timeout_request"] == {**state["timeout_request"], "status": "refused",
                                        "answer": "keep playing"}
    assert not Ruling.objects.exists()
    ask(running, alpha, 20)
    with pytest.raises(services.DomainError, match="answered already"):
        decide(running, organizer, first, 21)


def test_a_timeout_needs_a_reason_a_running_game_and_a_team_on_a_level(
        gorod, organizer, alpha):
    with pytest.raises(services.DomainError, match="not started"):
        services.timeout_request(game=gorod, application=alpha, minutes=10, reason="x",
                                 now=minutes(0))
    services.game_start(actor=organizer, game=gorod, now=minutes(0))
    with pytest.raises(services.DomainError, match="Say why"):
        services.timeout_request(game=gorod, application=alpha, minutes=10, reason="  ",
                                 now=minutes(5))
    for m, code in enumerate(("G1R1D", "G1R2D", "G1R31D", "G1R32D"), start=1):
        submit(gorod, alpha, code, m)
    with pytest.raises(services.DomainError, match="not playing one"):
        ask(gorod, alpha, 10)


def test_only_organizers_decide_timeouts(running, outsider, alpha):
    asked = ask(running, alpha, 10)
    with pytest.raises(services.NotAllowed):
        decide(running, outsider, asked, 11)
    assert TimeoutRequest.objects.get().status == "pending"


# --- corrections ------------------------------------------------------------------------------


def test_an_undone_penalty_leaves_the_total_and_its_history_says_who_why_and_what(
        running, organizer, alpha):
    ruling = services.ruling_add(actor=organizer, game=running, application=alpha,
                                 type="penalty", minutes=20, reason="rude", now=minutes(5))
    assert me(running, alpha, 6)["penalty_s"] == 1200
    services.ruling_undo(actor=organizer, game=running, ruling=ruling, reason="wrong team",
                         now=minutes(7))
    ruling.refresh_from_db()
    assert ruling.undone_at == minutes(7)
    assert ruling.history == [{"action": "undo", "before": {
        "type": "penalty", "minutes": 20.0, "level": None, "at": None, "reason": "rude"},
        "after": None, "reason": "wrong team", "by": "organizer",
        "at": selectors.iso(minutes(7))}]
    assert me(running, alpha, 8)["penalty_s"] == 0
    listed = organizer_state(running, 8)["rulings"][0]
    assert listed["undone_at"] == selectors.iso(minutes(7)) and listed["history"]
    with pytest.raises(services.DomainError, match="undone already"):
        services.ruling_undo(actor=organizer, game=running, ruling=ruling, reason="again",
                             now=minutes(9))


def test_an_edited_ruling_is_checked_by_the_engine_and_keeps_the_previous_value(
        running, organizer, alpha):
    ruling = services.ruling_add(actor=organizer, game=running, application=alpha,
                                 type="bonus", minutes=5, now=minutes(5))
    services.ruling_edit(actor=organizer, game=running, ruling=ruling, minutes=8,
                         reason="miscounted", now=minutes(6))
    ruling.refresh_from_db()
    assert ruling.minutes == 8 and ruling.history[-1]["before"]["minutes"] == 5
    assert ruling.history[-1]["after"]["minutes"] == 8
    assert me(running, alpha, 7)["bonus_s"] == 480
    with pytest.raises(services.DomainError, match="outside"):
        services.ruling_edit(actor=organizer, game=running, ruling=ruling, minutes=-4,
                             reason="oops", now=minutes(8))
    ruling.refresh_from_db()
    assert ruling.minutes == 8 and len(ruling.history) == 1
    with pytest.raises(services.DomainError, match="Say why"):
        services.ruling_edit(actor=organizer, game=running, ruling=ruling, minutes=9,
                             reason="", now=minutes(8))
    with pytest.raises(services.DomainError, match="Nothing to change"):
        services.ruling_edit(actor=organizer, game=running, ruling=ruling, minutes=8,
                             reason="same", now=minutes(8))


def test_undoing_a_failed_level_the_team_has_played_past_is_refused(running, organizer, alpha):
    sliv = services.ruling_add(actor=organizer, game=running, application=alpha, type="sliv",
                               now=minutes(5))
    submit(running, alpha, "G1R2D", 10)  # closes level 2, received at the fail
    with pytest.raises(services.DomainError, match="engine refuses"):
        services.ruling_undo(actor=organizer, game=running, ruling=sliv, reason="mistake",
                             now=minutes(11))
    sliv.refresh_from_db()
    assert sliv.undone_at is None and sliv.history == []
    assert me(running, alpha, 12)["level"]["label"] == "3"


def test_corrections_need_an_organizer_and_a_reason(running, organizer, outsider, alpha):
    ruling = services.ruling_add(actor=organizer, game=running, application=alpha,
                                 type="penalty", minutes=3, now=minutes(5))
    with pytest.raises(services.NotAllowed):
        services.ruling_undo(actor=outsider, game=running, ruling=ruling, reason="x",
                             now=minutes(6))
    with pytest.raises(services.DomainError, match="Say why"):
        services.ruling_undo(actor=organizer, game=running, ruling=ruling, reason=" ",
                             now=minutes(6))
    with pytest.raises(services.DomainError, match="no such ruling"):
        services.ruling_undo(actor=organizer, game=running, ruling=ruling.pk + 99, reason="x",
                             now=minutes(6))


def test_undoing_a_confirmed_timeout_gives_the_team_its_timeout_back(running, organizer, alpha):
    asked = ask(running, alpha, 10)
    decide(running, organizer, asked, 11)
    asked.refresh_from_db()
    services.ruling_undo(actor=organizer, game=running, ruling=asked.ruling,
                         reason="asked by mistake", now=minutes(12))
    assert me(running, alpha, 13)["level"]["timeout_until"] is None
    assert submit(running, alpha, "G1R1D", 13).attempt.closes_level
    ask(running, alpha, 14)


# --- photo proof ------------------------------------------------------------------------------


@pytest.fixture
def photo_level(gorod):
    Level.objects.filter(gorod=gorod, label="1").update(photo_proof=True)
    return gorod


def test_an_accepted_photo_closes_the_level_at_its_upload_like_a_code(
        photo_level, organizer, alpha):
    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    assert me(photo_level, alpha, 1)["level"]["photo_proof"] is True
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG,
                                  now=minutes(10))
    assert proof.content_type == "image/png"
    assert me(photo_level, alpha, 11)["level"]["photos"][0]["status"] == "pending"
    listed = organizer_state(photo_level, 11)["photos"][0]
    assert listed["team"] == "Alpha" and listed["level"] == "1" and listed["url"]
    services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=True,
                          now=minutes(15))
    state = me(photo_level, alpha, 16)
    assert state["level"]["label"] == "2"
    assert state["history"][0]["closed_at"] == selectors.iso(minutes(10))
    # The engine counts it as a code; the team's history says how it was closed.
    assert state["history"][0]["outcome"] == "photo"
    assert CodeAttempt.objects.get(closes_level=True).at == minutes(10)


def test_a_photo_closed_level_reads_photo_in_the_statistics_and_a_code_closed_one_code(
        photo_level, organizer, alpha, beta):
    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    # The organizer's live table changes row by row: Alpha's row after the photo's decision.
    organizer_state(photo_level, 1)
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(10))
    services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=True,
                          now=minutes(12))
    submit(photo_level, beta, "G1R1D", 14)

    def outcomes(table):
        rows = {row["team"]: row for row in table["rows"]}
        return rows["Alpha"]["cells"][0]["outcome"], rows["Beta"]["cells"][0]["outcome"]

    assert outcomes(organizer_state(photo_level, 15)["statistics"]) == ("photo", "code")
    services.game_end(actor=organizer, game=photo_level, now=minutes(20))
    public = selectors.read_state(photo_level, kind="public")["state"]["statistics"]
    assert outcomes(public) == ("photo", "code")
    assert public["rows"][0]["cells"][0]["how"] in ("photo", "code")


def test_a_rejected_photo_leaves_the_level_open_and_another_may_follow(
        photo_level, organizer, alpha):
    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(5))
    with pytest.raises(services.DomainError, match="waits for the organizer"):
        services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(6))
    services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=False,
                          answer="blurred", now=minutes(7))
    state = me(photo_level, alpha, 8)
    assert state["level"]["label"] == "1"
    assert state["level"]["photos"][0] == {**state["level"]["photos"][0], "status": "rejected",
                                           "answer": "blurred"}
    services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(9))
    assert PhotoProof.objects.count() == 2


@pytest.mark.parametrize("data,says", [
    (b"GIF8 not really", "not a PNG, JPEG, GIF or WebP"),
    (PNG[:40], "not a PNG, JPEG, GIF or WebP"),  # starts like one, is not one
    (b"", "not a PNG, JPEG, GIF or WebP"),
    (PNG + b"\0" * services.IMAGE_MAX_BYTES, "larger than 5 MB"),
])
def test_a_photo_that_is_not_an_image_or_too_big_is_refused(photo_level, organizer, alpha,
                                                           data, says):
    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    with pytest.raises(services.DomainError, match=says):
        services.photo_submit(game=photo_level, application=alpha, data=data, now=minutes(5))
    assert not PhotoProof.objects.exists()


def test_a_photo_of_a_code_level_is_refused(running, alpha):
    with pytest.raises(services.DomainError, match="closed by its code"):
        services.photo_submit(game=running, application=alpha, data=PNG, now=minutes(5))


def test_a_photo_of_a_level_the_team_has_left_cannot_be_accepted(photo_level, organizer, alpha):
    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(5))
    submit(photo_level, alpha, "G1R1D", 6)
    with pytest.raises(services.DomainError, match="no longer on level 1"):
        services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=True,
                              now=minutes(7))
    proof.refresh_from_db()
    assert proof.status == "pending"


# --- the live public leaderboard --------------------------------------------------------------


def public(game, m):
    services.game_tick(game=game.pk, now=minutes(m))
    return selectors.read_state(game, kind="public")["state"]


def test_the_public_leaderboard_shows_levels_and_time_so_far_only_once_switched_on(
        running, organizer, outsider, alpha):
    submit(running, alpha, "G1R1D", 12)
    assert public(running, 13)["leaderboard"] is None
    with pytest.raises(services.NotAllowed):
        services.leaderboard_set(actor=outsider, game=running, public=True, now=minutes(13))
    services.leaderboard_set(actor=organizer, game=running, public=True, now=minutes(14))
    board = public(running, 15)["leaderboard"]
    assert board[0] == {"place": 1, "team": "Alpha", "levels_closed": 1, "time_s": 720.0,
                        "status": "playing"}
    assert {row["team"] for row in board} == {"Alpha", "Beta", "Gamma"}
    assert "G1R1D" not in str(board)
    # The time so far moves only at an event: the state does not change by itself.
    assert public(running, 30)["leaderboard"] == board
    services.leaderboard_set(actor=organizer, game=running, public=False, now=minutes(31))
    assert public(running, 32)["leaderboard"] is None


def test_every_correction_timeout_answer_photo_answer_and_leaderboard_switch_is_audited(
        photo_level, organizer, alpha):
    from core.models import AuditEntry

    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    ruling = services.ruling_add(actor=organizer, game=photo_level, application=alpha,
                                 type="bonus", minutes=5, now=minutes(2))
    services.ruling_edit(actor=organizer, game=photo_level, ruling=ruling, minutes=8,
                         reason="miscounted", now=minutes(3))
    services.ruling_undo(actor=organizer, game=photo_level, ruling=ruling, reason="wrong team",
                         now=minutes(4))
    decide(photo_level, organizer, ask(photo_level, alpha, 5), 6, confirm=False, answer="no")
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(7))
    services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=True,
                          now=minutes(8))
    services.leaderboard_set(actor=organizer, game=photo_level, public=True, now=minutes(9))
    entries = {e.action: e for e in AuditEntry.objects.filter(game_id=photo_level.pk)}
    assert set(entries) == {"gorod.ruling", "gorod.ruling_edit", "gorod.ruling_undo",
                            "gorod.timeout", "gorod.photo", "gorod.leaderboard"}
    edit = entries["gorod.ruling_edit"]
    assert edit.before["minutes"] == 5 and edit.after["minutes"] == 8
    assert edit.reason == "miscounted" and edit.actor == organizer
    undo = entries["gorod.ruling_undo"]
    assert undo.before == {"ruling": ruling.pk, "type": "bonus", "minutes": 8.0, "level": None,
                           "at": None, "reason": ""} and undo.after is None
    assert entries["gorod.timeout"].after["status"] == "refused"
    assert entries["gorod.timeout"].reason == "no"
    assert entries["gorod.photo"].after["status"] == "accepted"
    assert entries["gorod.leaderboard"].before == {"public": False}
    assert entries["gorod.leaderboard"].after == {"public": True}


def test_a_photo_closed_level_reads_photo_in_the_statistics_exports_too(
        photo_level, organizer, alpha, beta):
    from gorod import exports

    services.game_start(actor=organizer, game=photo_level, now=minutes(0))
    proof = services.photo_submit(game=photo_level, application=alpha, data=PNG, now=minutes(10))
    services.photo_decide(actor=organizer, game=photo_level, photo=proof, accept=True,
                          now=minutes(12))
    submit(photo_level, beta, "G1R1D", 14)
    services.game_end(actor=organizer, game=photo_level, now=minutes(20))
    photo_level.refresh_from_db()  # the statistics page reads the game as stored
    table = exports.statistics(photo_level)
    how = exports.header(table).index("Level 1: how")
    rows = {row[1]: row for row in exports.rows(table)}
    assert (rows["Alpha"][how], rows["Beta"][how]) == ("photo", "code")
    assert "photo" in exports.to_csv(table).decode("utf-8-sig")
