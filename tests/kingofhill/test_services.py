"""Services of the live game: every host and team action, refusals that change nothing, the
number of broadcasts per call, and the record round trip (replay == the live board)."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import NeedsConfirmation
from kingofhill import realtime, rules, selectors, services, states
from kingofhill.models import Answer, KothGame, PartnerChange, Question, VerdictChange
from kingofhill.services import DomainError, NotAllowed
from live.store import stream_versions
from teams.models import Application
from tests.kingofhill.conftest import make_teams

pytestmark = pytest.mark.django_db


def announce(koth, host, **kw):
    return services.question_announce(actor=host, game=koth, **kw)


def answer(koth, entry, text, client_id=None):
    return services.answer_submit(game=koth, application=entry, text=text,
                                  client_id=client_id or uuid.uuid4())


def judge_all(koth, host, number, verdicts: dict[str, bool]):
    for normalized, verdict in verdicts.items():
        services.answers_judge(actor=host, game=koth, question=number,
                               normalized=normalized, verdict=verdict)


def play(koth, host, answers: dict, declarations: dict | None = None, *, partner=False):
    """One whole move: declarations, announce, answers (``entry -> correct``), judge, close."""
    for entry, kind in (declarations or {}).items():
        services.declaration_submit(game=koth, application=entry, kind=kind)
    number = announce(koth, host).number
    if partner:
        services.partner_set(actor=host, game=koth, question=number, partner=True)
    for entry, correct in answers.items():
        answer(koth, entry, "right" if correct else f"wrong {entry.pk}")
    verdicts = {"right": True}
    verdicts.update({f"wrong {e.pk}": False for e, ok in answers.items() if not ok})
    for normalized, verdict in verdicts.items():
        if Answer.objects.filter(question__koth=koth, question__number=number,
                                 normalized=normalized).exists():
            services.answers_judge(actor=host, game=koth, question=number,
                                   normalized=normalized, verdict=verdict)
    services.question_close(actor=host, game=koth)
    koth.refresh_from_db()
    return number


def board(koth) -> dict:
    koth.refresh_from_db()
    return koth.board


def team(koth, name) -> dict:
    return next(t for t in board(koth)["teams"] if t["team"] == name)


def snapshot_of(koth):
    koth.refresh_from_db()
    return (stream_versions(koth.pk), json.dumps(koth.board, sort_keys=True),
            Answer.objects.count(), Question.objects.count(),
            list(Answer.objects.values_list("verdict", flat=True).order_by("pk")))


# --- setup and start ----------------------------------------------------------------------------


def test_a_new_game_shows_every_team_at_the_start_in_setup(koth):
    assert koth.status == KothGame.Status.SETUP
    assert stream_versions(koth.pk)["public"] == 1
    assert [t["team"] for t in koth.board["teams"]] == ["Alpha", "Beta", "Gamma"]


def test_starting_freezes_the_teams_and_opens_question_one(running, entries):
    assert running.status == KothGame.Status.RUNNING
    assert running.team_order == [e.pk for e in entries]
    assert Question.objects.get(koth=running).phase == Question.Phase.DECLARING


def test_a_game_cannot_start_twice(running, host):
    with pytest.raises(DomainError, match="already started"):
        services.game_start(actor=host, game=running)


def test_a_game_with_one_team_cannot_start(scheduled, organizer, host):
    make_teams(scheduled, ["Solo"], organizer)
    koth = services.koth_create(actor=organizer, game=scheduled)
    with pytest.raises(DomainError, match="two approved teams"):
        services.game_start(actor=organizer, game=koth)


def test_a_board_cannot_be_attached_twice_or_with_a_silly_summit(koth, organizer, scheduled):
    with pytest.raises(DomainError, match="already has"):
        services.koth_create(actor=organizer, game=scheduled)
    scheduled.koth.delete()
    with pytest.raises(DomainError, match="Summit"):
        services.koth_create(actor=organizer, game=scheduled, summit=1)


def test_only_a_host_may_start_and_nothing_changes_otherwise(koth, outsider):
    before = snapshot_of(koth)
    with pytest.raises(NotAllowed):
        services.game_start(actor=outsider, game=koth)
    assert snapshot_of(koth) == before


# --- declarations -------------------------------------------------------------------------------


def test_no_jump_on_the_first_question_with_the_engines_reason(running, alpha):
    with pytest.raises(DomainError, match="first question"):
        services.declaration_submit(game=running, application=alpha, kind="jump")


def test_a_declaration_may_be_replaced_before_the_announcement(running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: True})
    services.declaration_submit(game=running, application=alpha, kind="jump")
    with pytest.raises(DomainError, match="revolution needs a King|Not allowed"):
        services.declaration_submit(game=running, application=alpha, kind="revolution")
    services.declaration_withdraw(game=running, application=alpha)
    services.declaration_submit(game=running, application=alpha, kind="jump")
    services.declaration_submit(game=running, application=alpha, kind="jump")
    assert Question.objects.get(koth=running, number=2).declarations.count() == 1


def test_a_declaration_after_the_announcement_is_refused_and_changes_nothing(
        running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: True})
    announce(running, host)
    before = snapshot_of(running)
    with pytest.raises(DomainError, match="Too late"):
        services.declaration_submit(game=running, application=alpha, kind="jump")
    assert snapshot_of(running) == before


def test_a_team_of_another_game_is_an_unknown_team(running, organizer):
    from teams.models import Game

    other = Game.objects.create(title="другая", format="kingofhill",
                                starts_at=timezone.now() + timedelta(days=3))
    stranger = make_teams(other, ["Stranger"], organizer)[0]
    with pytest.raises(DomainError, match="does not play"):
        services.declaration_submit(game=running, application=stranger, kind="jump")
    with pytest.raises(DomainError, match="does not play"):
        answer(running, stranger, "x")


def test_an_unknown_declaration_kind_is_refused(running, alpha):
    with pytest.raises(DomainError, match="jump or a revolution"):
        services.declaration_submit(game=running, application=alpha, kind="hop")


# --- answers ------------------------------------------------------------------------------------


def test_an_answer_before_the_announcement_is_refused(running, alpha):
    with pytest.raises(DomainError, match="not been announced"):
        answer(running, alpha, "Пушкин")


def test_the_first_answer_is_final_and_stamped_by_the_server(running, host, alpha):
    announce(running, host)
    first = answer(running, alpha, "  Пушкин ")
    assert first.text == "Пушкин" and first.at is not None
    with pytest.raises(DomainError, match="already answered"):
        answer(running, alpha, "Лермонтов")
    assert Answer.objects.filter(application=alpha).count() == 1


def test_a_retry_with_the_same_client_id_returns_the_same_answer_without_a_broadcast(
        running, host, alpha, django_capture_on_commit_callbacks):
    announce(running, host)
    cid = uuid.uuid4()
    first = answer(running, alpha, "Пушкин", cid)
    versions = stream_versions(running.pk)
    with django_capture_on_commit_callbacks() as callbacks:
        again = answer(running, alpha, "Пушкин", cid)
    assert again.pk == first.pk
    assert callbacks == []
    assert stream_versions(running.pk) == versions


def test_an_answer_after_the_close_is_refused_and_changes_nothing(running, host, alpha, beta):
    announce(running, host)
    answer(running, beta, "x")
    judge_all(running, host, 1, {"x": False})
    services.question_close(actor=host, game=running)
    before = snapshot_of(running)
    with pytest.raises(DomainError, match="not been announced"):
        answer(running, alpha, "late")
    assert snapshot_of(running) == before


def test_an_empty_or_bad_answer_is_refused(running, host, alpha):
    announce(running, host)
    with pytest.raises(DomainError, match="empty"):
        answer(running, alpha, "   ")
    with pytest.raises(DomainError, match="UUID"):
        services.answer_submit(game=running, application=alpha, text="x", client_id="nope")
    with pytest.raises(DomainError, match="too long"):
        answer(running, alpha, "я" * 301)


def test_an_answer_matching_the_key_or_a_variant_is_premarked_correct(running, host, alpha, beta,
                                                                        gamma):
    announce(running, host, answer_key="Ёжик в тумане", variants=["ежик"])
    assert answer(running, alpha, "ёжик в тумане!").verdict is True
    assert answer(running, beta, "Ежик").verdict is True
    assert answer(running, gamma, "Чебурашка").verdict is None
    assert VerdictChange.objects.filter(new=True, changed_by=None).count() == 2


def test_normalisation_makes_spelling_variants_one_group():
    assert rules.normalize_answer("  Ёжик,  в ТУМАНЕ! ") == "ежик в тумане"


# --- judging ------------------------------------------------------------------------------------


def test_one_judgement_settles_a_whole_group_of_identical_answers(running, host, alpha, beta,
                                                                    gamma):
    announce(running, host)
    answer(running, alpha, "Пушкин")
    answer(running, beta, "пушкин.")
    answer(running, gamma, "Лермонтов")
    changed = services.answers_judge(actor=host, game=running, question=1,
                                     normalized="пушкин", verdict=True)
    assert changed == 2
    assert set(Answer.objects.filter(normalized="пушкин").values_list("verdict", flat=True)) \
        == {True}
    assert Answer.objects.get(normalized="лермонтов").verdict is None


def test_judging_by_a_non_host_is_refused_and_changes_nothing(running, host, alpha, outsider):
    announce(running, host)
    answer(running, alpha, "Пушкин")
    before = snapshot_of(running)
    with pytest.raises(NotAllowed, match="host"):
        services.answers_judge(actor=outsider, game=running, question=1, normalized="пушкин",
                               verdict=True)
    assert snapshot_of(running) == before


def test_judging_an_unknown_group_or_with_a_non_boolean_is_refused(running, host, alpha):
    announce(running, host)
    answer(running, alpha, "Пушкин")
    with pytest.raises(DomainError, match="No answer"):
        services.answers_judge(actor=host, game=running, question=1, normalized="гоголь",
                               verdict=True)
    with pytest.raises(DomainError, match="verdict"):
        services.answers_judge(actor=host, game=running, question=1, normalized="пушкин",
                               verdict="yes")
    with pytest.raises(DomainError, match="no question 7"):
        services.answers_judge(actor=host, game=running, question=7, normalized="пушкин",
                               verdict=True)


def test_a_question_with_unjudged_answers_cannot_be_closed(running, host, alpha):
    announce(running, host)
    answer(running, alpha, "Пушкин")
    with pytest.raises(DomainError, match="not judged"):
        services.question_close(actor=host, game=running)


def test_a_question_must_be_announced_before_it_is_closed(running, host):
    with pytest.raises(DomainError, match="Announce"):
        services.question_close(actor=host, game=running)


def test_closing_moves_the_teams_and_silence_counts_as_incorrect(running, host, alpha, beta):
    announce(running, host)
    answer(running, alpha, "Пушкин")
    judge_all(running, host, 1, {"пушкин": True})
    services.question_close(actor=host, game=running)
    assert (team(running, "Alpha")["step"], team(running, "Alpha")["points"]) == (1, 1)
    assert team(running, "Beta")["step"] == 0
    assert Question.objects.get(koth=running, number=2).phase == Question.Phase.DECLARING


# --- the King and the revolution ------------------------------------------------------------------


def crown_alpha(koth, host, alpha, beta, gamma):
    """Q1 Alpha and Beta correct; Q2 Alpha jumps onto the summit (3), Beta goes to S-1 (2)."""
    play(koth, host, {alpha: True, beta: True, gamma: False})
    play(koth, host, {alpha: True, beta: True, gamma: True}, {alpha: "jump"})


def test_a_jump_onto_the_summit_makes_a_king(running, host, alpha, beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    assert board(running)["king"] == "Alpha"
    assert team(running, "Beta")["step"] == 2


def test_a_correct_revolution_deposes_a_king_who_answers_incorrectly(running, host, alpha, beta,
                                                                      gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    snap = selectors.load_snapshot(running)
    assert states.team_state(snap, beta.pk)["me"]["allowed"]["revolution"] is True
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    assert board(running)["king"] == "Beta"
    assert team(running, "Alpha")["step"] == 2


def test_changing_an_earlier_verdict_recomputes_the_board_and_keeps_history(
        running, host, alpha, beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    beta_q3 = Answer.objects.get(question__number=3, application=beta)
    services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=False)
    assert board(running)["king"] == "Alpha"
    change = VerdictChange.objects.filter(answer=beta_q3).last()
    assert (change.old, change.new, change.changed_by) == (True, False, host)
    assert rules.replay(services.game_record(running)) == board(running)


def test_a_partner_mark_added_later_gives_every_correct_team_a_point(running, host, alpha, beta,
                                                                     gamma):
    play(running, host, {alpha: True, beta: False, gamma: False})
    services.partner_set(actor=host, game=running, question=1, partner=True)
    assert team(running, "Alpha")["points"] == 2
    assert PartnerChange.objects.get().new is True
    services.partner_set(actor=host, game=running, question=1, partner=False)
    assert team(running, "Alpha")["points"] == 1


def test_a_king_who_holds_the_summit_long_enough_wins_and_the_game_finishes(
        running, host, alpha, beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    while KothGame.objects.get(pk=running.pk).status == KothGame.Status.RUNNING:
        play(running, host, {alpha: True, beta: False, gamma: False})
    running.refresh_from_db()
    assert running.board["winner"] == "Alpha"
    assert running.board["finish_reason"] in ("king_held", "no_challenger")
    # No question stays open once the game is over.
    assert Question.objects.filter(koth=running, closed_at=None).count() == 0


def test_a_verdict_change_that_would_end_the_game_before_a_played_move_waits_for_confirmation(
        running, host, alpha, beta, gamma):
    # tests/kingofhill/test_past_changes.py follows it through once confirmed.
    play(running, host, {alpha: True, beta: False, gamma: False})
    play(running, host, {alpha: True, beta: False, gamma: False}, {alpha: "jump"})
    # Beta's correct answer on q3 keeps it within reach of the summit, so q4 is played.
    play(running, host, {alpha: True, beta: True, gamma: False})
    play(running, host, {alpha: True, beta: False, gamma: False})
    before = snapshot_of(running)
    beta_q3 = Answer.objects.get(question__number=3, application=beta)
    with pytest.raises(NeedsConfirmation, match="Question 4 no longer counts"):
        services.verdict_set(actor=host, game=running, answer=beta_q3.pk, verdict=False)
    assert snapshot_of(running) == before


# --- broadcasts ---------------------------------------------------------------------------------


def test_every_write_broadcasts_exactly_once_after_commit_to_every_group(
        running, host, alpha, django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: FakeLayer(sent))
    with django_capture_on_commit_callbacks(execute=True):
        announce(running, host)
    # The announcement changes every view: public + host + one per team, each stream's next
    # version, which is what a read then answers.
    assert len(sent) == 2 + 3
    versions = stream_versions(running.pk)
    assert {g: m["version"] for g, m in sent} == {
        realtime.public_group(running.pk): versions["public"],
        realtime.host_group(running.pk): versions["host"],
        **{realtime.team_group(running.pk, a.pk): versions[f"team:{a.pk}"]
           for a in Application.objects.filter(pk__in=running.team_order)}}
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer(running, alpha, "Пушкин")
    # An answer changes the public and host views and the answering team's, nobody else's.
    assert [g for g, _ in sent] == [realtime.public_group(running.pk),
                                    realtime.host_group(running.pk),
                                    realtime.team_group(running.pk, alpha.pk)]


def test_each_stream_counts_its_own_versions_without_gaps(
        running, host, alpha, beta, gamma, django_capture_on_commit_callbacks, monkeypatch):
    """Per group, the pushed versions go 1 by 1 and end at what a resync answers."""
    sent = []
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: FakeLayer(sent))
    start = {kind: selectors.read_state(KothGame.objects.get(pk=running.pk), kind=kind,
                                        application_id=app)["version"]
             for kind, app in (("public", None), ("host", None))}
    start.update({a.pk: selectors.read_state(KothGame.objects.get(pk=running.pk), kind="team",
                                             application_id=a.pk)["version"]
                  for a in (alpha, beta, gamma)})
    with django_capture_on_commit_callbacks(execute=True):
        announce(running, host, answer_key="Пушкин")
        answer(running, alpha, "Пушкин")
        answer(running, beta, "Лермонтов")
        services.answers_judge(actor=host, game=running, question=1, normalized="лермонтов",
                               verdict=False)
        services.question_close(actor=host, game=running)
    by_group: dict[str, list[int]] = {}
    for group, message in sent:
        by_group.setdefault(group, []).append(message["version"])
    koth = KothGame.objects.get(pk=running.pk)
    # The host hears all five writes; judging the open question is no news to the public.
    for kind, group, pushes in (("public", realtime.public_group(running.pk), 4),
                                ("host", realtime.host_group(running.pk), 5)):
        assert by_group[group] == list(range(start[kind] + 1, start[kind] + 1 + pushes))
        assert selectors.read_state(koth, kind=kind)["version"] == by_group[group][-1]
    # announce + own answer + close for Alpha and Beta; Gamma hears announce and close only.
    for team, pushes in ((alpha, 3), (beta, 3), (gamma, 2)):
        versions = by_group[realtime.team_group(running.pk, team.pk)]
        assert versions == list(range(start[team.pk] + 1, start[team.pk] + 1 + pushes))
        assert selectors.read_state(koth, kind="team",
                                    application_id=team.pk)["version"] == versions[-1]


def test_an_answer_reuses_the_kept_board_in_a_pinned_number_of_queries(
        running, host, alpha, beta, gamma, django_capture_on_commit_callbacks,
        django_assert_num_queries, monkeypatch):
    """Once a recomputation is committed, an answer reads only the open question: no record
    rebuild (it would read every question's answers), the same queries however long the game
    has run."""
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: None)
    selectors.forget_closed()
    with django_capture_on_commit_callbacks(execute=True):
        announce(running, host, answer_key="Пушкин")  # cold: reads everything, keeps it
    # The service's savepoint pair (its transaction, inside the test's), the lock, the open
    # question, its answers and declarations (read once: the existing answer is among them and
    # the build reuses them), the insert, the verdict change (a key match), the stored states
    # read and
    # the changed keys replaced (the versions bumped, one upsert, however many changed),
    # and the host state's question bank (its next question and how many are left) and presence.
    # The team's entry is the phone's own, read with its team by the request (here: the fixture).
    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(13):
        answer(running, alpha, "Пушкин")
    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(12):
        answer(running, beta, "Лермонтов")
    host_state = selectors.read_state(KothGame.objects.get(pk=running.pk), kind="host")
    assert [g["teams"] for g in host_state["state"]["host"]["groups"]] == [["Alpha"], ["Beta"]]


def test_a_kept_board_is_not_used_for_another_board_version(
        running, host, alpha, beta, django_capture_on_commit_callbacks):
    """The close recomputes and replaces what was kept; a rolled-back write keeps nothing."""
    with django_capture_on_commit_callbacks(execute=True):
        play(running, host, {alpha: True, beta: False})
    koth = KothGame.objects.get(pk=running.pk)
    kept = selectors.load_snapshot(koth, reuse=True)
    assert kept.reused and kept.board == selectors.load_snapshot(koth).board
    assert states.public_board(koth.board) == states.public_state(kept)["board"]
    koth.board_generation += 1  # as if another process had recomputed since
    assert not selectors.load_snapshot(koth, reuse=True).reused


def test_a_refused_action_broadcasts_nothing(running, alpha, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(DomainError):
        answer(running, alpha, "Пушкин")
    assert callbacks == []


class FakeLayer:
    def __init__(self, sent):
        self.sent = sent

    async def group_send(self, group, message):
        self.sent.append((group, message))


# --- the record round trip ----------------------------------------------------------------------


def test_a_whole_game_replays_to_exactly_the_live_board(scheduled, organizer, host, entries):
    alpha, beta, gamma = entries
    koth = services.koth_create(actor=organizer, game=scheduled, summit=3, main_questions=8,
                                reserve_questions=1)
    services.host_assign(actor=organizer, game=koth, user=host)
    services.game_start(actor=host, game=koth)
    crown_alpha(koth, host, alpha, beta, gamma)
    play(koth, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"}, partner=True)
    play(koth, host, {alpha: True, beta: True, gamma: False})
    while KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        play(koth, host, {alpha: False, beta: True, gamma: False})
    koth.refresh_from_db()
    record = json.loads(json.dumps(services.game_record(koth)))
    assert record["teams"] == ["Alpha", "Beta", "Gamma"]
    assert rules.replay(record) == koth.board
    assert koth.board["finished"] is True and koth.board["winner"] == "Beta"
    # The public state the screens show carries that same board.
    state = selectors.read_state(koth, kind="public")
    assert state["version"] == stream_versions(koth.pk)["public"]
    assert state["state"]["board"] == states.public_board(koth.board)
    assert state["state"]["board"] == {k: v for k, v in koth.board.items() if k != "moves"}


def test_a_close_reads_a_fixed_number_of_queries_however_many_teams(
        running, host, alpha, beta, gamma, django_assert_max_num_queries, monkeypatch):
    """The question the close opens is read once, not once per team state (an N+1 that cost
    128 queries with 64 teams)."""
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: None)
    announce(running, host)
    for entry in (alpha, beta, gamma):
        answer(running, entry, "Пушкин")
    judge_all(running, host, 1, {"пушкин": True})
    # ... plus the stored states read and the changed keys replaced (live.store: a delete, the
    # versions bumped, an insert), and the host state's question bank and presence (one query
    # each).
    with django_assert_max_num_queries(21) as captured:
        services.question_close(actor=host, game=running)
    per_team = [q["sql"] for q in captured.captured_queries
                if q["sql"].startswith("SELECT \"kingofhill_declaration\"")
                or q["sql"].startswith("SELECT \"kingofhill_answer\"")]
    assert len(per_team) == 4  # the closed questions' and the new question's, once each


# --- what the phone shows after a close ---------------------------------------------------------


def me(koth, entry) -> dict:
    return states.team_state(selectors.load_snapshot(koth), entry.pk)["me"]


def test_after_a_close_each_team_sees_its_own_verdict_and_move(running, host, alpha, beta):
    play(running, host, {alpha: True, beta: False})
    last = me(running, alpha)["last_move"]
    assert (last["number"], last["answer"], last["correct"], last["kind"]) == (
        1, "right", True, rules.ORDINARY)
    assert (last["before"], last["after"]) == ({"step": 0, "points": 0, "king": False},
                                               {"step": 1, "points": 1, "king": False})
    wrong = me(running, beta)["last_move"]
    assert (wrong["answer"], wrong["correct"], wrong["after"]["step"]) == (
        f"wrong {beta.pk}", False, 0)


def test_a_team_that_sent_nothing_is_told_its_silence_counted_as_incorrect(running, host, alpha,
                                                                           gamma):
    play(running, host, {alpha: True})
    last = me(running, gamma)["last_move"]
    assert (last["answer"], last["correct"]) == (None, False)


def test_a_jump_ignored_after_a_changed_verdict_comes_back_with_the_engines_reason(
        running, host, alpha, beta):
    play(running, host, {alpha: True, beta: True})
    play(running, host, {alpha: True, beta: True}, {alpha: rules.JUMP})
    assert me(running, alpha)["last_move"]["kind"] == rules.JUMP
    first = Answer.objects.get(question__number=1, application=alpha)
    services.verdict_set(actor=host, game=running, answer=first.pk, verdict=False)
    last = me(running, alpha)["last_move"]
    assert (last["declared"], last["kind"], last["ignored_reason"]) == (
        rules.JUMP, rules.ORDINARY, rules.JUMP_AFTER_FAIL)
    assert (last["before"]["step"], last["after"]["step"]) == (0, 1)
    assert rules.JUMP_AFTER_FAIL in selectors.reason_labels()


def test_a_deposed_king_is_told_so_and_the_new_king_that_it_was_crowned(running, host, alpha,
                                                                        beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    assert me(running, alpha)["last_move"]["crowned"] is True
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    fallen = me(running, alpha)["last_move"]
    assert (fallen["deposed"], fallen["before"]["king"], fallen["after"]) == (
        True, True, {"step": 2, "points": 3, "king": False})
    risen = me(running, beta)["last_move"]
    assert (risen["kind"], risen["crowned"], risen["after"]["king"]) == (
        rules.REVOLUTION, True, True)


def test_the_history_lists_every_closed_question_of_the_team_newest_first(running, host, alpha,
                                                                          beta, gamma):
    crown_alpha(running, host, alpha, beta, gamma)
    play(running, host, {alpha: False, beta: True, gamma: True}, {beta: "revolution"})
    history = me(running, alpha)["history"]
    assert [(h["number"], h["correct"], h["kind"], h["step"], h["king"]) for h in history] == [
        (3, False, rules.ORDINARY, 2, False), (2, True, rules.JUMP, 3, True),
        (1, True, rules.ORDINARY, 1, False)]
    assert me(running, gamma)["history"][-1]["answer"] == f"wrong {gamma.pk}"


def test_a_changed_verdict_rewrites_the_teams_last_move(running, host, alpha, beta):
    play(running, host, {alpha: True, beta: False})
    first = Answer.objects.get(question__number=1, application=alpha)
    services.verdict_set(actor=host, game=running, answer=first.pk, verdict=False)
    last = me(running, alpha)["last_move"]
    assert (last["correct"], last["after"]["step"]) == (False, 0)


def test_projection_notes_are_codes_the_page_shows_in_russian(running, host, alpha, beta, gamma):
    from django.utils import translation

    crown_alpha(running, host, alpha, beta, gamma)
    projection = me(running, beta)["projection"]
    assert projection[rules.REVOLUTION]["correct"]["note"] == rules.NOTE_REVOLUTION
    assert me(running, alpha)["projection"][rules.ORDINARY]["incorrect"]["note"] == \
        rules.NOTE_KING_UNLESS_DEPOSED
    with translation.override("ru"):
        labels = selectors.reason_labels()
    for code in rules.NOTE_CODES:
        # Russian words, not the English source left untranslated.
        assert any("а" <= ch <= "я" for ch in labels[code]), labels[code]


def test_the_host_state_counts_the_unjudged_answers_that_keep_close_disabled(running, host, alpha,
                                                                            beta, gamma):
    announce(running, host, answer_key="Пушкин")
    answer(running, alpha, "Пушкин")
    answer(running, beta, "Гоголь")
    state = states.host_state(selectors.load_snapshot(running))["host"]
    assert (state["unjudged"], state["can"]["close"], state["unanswered"]) == (1, False, ["Gamma"])
    judge_all(running, host, 1, {"гоголь": False})
    state = states.host_state(selectors.load_snapshot(running))["host"]
    assert (state["unjudged"], state["can"]["close"]) == (0, True)


# --- hosts per game and the audit log -----------------------------------------------------------


def test_a_host_controls_only_the_games_assigned_to_them_and_organizers_every_game(
        running, host, organizer, alpha):
    from tests.kingofhill.conftest import make_user

    other_host = make_user("other-host", "host")
    assert selectors.can_host(host, running) and selectors.can_host(organizer, running)
    assert not selectors.can_host(other_host, running)
    with pytest.raises(NotAllowed, match="host of this game"):
        services.question_announce(actor=other_host, game=running)
    services.question_announce(actor=organizer, game=running)  # not assigned, still allowed
    answer(running, alpha, "Пушкин")
    services.host_assign(actor=organizer, game=running, user=host, assigned=False)
    with pytest.raises(NotAllowed):
        services.answers_judge(actor=host, game=running, question=1, normalized="пушкин",
                               verdict=True)
    assert selectors.hosted_game_ids(host) == set()
    assert selectors.hosted_game_ids(organizer) is None


def test_only_an_organizer_assigns_hosts_and_only_accounts_with_the_host_role(
        koth, host, organizer, outsider):
    with pytest.raises(NotAllowed):
        services.host_assign(actor=host, game=koth, user=host, assigned=False)
    with pytest.raises(DomainError, match="host role"):
        services.host_assign(actor=organizer, game=koth, user=outsider)
    assert services.host_assign(actor=organizer, game=koth, user=host) is False  # already
    assert [u.username for u in selectors.game_hosts(koth)] == ["host"]


def test_losing_the_host_role_takes_the_assigned_games_away(koth, host, organizer):
    from core.accounts.services import role_set

    role_set(actor=organizer, user=host, role="host", granted=False)
    assert not selectors.can_host(host, koth)


def test_verdicts_partner_marks_and_host_assignments_are_in_the_audit_log(
        running, host, organizer, alpha, beta):
    from core.models import AuditEntry
    from tests.kingofhill.conftest import make_user

    announce(running, host)
    answer(running, alpha, "Пушкин")
    answer(running, beta, "Гоголь")
    judge_all(running, host, 1, {"пушкин": True, "гоголь": False})
    beta_answer = Answer.objects.get(application=beta)
    services.verdict_set(actor=host, game=running, answer=beta_answer.pk, verdict=True)
    services.partner_set(actor=host, game=running, question=1, partner=True)
    second = make_user("second-host", "host")
    services.host_assign(actor=organizer, game=running, user=second)

    entries = list(AuditEntry.objects.filter(game_id=running.pk).order_by("id"))
    assert [(e.action, e.actor.username) for e in entries] == [
        ("kingofhill.host", "organizer"),  # the fixture's assignment
        ("kingofhill.verdict", "host"), ("kingofhill.verdict", "host"),
        ("kingofhill.verdict", "host"), ("kingofhill.partner", "host"),
        ("kingofhill.host", "organizer")]
    changed = entries[3]
    assert changed.before == {"question": 1, "answer": beta_answer.pk, "text": "Гоголь",
                              "verdict": False}
    assert changed.after["verdict"] is True
    assert (entries[4].before, entries[4].after) == ({"question": 1, "partner": False},
                                                     {"question": 1, "partner": True})
    assert (entries[5].before, entries[5].after) == (
        {"host": "second-host", "assigned": False}, {"host": "second-host", "assigned": True})


def test_a_refused_verdict_leaves_no_audit_entry(running, host):
    from core.models import AuditEntry

    before = AuditEntry.objects.count()
    with pytest.raises(DomainError):
        services.verdict_set(actor=host, game=running, answer=10**6, verdict=True)
    assert AuditEntry.objects.count() == before


# --- changing the past safely -------------------------------------------------------------------


def finish(koth, host, alpha, beta, gamma) -> None:
    """Alpha jumps onto the summit on question 2 and holds it until the game ends."""
    play(koth, host, {alpha: True, beta: True, gamma: False})
    play(koth, host, {alpha: True, beta: True, gamma: True}, {alpha: "jump"})
    while KothGame.objects.get(pk=koth.pk).status == KothGame.Status.RUNNING:
        play(koth, host, {alpha: True, beta: False, gamma: False})
    koth.refresh_from_db()


def answer_of(koth, entry, number) -> Answer:
    return Answer.objects.get(question__koth=koth, question__number=number, application=entry)


def test_a_past_verdict_that_re_opens_the_finished_game_is_refused_until_confirmed(
        running, host, alpha, beta, gamma):
    finish(running, host, alpha, beta, gamma)
    assert (running.status, running.board["winner"]) == (KothGame.Status.FINISHED, "Alpha")
    before = snapshot_of(running)
    jump = answer_of(running, alpha, 2)
    with pytest.raises(NeedsConfirmation) as refused:
        services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False)
    change = refused.value.extra["change"]
    assert change["reopens"] and change["winner_before"] == "Alpha"
    assert change["winner_after"] is None and not change["results_published"]
    assert "re-opens" in refused.value.message and "Alpha → nobody yet" in refused.value.message
    assert snapshot_of(running) == before  # nothing changed, nothing pushed

    services.verdict_set(actor=host, game=running, answer=jump.pk, verdict=False, confirm=True)
    running.refresh_from_db()
    assert running.status == KothGame.Status.RUNNING and running.board["winner"] is None
    assert answer_of(running, alpha, 2).verdict is False


def test_a_past_change_that_keeps_winner_and_game_open_needs_no_confirmation(
        running, host, alpha, beta, gamma):
    play(running, host, {alpha: True, beta: True, gamma: False})
    services.verdict_set(actor=host, game=running, answer=answer_of(running, gamma, 1).pk,
                         verdict=True)
    assert team(running, "Gamma")["step"] == 1


def test_after_publication_a_past_change_marks_the_results_out_of_date_until_published_again(
        running, host, organizer, alpha, beta, gamma):
    from rating import services as rating_services
    from rating.models import GameResult

    finish(running, host, alpha, beta, gamma)
    rating_services.results_publish(actor=organizer, game=running.game)
    # A partner mark keeps the winner but changes the points the results show.
    with pytest.raises(NeedsConfirmation) as refused:
        services.partner_set(actor=host, game=running, question=1, partner=True)
    assert refused.value.extra["change"]["results_published"]
    assert "publish them again" in refused.value.message
    assert GameResult.objects.get(game=running.game).outdated_at is None

    services.partner_set(actor=host, game=running, question=1, partner=True, confirm=True)
    result = GameResult.objects.get(game=running.game)
    assert result.outdated_at is not None and "Question 1 changed" in result.outdated_reason
    with pytest.raises(DomainError, match="refresh them from the game first"):
        rating_services.results_finalize(actor=organizer, game=running.game, early=True,
                                         reason="now")
    rating_services.results_publish(actor=organizer, game=running.game)
    result.refresh_from_db()
    assert result.outdated_at is None and result.outdated_reason == ""
    assert result.rows.get(team__name="Alpha").figures["points"] == team(running, "Alpha")["points"]


# --- the question bank --------------------------------------------------------------------------


def test_announce_with_an_empty_form_takes_the_next_prepared_question_with_its_mark_and_note(
        running, host):
    from kingofhill.models import PreparedQuestion

    services.bank_import(actor=host, game=running, name="q.csv", data=(
        b"text,answer,variants,partner,note\n"
        b"First?,one,1 | uno,no,\n"
        b"Second?,two,,yes,read slowly\n"))
    first = announce(running, host)
    assert (first.text, first.answer_key, first.variants, first.partner) == (
        "First?", "one", ["1", "uno"], False)
    state = selectors.read_state(running, kind="host")["state"]["host"]
    assert state["bank"]["left"] == 1 and state["bank"]["next"]["text"] == "Second?"
    assert state["question"]["text"] == "First?"
    services.question_close(actor=host, game=running)

    second = announce(running, host)
    assert (second.text, second.partner, second.note) == ("Second?", True, "read slowly")
    assert PartnerChange.objects.filter(question=second, new=True).exists()
    host_view = selectors.read_state(running, kind="host")["state"]
    assert host_view["host"]["question"]["note"] == "read slowly"
    assert host_view["host"]["bank"] == {"left": 0, "next": None}
    assert "read slowly" not in json.dumps(selectors.read_state(running, kind="public"))
    assert list(PreparedQuestion.objects.values_list("question__number", flat=True)) == [1, 2]


def test_a_typed_question_is_announced_as_typed_and_leaves_the_bank_alone(running, host):
    services.bank_question_add(actor=host, game=running, text="Prepared?", answer_key="p")
    typed = announce(running, host, text="Typed?", answer_key="t")
    assert typed.text == "Typed?"
    assert selectors.read_state(running, kind="host")["state"]["host"]["bank"]["left"] == 1


def test_a_bad_file_imports_nothing_and_an_announced_question_cannot_be_removed(running, host):
    from kingofhill.bank import BankError
    from kingofhill.models import PreparedQuestion

    with pytest.raises(BankError):
        services.bank_import(actor=host, game=running, name="q.csv",
                             data=b"text,answer\nGood?,yes\n,no text\n")
    assert PreparedQuestion.objects.count() == 0
    kept = services.bank_question_add(actor=host, game=running, text="Kept?")
    announce(running, host)
    with pytest.raises(DomainError, match="has been announced"):
        services.bank_question_delete(actor=host, game=running, prepared=kept.pk)
    spare = services.bank_question_add(actor=host, game=running, text="Spare?")
    services.bank_question_delete(actor=host, game=running, prepared=spare.pk)
    assert list(PreparedQuestion.objects.values_list("text", flat=True)) == ["Kept?"]


def test_only_hosts_prepare_questions_and_an_empty_one_is_refused(running, host, outsider):
    with pytest.raises(NotAllowed):
        services.bank_question_add(actor=outsider, game=running, text="Sneaky?")
    with pytest.raises(DomainError, match="the question text is empty"):
        services.bank_question_add(actor=host, game=running, text="   ")


# --- the countdown and the reveal ---------------------------------------------------------------


def test_the_hosts_countdown_is_an_end_time_in_every_screens_state_and_0_stops_it(
        running, host, alpha):
    with pytest.raises(DomainError, match="before starting its countdown"):
        services.countdown_set(actor=host, game=running, seconds=60)
    announce(running, host)
    before = stream_versions(running.pk)
    question = services.countdown_set(actor=host, game=running, seconds=60)
    assert question.countdown_ends_at - question.announced_at >= timedelta(seconds=60)
    public = selectors.read_state(running, kind="public")["state"]["question"]["countdown"]
    phone = selectors.read_state(running, kind="team", application_id=alpha.pk)["state"]
    assert public == {"seconds": 60, "ends_at": question.countdown_ends_at.isoformat()}
    assert phone["question"]["countdown"] == public
    after = stream_versions(running.pk)
    assert all(after[k] == before[k] + 1 for k in before)  # every screen is told
    for bad in (-1, 601, 2.5, True, "60"):
        with pytest.raises(DomainError):
            services.countdown_set(actor=host, game=running, seconds=bad)
    services.countdown_set(actor=host, game=running, seconds=0)
    assert selectors.read_state(running, kind="public")["state"]["question"]["countdown"] is None
    services.question_close(actor=host, game=running)
    assert selectors.read_state(running, kind="public")["state"]["question"]["countdown"] is None


def test_a_revealed_question_shows_its_text_and_answer_until_the_next_is_announced(
        running, host, alpha, beta, gamma):
    with pytest.raises(DomainError, match="No question has been closed"):
        services.question_reveal(actor=host, game=running)
    announce(running, host, text="Кто написал «Онегина»?", answer_key="Пушкин")
    services.question_close(actor=host, game=running)
    assert selectors.read_state(running, kind="public")["state"]["reveal"] is None
    services.question_reveal(actor=host, game=running)
    shown = selectors.read_state(running, kind="public")["state"]["reveal"]
    assert shown == {"number": 1, "text": "Кто написал «Онегина»?", "answer_key": "Пушкин",
                     "variants": []}
    assert selectors.read_state(running, kind="team",
                                application_id=alpha.pk)["state"]["reveal"] == shown
    announce(running, host)
    assert selectors.read_state(running, kind="public")["state"]["reveal"] is None
