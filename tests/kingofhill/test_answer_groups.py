"""An answer's build adds the new answers to the host's stored groups
(``kingofhill.builds.grown_open``) instead of regrouping the question's every answer: for any
answers, verdicts, merges and batches, the grown view equals the one built from all the
answers (``host_open``, ``public_question``), field for field and in the same order."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from kingofhill import builds, rules, states
from kingofhill.models import KothGame, Question
from tests.properties import examples

T0 = datetime(2037, 12, 5, 19, 0, tzinfo=UTC)
# Forms that group together ("Пушкин", "пушкин!"), apart, and merged by the host below.
TEXTS = ("Пушкин", "пушкин!", "ПУШКИН", "Лермонтов", "Тютчев", "Tyutchev", "Фет", "Блок")
GROWN = ("groups", "suggestions", "answered", "unanswered", "unjudged", "can")


class Listed(list):
    """A list that answers ``.all()``, as a prefetched related manager does."""

    def all(self):
        return self


def question_with(answers, merged: dict[str, str]):
    return SimpleNamespace(
        number=3, phase=Question.Phase.ANSWERING, text="Кто написал «Пророка»?",
        answer_key="Пушкин", variants=["Pushkin"], partner=False, note="", image_id=None,
        koth_id=1, announced_at=T0, closed_at=None, countdown_paused_left=None,
        countdown_ends_at=None, countdown_seconds=None, show_projector="text",
        show_phones="text", merged=merged, kept_apart=[], answers=Listed(answers),
        declarations=Listed())


def snapshot(question, teams: int):
    entries = [SimpleNamespace(pk=100 + i) for i in range(teams)]
    return SimpleNamespace(
        koth=SimpleNamespace(status=KothGame.Status.RUNNING), entries=entries,
        names={e.pk: f"Команда {e.pk}" for e in entries}, board=None, current=question,
        questions=[question])


def answer(pk: int, team: int, text: str, verdict):
    normalized = rules.normalize_answer(text) or text.casefold()
    return SimpleNamespace(pk=pk, application_id=100 + team, text=text, normalized=normalized,
                           at=T0 + timedelta(seconds=pk), verdict=verdict,
                           client_id=uuid.uuid4())


def whole(answers, merged, teams):
    """The public open question and the host's view built from every answer."""
    snap = snapshot(question_with(list(answers), merged), teams)
    return states.public_question(snap), states.host_open(snap)


answers_strategy = st.lists(
    st.tuples(st.integers(0, 11), st.sampled_from(TEXTS), st.sampled_from([None, True, False])),
    max_size=24)


@settings(max_examples=examples(300), deadline=None)
@given(given_answers=answers_strategy, cuts=st.lists(st.integers(0, 24), max_size=4),
       merge=st.booleans())
def test_answers_added_to_the_stored_groups_equal_the_groups_of_every_answer(
        given_answers, cuts, merge):
    teams = 12
    merged = rules.merge_groups({}, ["пушкин", "лермонтов"]) if merge else {}
    seen, answers = set(), []
    for team, text, verdict in given_answers:
        if team not in seen:  # one answer a team
            seen.add(team)
            answers.append(answer(len(answers) + 1, team, text, verdict))
    # The answers stored before the first cut are in the stored view; each later batch grows it.
    bounds = sorted({0, *(c for c in cuts if c <= len(answers)), len(answers)})
    public, host = whole(answers[:bounds[0]], merged, teams)
    for start, end in zip(bounds, bounds[1:], strict=False):
        batch = tuple(answers[start:end])
        snap = snapshot(question_with(list(answers[:end]), merged), teams)
        grown = builds.grown_open(snap, public, host, batch)
        assert grown is not None
        public, host = grown
    expected_public, expected_host = whole(answers, merged, teams)
    assert public == expected_public
    assert {k: host[k] for k in GROWN} == {k: expected_host[k] for k in GROWN}
    # In the same order, as the stored text is compared: the groups' and their fields'.
    assert [list(g) for g in host["groups"]] == [list(g) for g in expected_host["groups"]]


def test_a_later_group_that_catches_up_goes_back_behind_the_one_that_came_first():
    """Ties keep the order of arrival: «Лермонтов» (first) and «Пушкин» both at two answers."""
    answers = [answer(1, 0, "Лермонтов", None), answer(2, 1, "Пушкин", True),
               answer(3, 2, "Пушкин", True)]
    public, host = whole(answers, {}, 4)
    assert [g["key"] for g in host["groups"]] == ["пушкин", "лермонтов"]
    fourth = answer(4, 3, "лермонтов", None)
    snap = snapshot(question_with([*answers, fourth], {}), 4)
    _public, grown = builds.grown_open(snap, public, host, (fourth,))
    assert [(g["key"], g["index"], g["count"]) for g in grown["groups"]] == [
        ("лермонтов", 1, 2), ("пушкин", 2, 2)]


def test_stored_views_of_another_question_are_not_grown():
    answers = [answer(1, 0, "Пушкин", True)]
    public, host = whole(answers, {}, 2)
    later = question_with(answers, {})
    later.number = 4
    assert builds.grown_open(snapshot(later, 2), public, host, ()) is None


def test_a_merged_group_matches_the_key_once_a_later_form_of_it_does():
    merged = rules.merge_groups({}, ["лермонтов", "пушкин"])
    answers = [answer(1, 0, "Лермонтов", None)]
    public, host = whole(answers, merged, 3)
    assert host["groups"][0]["matches_key"] is False
    second = answer(2, 1, "Пушкин", True)
    snap = snapshot(question_with([*answers, second], merged), 3)
    _public, grown = builds.grown_open(snap, public, host, (second,))
    assert grown["groups"] == whole([*answers, second], merged, 3)[1]["groups"]
    assert grown["groups"][0]["matches_key"] is True
    assert grown["groups"][0]["verdict"] == "mixed"
