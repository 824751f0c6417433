"""Every write's broadcasts (once, after the commit, versions without gaps, a pinned number of
queries) and the record round trip: a replay of the stored game is the live board."""

from __future__ import annotations

import json

import pytest

from kingofhill import realtime, rules, selectors, services, states
from kingofhill.models import KothGame
from kingofhill.services import DomainError
from live.store import stream_versions
from teams.models import Application
from tests.kingofhill.play import announce, answer, crown_alpha, judge_all, play

pytestmark = pytest.mark.django_db


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
    # question, the team's own answer (none yet), the insert, the verdict change (a key
    # match), the stored keys an answer changes read (the new answer joins the host's stored
    # groups: the question's other answers, the host's bank and connected phones are not
    # read, a team's moves not rebuilt) and the changed keys replaced (the versions bumped,
    # one upsert, however many changed).
    # The team's entry is the phone's own, read with its team by the request (here: the fixture).
    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(10):
        answer(running, alpha, "Пушкин")
    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(9):
        answer(running, beta, "Лермонтов")
    host_state = selectors.read_state(KothGame.objects.get(pk=running.pk), kind="host")
    assert [g["teams"] for g in host_state["state"]["host"]["groups"]] == [["Alpha"], ["Beta"]]


def test_a_close_computes_the_patch_of_the_board_every_team_shares_once(
        running, host, alpha, beta, gamma, django_capture_on_commit_callbacks, monkeypatch):
    """Every team's state holds the public board: a close's new board is one value, compared
    with the stored text and diffed once per write, not once per team."""
    import live.delta

    with django_capture_on_commit_callbacks(execute=True):
        play(running, host, {alpha: True, beta: False, gamma: False})
        announce(running, host, answer_key="Пушкин")
        for team in (alpha, beta, gamma):
            answer(running, team, "Пушкин")
    diffed, depth, real = [], [0], live.delta.diff

    def counting(old, new):
        depth[0] += 1
        try:
            if depth[0] == 1 and isinstance(new, dict) and "king" in new:
                diffed.append(id(new))
            return real(old, new)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(live.delta, "diff", counting)
    monkeypatch.setattr("core.realtime.get_channel_layer", lambda: None)
    with django_capture_on_commit_callbacks(execute=True):
        services.question_close(actor=host, game=running)
    # The public and host states and the three teams' hold one board: one diff.
    assert len(diffed) == 1


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
