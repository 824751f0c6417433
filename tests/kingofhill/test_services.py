"""Services of the live game: every host and team action and the refusals that change nothing
(broadcasts, the phones' screens, hosts and the past have their own files)."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from core.errors import NeedsConfirmation
from kingofhill import rules, selectors, services, states
from kingofhill.models import Answer, KothGame, PartnerChange, Question, VerdictChange
from kingofhill.services import DomainError, NotAllowed
from live.store import stream_versions
from tests.kingofhill.conftest import make_teams
from tests.kingofhill.play import (
    announce,
    answer,
    board,
    crown_alpha,
    judge_all,
    play,
    snapshot_of,
    team,
)

pytestmark = pytest.mark.django_db



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
