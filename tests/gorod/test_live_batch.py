"""GoRoD codes applied in batches (``live.batch`` through ``LiveGame.write(batch=True)``): codes
that arrive while the game's previous write runs are applied together, one transaction and one
publish, and leave exactly what applying them one by one would: each caller its own verdict or
refusal (in its own language), every screen one push to its next version, the stored states
equal to a rebuild from scratch."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from django.db import OperationalError
from django.utils import timezone

from gorod import changes, reads, realtime, services, settle
from gorod.live import LIVE
from gorod.models import CodeAttempt
from kingofhill.changes import PresenceChanged
from live.write import Write
from tests.gorod.fixtures_live import *  # noqa: F401,F403
from tests.live_checks import HeldBatch, rebuilt, screens_moved_once_per_batch
from tests.live_checks import stored as versions

pytestmark = pytest.mark.django_db(transaction=True)


def held_codes(monkeypatch, game_id: int) -> HeldBatch:
    """Codes queue behind the game's first one, held where it reads its team's rows."""
    return HeldBatch(monkeypatch, LIVE, game_id, reads, "team_rows")


def code(game_id: int, application, text: str):
    return lambda: services.code_submit(game=game_id, application=application, text=text)


def assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(game_id, before, pushed,
                                                                 batches: int):
    after = screens_moved_once_per_batch(LIVE, game_id, before, pushed)
    assert after[realtime.ORGANIZER][0] == before[realtime.ORGANIZER][0] + batches
    organizer = json.loads(after[realtime.ORGANIZER][1])
    fresh = rebuilt(LIVE, game_id, datetime.fromisoformat(organizer["as_of"]))
    assert fresh == {a: t for a, (_v, t) in after.items() if a in fresh}


def test_codes_that_queue_behind_a_write_are_applied_together_as_one_by_one(
        live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)

    held.send("alpha wrong", code(live.pk, alpha, "NOPE1"))
    held.send("beta closes", code(live.pk, beta, "G1R1D"))
    held.send("gamma wrong", code(live.pk, gamma, "NOPE2"))
    held.send("alpha closes", code(live.pk, alpha, "G1R1D"))
    held.send("alpha wrong on level 2", code(live.pk, alpha, "NOPE3"))
    held.release()

    got = {name: (o.attempt.verdict, o.attempt.closes_level, o.attempt.level.label)
           for name, o in held.outcomes.items()}
    assert got == {"alpha wrong": ("wrong", False, "1"), "beta closes": ("accepted", True, "1"),
                   "gamma wrong": ("wrong", False, "1"),
                   "alpha closes": ("accepted", True, "1"),
                   "alpha wrong on level 2": ("wrong", False, "2")}
    # Two writes for five codes: the held one alone, then the four that queued behind it.
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 2)
    organizer = json.loads(versions(live.pk)[realtime.ORGANIZER][1])
    assert [a["text"] for a in organizer["attempts"][:5]] == [
        "NOPE3", "G1R1D", "NOPE2", "G1R1D", "NOPE1"]
    assert {t["name"]: t["current_level"] for t in organizer["teams"]} == {
        "Alpha": "2", "Beta": "2", "Gamma": "1"}


def test_codes_that_close_no_level_are_applied_together_from_their_teams_rows_alone(
        live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)

    held.send("alpha", code(live.pk, alpha, "NOPE1"))
    for name, entry, text in (("beta", beta, "NOPE2"), ("gamma", gamma, "NOPE3"),
                              ("beta again", beta, "NOPE4")):
        held.send(name, code(live.pk, entry, text))
    held.release()

    assert {n: o.attempt.verdict for n, o in held.outcomes.items()} == dict.fromkeys(
        ["alpha", "beta", "gamma", "beta again"], "wrong")
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 2)
    beta_me = json.loads(versions(live.pk)[f"team:{beta.pk}"][1])["me"]
    assert [a["text"] for a in beta_me["attempts"][:2]] == ["NOPE4", "NOPE2"]


def test_a_refused_code_in_a_batch_is_refused_alone_in_its_callers_language(
        live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)

    held.send("alpha", code(live.pk, alpha, "NOPE1"), language="ru")
    held.send("beta empty", code(live.pk, beta, "   "), language="en")
    held.send("gamma closes", code(live.pk, gamma, "G1R1D"), language="ru")
    held.send("alpha empty", code(live.pk, alpha, " "), language="ru")
    held.release()

    assert str(held.outcomes["beta empty"]) == "Type a code."
    assert str(held.outcomes["alpha empty"]) == "Введите код."
    assert held.outcomes["gamma closes"].attempt.closes_level
    assert CodeAttempt.objects.filter(gorod=live).count() == 2
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 2)


def test_a_batch_whose_build_fails_runs_each_code_alone(live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)
    merged = LIVE.merge
    failed = []

    def failing_once(writes):
        if not failed:
            failed.append(len(writes))
            raise RuntimeError("a build that fails")
        return merged(writes)

    monkeypatch.setattr(type(LIVE), "merge", property(lambda _self: failing_once),
                        raising=False)
    held.send("alpha", code(live.pk, alpha, "G1R1D"))
    held.send("beta", code(live.pk, beta, "G1R1D"))
    held.send("gamma", code(live.pk, gamma, "NOPE"))
    held.release()

    assert failed == [2]  # the batch of beta and gamma; then each ran alone
    assert {n: o.attempt.verdict for n, o in held.outcomes.items()} == {
        "alpha": "accepted", "beta": "accepted", "gamma": "wrong"}
    assert CodeAttempt.objects.filter(gorod=live).count() == 3
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 3)


def test_nine_codes_of_three_teams_mixing_closes_and_wrong_codes_make_one_write(
        live, entries, monkeypatch, pushed):
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)

    held.send("first", code(live.pk, entries[0], "NOPE"))
    for i in range(8):
        held.send(f"code {i}", code(live.pk, entries[i % 3], f"NOPE{i}" if i % 2 else "G1R1D"))
    held.release()

    verdicts = [held.outcomes[f"code {i}"].attempt.verdict for i in range(8)]
    # Alpha's second G1R1D (code 6) comes after its first closed level 1.
    assert verdicts == ["accepted", "wrong", "accepted", "wrong", "accepted", "wrong",
                        "closed_level", "wrong"]
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 2)


def test_a_batch_the_database_fails_fails_each_of_its_codes_at_once_and_stores_none(
        live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    held = held_codes(monkeypatch, live.pk)
    publish, failed = LIVE.publish, []

    def publish_failing_for_a_batch(self, w):
        if isinstance(w.change, changes.CodesApplied):
            failed.append(len(w.change.codes))
            raise OperationalError("the connection to the server was lost")
        return publish(w)

    monkeypatch.setattr(type(LIVE), "publish", publish_failing_for_a_batch)
    held.send("alpha", code(live.pk, alpha, "G1R1D"))
    held.send("beta", code(live.pk, beta, "G1R1D"))
    held.send("gamma", code(live.pk, gamma, "NOPE"))
    held.release()

    assert failed == [2]  # not retried one by one
    assert held.outcomes["alpha"].attempt.verdict == "accepted"
    assert all(isinstance(held.outcomes[n], OperationalError) for n in ("beta", "gamma"))
    assert list(CodeAttempt.objects.filter(gorod=live).values_list("text", flat=True)) == [
        "G1R1D"]


def test_a_batch_in_which_a_team_finishes_is_built_whole_and_equals_a_rebuild(
        live, entries, monkeypatch, pushed):
    # A team that finishes moves the finished share: the incremental build declines and the
    # batch's states are built whole (``build_states``' last path).
    alpha, beta, _gamma = entries
    before = versions(live.pk)
    held = held_codes(monkeypatch, live.pk)

    held.send("beta", code(live.pk, beta, "NOPE"))
    for text in ("G1R1D", "G1R2D", "G1R31D", "G1R32D"):
        held.send(text, code(live.pk, alpha, text))
    held.release()

    assert held.outcomes["G1R32D"].attempt.closes_level
    assert_each_screen_moved_once_per_batch_and_equals_a_rebuild(live.pk, before, pushed, 2)
    me = json.loads(versions(live.pk)[f"team:{alpha.pk}"][1])["me"]
    assert (me["status"], me["levels_closed"]) == ("finished", 3)


def test_a_batch_of_codes_is_one_typed_change_and_nothing_else_merges(
        live, entries, monkeypatch, pushed):
    alpha, beta, gamma = entries
    held = held_codes(monkeypatch, live.pk)
    publish, published = LIVE.publish, []

    def publish_noting_the_change(self, w):
        published.append(w.change)
        return publish(w)

    monkeypatch.setattr(type(LIVE), "publish", publish_noting_the_change)
    held.send("alpha", code(live.pk, alpha, "NOPE1"))
    held.send("beta closes", code(live.pk, beta, "G1R1D"))
    held.send("gamma wrong", code(live.pk, gamma, "NOPE2"))
    held.release()

    # The held code alone, then the two that queued behind it as one change, in their order.
    lone, batch = published
    assert isinstance(lone, changes.CodeChecked) and lone.team == alpha.pk
    assert isinstance(batch, changes.CodesApplied)
    assert [(type(x), x.team, x.attempt.text) for x in batch.codes] == [
        (changes.LevelClosed, beta.pk, "G1R1D"), (changes.CodeChecked, gamma.pk, "NOPE2")]
    # Only codes batch: a write of another kind among them is refused, and the live core
    # then applies each write alone.
    with pytest.raises(ValueError, match="only codes"):
        settle.merged([Write(game=live, now=timezone.now(), change=batch.codes[0]),
                          Write(game=live, now=timezone.now(), change=changes.Tick())])


@pytest.mark.parametrize("change", [{"team": 1, "team_snapshot": None}, PresenceChanged()],
                         ids=["an untyped memo", "another game's change"])
def test_the_build_refuses_a_change_it_does_not_know_loudly_and_stores_nothing(
        live, organizer, change, pushed):
    # A leaderboard switch builds every screen: an unknown change must not pass as one.
    services.leaderboard_set(actor=organizer, game=live.pk, public=True)
    before = versions(live.pk)

    @LIVE.write
    def set_unknown(w):
        w.game.leaderboard_public = False
        w.game.save(update_fields=["leaderboard_public"])
        w.change = change

    with pytest.raises(TypeError, match=f"GoRoD builds no {type(change).__name__}"):
        set_unknown(game=live.pk)
    assert versions(live.pk) == before
    live.refresh_from_db()
    assert live.leaderboard_public  # the write's transaction rolled back
