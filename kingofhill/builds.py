"""King of the Hill's build (``live.write.LiveGame.build``): which audiences and which keys of
their states a write renders, from what ``kingofhill.settle.settle`` computed. Every screen is
rendered by ``kingofhill.states``; a write that changes a few fields of some states (a presence
refresh, the bank, answers, the host's groups) builds only those over the stored rest.

Only rendering, like ``kingofhill.states``: nothing here writes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from kingofhill import changes, realtime, rules
from kingofhill.models import Answer, KothGame, Question
from kingofhill.selectors import (
    Snapshot,
    bank_summary,
    connected_teams,
    game_entries,
    kept_closed,
    read_open,
)
from kingofhill.states import (
    answer_view,
    group_suggestions,
    host_open,
    host_state,
    public_question,
    public_state,
    team_state,
    teams_public,
)
from live.messages import PUBLIC, team_audience
from live.store import Parts
from live.write import Write


@dataclass(frozen=True)
class StoredHost:
    """What settling a presence refresh or a change of the bank hands the build: nothing to
    settle, only the host's stored ``host`` part (read only), which the build patches with the
    connected teams or the bank's next question."""

    host: dict


def presence_states(w: Write, stored: dict) -> dict[str, dict]:
    """The build of a presence refresh: only the host's list of connected teams changes, so
    its stored ``host`` part is patched (one or two queries, no snapshot)."""
    koth = w.game
    kept = kept_closed(koth)
    if kept is not None:
        entries, names = kept.entries, kept.names
    else:
        entries = game_entries(koth)
        names = {a.pk: a.team.name for a in entries}
    connected = connected_teams(koth, entries, names)
    if stored.get("connected") == connected:
        return {}
    host = {**stored, "connected": connected}  # the stored value is read only (``shared``)
    return {realtime.HOST: Parts({"host": host},
                                 patches={"host": {"d": {"connected": {"=": connected}}}})}


def bank_states(w: Write, stored: dict) -> dict[str, dict]:
    """The build of a change of the bank: only the host's view of its next question and how
    many are left changes (one query, no snapshot)."""
    summary = bank_summary(w.game)
    if stored.get("bank") == summary:
        return {}
    host = {**stored, "bank": summary}  # the stored value is read only (``shared``)
    return {realtime.HOST: Parts({"host": host},
                                 patches={"host": {"d": {"bank": {"=": summary}}}})}


def answers_states(w: Write, snap: Snapshot, teams: Collection[int],
                   added: tuple[Answer, ...] | None) -> dict[str, dict] | None:
    """The build of answers (``added``: ``AnswerAdded``, ``AnswersAdded``) or of the host's
    groups (``added`` None: ``GroupsChanged``) on a kept board: these change the open
    question's count (public and host), the host's view of the open question (``host_open``)
    and the answering teams' own answers, nothing else. So the stored rest of each of those
    states stays as it is, not rebuilt: the host's history, bank and connected teams, a team's
    moves and projections (an answer rebuilt them all, and read the host's bank and phones).
    New answers are added to the host's stored groups (``grown_open``) rather than the
    question's every answer read and regrouped. What it keeps it reads with
    ``Write.read_values``, which spares the write its comparison query. None when a state it
    needs is not stored as expected (then the whole is built).

    For example, team 7's answer to question 3 stores the public ``question`` (``answered``
    one more), the host's ``question`` and ``host`` (its group grown by one, ``unanswered``,
    ``unjudged``, ``can``) and team 7's ``me`` with its ``answer``; every other team's state
    keeps its version."""
    answering = {team_audience(t): t for t in teams if t in snap.names}
    stored = w.read_values({PUBLIC: ["question"], realtime.HOST: ["question", "host"],
                            **{audience: ["me"] for audience in answering}})
    host = stored.get(realtime.HOST, {}).get("host")
    public = stored.get(PUBLIC, {}).get("question")
    if host is None or public is None:
        return None
    if added is None:
        question, host = public_question(snap), {**host, **host_open(snap)}
    else:
        grown = grown_open(snap, public, host, added)
        if grown is None:
            return None
        question, host = grown
    # The stored values are read only (``shared``): each changed one is a new dict.
    states: dict[str, dict] = {
        PUBLIC: Parts({"question": question}),
        realtime.HOST: Parts({"question": question, "host": host}),
    }
    mine = {a.application_id: a for a in added or ()}
    for audience, team in answering.items():
        me = stored.get(audience, {}).get("me")
        if me is None or team not in mine:  # never stored, or no answer here: built whole
            states[audience] = team_state(snap, team)
        else:
            states[audience] = Parts({"me": {**me, "answer": answer_view(snap.current,
                                                                         mine[team])}})
    return states


def grown_open(snap: Snapshot, public: dict, host: dict, added: tuple[Answer, ...]
               ) -> tuple[dict, dict] | None:
    """The public open question and the host's view after ``added`` (the newest answers, in
    the order they were stored), from their stored values: each answer joins its group (or
    opens one), the groups are ordered again, biggest first and then by their first answer, as
    ``answer_groups`` orders them (answers are stored in the order of their moments: each
    takes its moment under the game's lock, then its id). None when the stored values are not
    of the open question.

    For example, with the groups ``пушкин`` (2 answers) and ``лермонтов`` (2, arrived later)
    stored, a third ``Лермонтов`` makes ``лермонтов`` the first group, with index 1."""
    question = snap.current
    shown = host.get("question")
    if (question is None or question.closed_at is not None or public.get("number") !=
            question.number or shown is None or shown.get("number") != question.number):
        return None
    new = [a for a in added if a.application_id in snap.names]
    keys, merged = rules.answer_keys(question.answer_key, question.variants), question.merged or {}
    groups = {g["key"]: g for g in host["groups"]}
    for a in new:
        key = rules.group_of(merged, a.normalized)
        name = snap.names[a.application_id]
        old = groups.get(key)
        if old is None:
            groups[key] = {"key": key, "texts": [a.text], "teams": [name], "answers": [a.pk],
                           "forms": [a.normalized], "matches_key": a.normalized in keys,
                           "index": 0, "count": 1, "verdict": a.verdict}
            continue
        fresh = a.normalized not in old["forms"]
        groups[key] = {
            **old,
            "texts": old["texts"] if a.text in old["texts"] else [*old["texts"], a.text],
            "teams": [*old["teams"], name], "answers": [*old["answers"], a.pk],
            "forms": [*old["forms"], a.normalized] if fresh else old["forms"],
            "matches_key": old["matches_key"] or (fresh and a.normalized in keys),
            "count": old["count"] + 1,
            "verdict": old["verdict"] if old["verdict"] is a.verdict else "mixed",
        }
    ordered = sorted(groups.values(), key=lambda g: (-g["count"], g["answers"][0]))
    ordered = [g if g["index"] == i else {**g, "index": i}
               for i, g in enumerate(ordered, start=1)]
    named = {snap.names[a.application_id] for a in new}
    judged = all(g["verdict"] in (True, False) for g in ordered)
    status = snap.koth.status
    grown = {
        **host,
        "groups": ordered,
        "suggestions": group_suggestions(question, ordered),
        "answered": host["answered"] + len(new),
        "unanswered": [n for n in host["unanswered"] if n not in named],
        "unjudged": host["unjudged"] + sum(1 for a in new if a.verdict is None),
        "can": {**host["can"], "close": status == KothGame.Status.RUNNING
                and question.phase == Question.Phase.ANSWERING and judged},
    }
    return {**public, "answered": public["answered"] + len(new)}, grown


def build_states(w: Write, settled: Snapshot | StoredHost) -> dict[str, dict]:
    """The live core's build for King of the Hill: the states of the audiences the write may
    have changed, rendered from what ``kingofhill.settle.settle`` computed.

    A write about some teams (``AnswerAdded``, ``AnswersAdded``) or about the host's groups
    (``GroupsChanged``) on a kept board (the snapshot ``reused`` the closed questions) builds
    only the fields it changes (``answers_states``); any other write builds every audience.
    """
    if isinstance(settled, StoredHost):
        if isinstance(w.change, changes.BankChanged):
            return bank_states(w, settled.host)
        return presence_states(w, settled.host)
    snap = settled
    teams, added = None, None
    match w.change:
        case changes.AnswerAdded(team=team, answers=added):
            teams = {team}
        case changes.AnswersAdded(teams=teams, answers=added):
            pass
        case changes.GroupsChanged():
            teams = frozenset()  # the host's groups only: no team sees them
    if teams is not None and snap.reused:
        answered = answers_states(w, snap, teams, added)
        if answered is not None:
            return answered
        if added is not None:  # built whole after all: every answer of the question
            read_open(snap.current)
    public = public_state(snap)
    states = {PUBLIC: public, realtime.HOST: host_state(snap, public)}
    # A write about some teams on an unchanged board (an answer, a batch of answers) changes
    # only those teams' own views: the others see the public state without the answer count.
    touched = teams if snap.reused else None
    common = teams_public(snap, public)
    for entry in snap.entries:
        if touched is None or entry.pk in touched:
            states[team_audience(entry.pk)] = team_state(snap, entry.pk, common=common)
    return states
