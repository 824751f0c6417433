"""Reads: the game as the pure engine sees it (the record), and the states the screens show.

``load_snapshot`` reads everything a state needs in a fixed, small number of queries and
computes the board once; ``public_state``, ``host_state`` and ``team_state`` only shape it.
``build_states`` is the live core's build (``live``): it settles the game and returns every
audience's state, which the core stores and pushes; reads serve those stored states.
The closed questions (the record, hence the board) change only when a write recomputes the
board; what was read and computed then is kept per process under the game's
``board_generation`` (``remember_closed``), and later writes read just the open question.
No rule is decided here: whether a declaration counts and what a move would give come from
``kingofhill.rules``. The state shapes are documented in ``kingofhill.realtime``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import sql
from core.errors import DomainError
from core.records import RecordError, format_time
from core.roles import HOST, is_host, is_organizer
from kingofhill import changes, realtime, rules
from kingofhill.models import (
    Answer,
    Declaration,
    KothGame,
    PhoneSocket,
    PreparedQuestion,
    Question,
    team_colour,
)
from live.messages import PUBLIC, Stored, team_audience
from live.rows import Rows
from live.store import Parts
from live.versioned import VersionedCache
from live.write import Write
from teams.models import Application, Game

NOT_STARTED = "the game has not started"
NOT_DECLARING = rules.LATE

# The engine's reasons are English constants; pages show them through this table.
REASON_LABELS = {
    NOT_STARTED: _("the game has not started"),
    rules.LATE: _("declarations are closed: the question has been announced"),
    rules.FINISHED: _("the game has finished"),
    rules.JUMP_FIRST_QUESTION: _("no jump on the first question"),
    rules.JUMP_KING: _("the King cannot jump"),
    rules.JUMP_PENULTIMATE: _("no jump from the penultimate step"),
    rules.JUMP_AFTER_FAIL: _("no jump right after a failed move"),
    rules.REV_KING: _("the King cannot declare a revolution"),
    rules.REV_NO_KING: _("a revolution needs a King on the summit"),
    rules.REV_NOT_PENULTIMATE: _("a revolution only from the penultimate step"),
    rules.REV_NO_RIGHT: _("the revolution right is used up"),
}


# What else a projected move may bring (``rules.Outcome.code``); states carry the code, so a
# state pushed to phones in different languages is one state, and each page translates it.
NOTE_LABELS = {
    rules.NOTE_KING_STAYS: _("you stay on the summit"),
    rules.NOTE_KING_UNLESS_DEPOSED: _("you stay on the summit unless a correct revolutionary "
                                      "deposes you"),
    rules.NOTE_REVOLUTION: _("you take the summit if the King answers incorrectly and no other "
                             "correct revolutionary has more points (then the earlier answer)"),
    rules.NOTE_MAY_BECOME_KING: _("you reach the summit: you become King unless another team "
                                  "arriving with you has more points (then the earlier answer); "
                                  "otherwise you stay on the penultimate step"),
    rules.NOTE_STOPS_PENULTIMATE: _("you stop on the penultimate step: only a revolution takes "
                                    "the summit"),
}


def can_host(user, koth: KothGame | int) -> bool:
    """Whether ``user`` hosts this game: organizers host every game, a host only the games
    an organizer assigned to them (console, judging, the host socket, the answers)."""
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return False
    game_id = koth if isinstance(koth, int) else koth.pk
    # One query for an assigned host (the console asks on every action): assigned and still
    # in the host group; anyone else may still be an organizer.
    if KothGame.hosts.through.objects.filter(kothgame_id=game_id, user_id=user.pk,
                                             user__groups__name=HOST).exists():
        return True
    return is_organizer(user)


def hosted_game_ids(user) -> set[int] | None:
    """The games ``user`` may host: None for "every game" (an organizer)."""
    if is_organizer(user):
        return None
    if not is_host(user):
        return set()
    return set(KothGame.hosts.through.objects.filter(user_id=user.pk)
               .values_list("kothgame_id", flat=True))


def game_hosts(koth: KothGame) -> list:
    """The hosts assigned to the game, by user name."""
    return list(koth.hosts.order_by("username"))


def host_candidates(koth: KothGame) -> list:
    """Accounts with the host role not assigned to the game yet (what the organizer picks)."""
    from django.contrib.auth.models import User

    return list(User.objects.filter(is_active=True, groups__name=HOST)
                .exclude(koth_games_hosted=koth).order_by("username").distinct())


def reason_labels() -> dict[str, str]:
    """Engine reason or note code → text in the active language, for a page's
    ``json_script`` (one table: the keys never clash, reasons are sentences, codes are not)."""
    return {key: str(label) for key, label in {**REASON_LABELS, **NOTE_LABELS}.items()}


def game_entries(koth: KothGame) -> list[Application]:
    """The teams of the game in registration (slope) order: frozen at the start, before it the
    approved applications."""
    if koth.team_order:
        by_id = Application.objects.select_related("team").in_bulk(koth.team_order)
        return [by_id[pk] for pk in koth.team_order if pk in by_id]
    return list(
        Application.objects.filter(game_id=koth.pk, status=Application.Status.APPROVED)
        .select_related("team")
        .order_by("created_at", "pk")
    )


@dataclass
class Snapshot:
    koth: KothGame
    entries: list[Application]
    questions: list[Question]
    record: dict
    board: rules.Board | None
    names: dict[int, str] = field(default_factory=dict)
    # What is derived from the closed questions alone (the host's history), computed once per
    # board and shared by the snapshots that reuse it; read-only once stored.
    memo: dict = field(default_factory=dict)
    reused: bool = False  # the closed part came from ``remember_closed``
    # Closed questions after the board's end (a changed verdict ended the game earlier): kept
    # with their answers for the history, out of the record; a later change may revive them.
    voided: list[Question] = field(default_factory=list)

    @property
    def current(self) -> Question | None:
        return self.questions[-1] if self.questions else None

    def board_dict(self) -> dict:
        if self.board is not None:
            return rules.board_to_dict(self.board)
        # Fewer than two teams: the engine has no board yet; show everyone at the start.
        return {
            "format": "kingofhill", "summit": self.koth.summit, "question": 0,
            "finished": False, "finish_reason": None, "winner": None, "king": None,
            "king_holds": 0, "moves": [],
            "teams": [{"team": n, "place": i, "step": 0, "points": 0, "revolution_right": True}
                      for i, n in enumerate(self.names.values(), start=1)],
        }


def build_record(koth: KothGame, entries: list[Application], questions: list[Question]) -> dict:
    """The contract record (``docs/spec/record-format.md``): closed questions are the moves."""
    names = {a.pk: a.team.name for a in entries}
    return {
        "format": "kingofhill",
        "summit": koth.summit,
        "main_questions": koth.main_questions,
        "reserve_questions": koth.reserve_questions,
        "teams": [names[a.pk] for a in entries],
        "moves": [_move(question, names) for question in questions
                  if question.closed_at is not None],
    }


def _move(question: Question, names: dict[int, str]) -> dict:
    """A closed question as the record's move (its answers and declarations loaded)."""
    return {
        "announced_at": format_time(question.announced_at),
        "partner": question.partner,
        "declarations": {
            names[d.application_id]: {"kind": d.kind, "at": format_time(d.at)}
            for d in question.declarations.all() if d.application_id in names
        },
        "answers": {
            names[a.application_id]: {"correct": a.verdict, "at": format_time(a.at)}
            for a in question.answers.all()
            if a.application_id in names and a.verdict is not None
        },
    }


@dataclass(frozen=True)
class _Closed:
    entries: list[Application]
    questions: list[Question]
    record: dict
    board: rules.Board | None
    names: dict[int, str]
    memo: dict
    voided: list[Question] = field(default_factory=list)


# Game id -> the closed part of its last committed recomputation, under ``_closed_key``.
_CLOSED = VersionedCache(size=64)


def _closed_key(koth: KothGame) -> tuple | None:
    # Before the start the teams are whatever is approved now, which changes without a write.
    if not koth.team_order:
        return None
    return (koth.board_generation, koth.started_at, tuple(koth.team_order))


def remember_closed(snap: Snapshot, generation: int) -> None:
    """Keep the closed part of a committed snapshot whose board was stored as ``generation``
    (``build_states`` calls this from ``on_commit``, never for a rolled-back one)."""
    koth = snap.koth
    if not koth.team_order:
        return
    _CLOSED.put(koth.pk, (generation, koth.started_at, tuple(koth.team_order)), _Closed(
        entries=snap.entries, questions=[q for q in snap.questions if q.closed_at is not None],
        record=snap.record, board=snap.board, names=snap.names, memo=snap.memo,
        voided=snap.voided))


def _kept(koth: KothGame) -> _Closed | None:
    key = _closed_key(koth)
    return None if key is None else _CLOSED.peek(koth.pk, key)


def forget_closed(game_id: int | None = None) -> None:
    """Drop what ``remember_closed`` kept (one game, or all)."""
    if game_id is None:
        _CLOSED.clear()
    else:
        _CLOSED.discard(game_id)


_ANSWERS, _DECLARATIONS = sql.Loader(Answer), sql.Loader(Declaration)


def read_open(question: Question) -> None:
    """The open question's answers and declarations, as ``prefetch_related`` reads them (in
    the models' order), from constant SQL: every answer of a 64-team game reads them again."""
    where = f"t.{sql.column(Answer, 'question')} = %s"
    sql.prefetched(question, "answers", _ANSWERS.load(
        where, [question.pk], f"t.{sql.column(Answer, 'at')}, t.{sql.column(Answer, 'pk')}"))
    sql.prefetched(question, "declarations", _DECLARATIONS.load(
        where, [question.pk],
        f"t.{sql.column(Declaration, 'at')}, t.{sql.column(Declaration, 'pk')}"))


def load_snapshot(koth: KothGame, *, reuse: bool = False,
                  current: Question | None = None, current_read: bool = False) -> Snapshot:
    """Everything the states need, in four queries, with the board computed once.

    With ``reuse``, when this process kept the closed part for the game's ``board_generation``,
    only the open question is read (two queries; ``current``, the open question already
    loaded by the caller, saves the third, and ``current_read`` says its answers and
    declarations are loaded too): for writes that leave the closed questions alone.

    Raises ``RecordError`` when the stored events make an impossible record (a service turns
    that into a refusal before anything is committed).
    """
    if reuse:
        kept = _kept(koth)
        if kept is not None:
            if current is not None and current.closed_at is None:
                open_questions = [current]
                if not current_read:
                    read_open(current)
            else:
                open_questions = list(
                    Question.objects.filter(koth=koth, closed_at__isnull=True)
                    .order_by("number").prefetch_related("declarations", "answers"))
            return Snapshot(koth=koth, entries=kept.entries,
                            questions=[*kept.questions, *open_questions], record=kept.record,
                            board=kept.board, names=kept.names, memo=kept.memo, reused=True,
                            voided=kept.voided)
    entries = game_entries(koth)
    questions = list(
        Question.objects.filter(koth=koth).order_by("number")
        .prefetch_related("declarations", "answers")
    )
    record = build_record(koth, entries, questions)
    board = None
    voided: list[Question] = []
    if len(entries) >= 2:
        board = rules.compute(rules.parse_record(record), until_end=True)
        # The record holds only the moves that counted, so it replays as the board shows.
        if board.question < len(record["moves"]):
            record["moves"] = record["moves"][:board.question]
            voided = [q for q in questions if q.closed_at is not None and q.number > board.question]
            questions = [q for q in questions if q.closed_at is None or q.number <= board.question]
    return Snapshot(koth=koth, entries=entries, questions=questions, record=record, board=board,
                    names={a.pk: a.team.name for a in entries}, voided=voided)


def played_record(snap: Snapshot) -> dict:
    """The record with every closed question, the voided ones too: what a change of the past
    recomputes (``rules.compute(..., until_end=True)``), so a change may revive them."""
    return {**snap.record, "moves": [*snap.record["moves"],
                                     *(_move(q, snap.names) for q in snap.voided)]}


# The engine's errors in the user's language; its English text is for the replay command.
RECORD_ERRORS = {
    rules.MoveAfterEnd.code: _("the game would already be over before question %(n)d, which "
                               "has been played"),
}


def record_refusal(exc: RecordError) -> DomainError:
    """A recomputation the engine refuses, as a refusal fit for the host (never its raw text)."""
    code = getattr(exc, "code", None)
    if code in RECORD_ERRORS:
        why = RECORD_ERRORS[code] % {"n": getattr(exc, "question", 0) + 1}
    else:
        why = _("the stored answers and verdicts do not make a valid game")
    return DomainError(_("This change would make the game impossible: %(why)s.") % {"why": why})


def closed_snapshot(koth: KothGame, question: Question) -> Snapshot | None:
    """The snapshot after ``question`` (the open one, just closed) from the closed part this
    process kept: its one move played on the kept board (``rules.advance``, equal to replaying
    the whole record: tests/kingofhill/test_rules.py), reading that question alone. A close
    otherwise read every played question's answers as models and replayed them all: at 64
    teams, half of the close's time and a sixth of a hall's server time (``make bench``).

    None when the kept part is not the game's (another worker closed a question, a verdict
    changed: ``board_generation`` moved) or does not end right before ``question``, or the
    engine refuses the move: then ``load_snapshot`` recomputes (and refuses) as ever."""
    kept = _kept(koth)
    if kept is None or kept.board is None or question.closed_at is None:
        return None
    if len(kept.questions) != question.number - 1 or kept.board.question != question.number - 1:
        return None
    read_open(question)
    move = _move(question, kept.names)
    try:
        board = rules.advance(kept.board, rules.parse_move(
            move, set(kept.record["teams"]), f"moves[{question.number - 1}]"))
    except RecordError:
        return None
    record = {**kept.record, "moves": [*kept.record["moves"], move]}
    snap = Snapshot(koth=koth, entries=kept.entries, questions=[*kept.questions, question],
                    record=record, board=board, names=kept.names)
    # What is built once per board grows by the one question too (the kept lists stay as
    # they are: other snapshots share them).
    if "history" in kept.memo:
        snap.memo["history"] = [_history_entry(snap, question), *kept.memo["history"]]
    if "team_moves" in kept.memo:
        before = kept.board.moves[-1].snapshot if kept.board.moves else None
        new = _played(snap, board.moves[-1], before, question)
        moves = {name: list(played) for name, played in kept.memo["team_moves"].items()}
        for name, played in new:
            moves.setdefault(name, []).append(played)
        snap.memo["team_moves"] = moves
    return snap


def _time(value: datetime | None) -> str | None:
    return format_time(value)


def _declaration_status(snap: Snapshot, question: Question, d: Declaration) -> str | None:
    """Why ``d`` does not count (None when it does), from the engine."""
    name = snap.names.get(d.application_id)
    if name is None or snap.board is None:
        return NOT_STARTED
    if question.closed_at is not None:
        move = snap.board.moves[question.number - 1]
        return move.ignored.get(name)
    if question.announced_at is not None and d.at >= question.announced_at:
        return rules.LATE
    allowed = rules.allowed_declarations(snap.board, name)
    return allowed.jump_reason if d.kind == rules.JUMP else allowed.revolution_reason


def _counting(snap: Snapshot, question: Question, kind: str) -> list[str]:
    if question.closed_at is not None and snap.board is not None:
        effective = snap.board.moves[question.number - 1].effective
        return [n for n in snap.names.values() if effective.get(n) == kind]
    found = {snap.names.get(d.application_id) for d in question.declarations.all()
             if d.kind == kind and _declaration_status(snap, question, d) is None}
    return [n for n in snap.names.values() if n in found]


def public_board(board: dict) -> dict:
    """The stored board as the screens get it: without ``moves`` (no page reads them; they grow
    with every question and went to every phone on every push). The record has them."""
    return {key: value for key, value in board.items() if key != "moves"}


def public_state(snap: Snapshot) -> dict:
    koth = snap.koth
    question = snap.current
    q = None
    if question is not None:
        q = {
            "number": question.number,
            "phase": question.phase,
            "partner": question.partner,
            "answered": sum(1 for a in question.answers.all() if a.application_id in snap.names),
            "total": len(snap.entries),
            "revolutions": _counting(snap, question, rules.REVOLUTION),
            "jumps": _counting(snap, question, rules.JUMP),
            # The host's countdown: screens count down to ``ends_at`` from ``server_time``.
            "countdown": {"seconds": question.countdown_seconds,
                          "ends_at": _time(question.countdown_ends_at)}
            if question.countdown_ends_at is not None and question.closed_at is None else None,
        }
    return {
        "game": {
            "id": koth.pk,
            "title": koth.game.title,
            "status": koth.status,
            "summit": koth.summit,
            "main_questions": koth.main_questions,
            "reserve_questions": koth.reserve_questions,
            "holds_to_win": rules.KING_HOLD_MOVES,
        },
        "teams": [{"name": a.team.name, "colour": team_colour(i)}
                  for i, a in enumerate(snap.entries)],
        "board": public_board(snap.board_dict()),
        "question": q,
        "reveal": _reveal(snap),
    }


def _reveal(snap: Snapshot) -> dict | None:
    """The last closed question's text and answer, once the host reveals them, until the next
    question is announced (or for good after the end)."""
    current = snap.current
    if current is not None and current.closed_at is None and current.announced_at is not None:
        return None
    closed = [q for q in snap.questions if q.closed_at is not None]
    last = closed[-1] if closed else None
    if last is None or last.revealed_at is None:
        return None
    return {"number": last.number, "text": last.text, "answer_key": last.answer_key,
            "variants": list(last.variants or [])}


def _answer_row(snap: Snapshot, answer: Answer) -> dict:
    return {"id": answer.pk, "team": snap.names.get(answer.application_id), "text": answer.text,
            "normalized": answer.normalized, "at": _time(answer.at), "verdict": answer.verdict}


def _keys(question: Question) -> set[str]:
    return rules.answer_keys(question.answer_key, question.variants)


def answer_groups(snap: Snapshot, question: Question) -> list[dict]:
    """Answers grouped by normalised text, biggest group first (then the earliest arrival)."""
    keys = _keys(question)
    groups: dict[str, dict] = {}
    for answer in sorted(question.answers.all(), key=lambda a: (a.at, a.pk)):
        if answer.application_id not in snap.names:
            continue
        group = groups.setdefault(answer.normalized, {
            "key": answer.normalized, "texts": [], "teams": [], "answers": [],
            "matches_key": answer.normalized in keys, "verdicts": set(),
        })
        if answer.text not in group["texts"]:
            group["texts"].append(answer.text)
        group["teams"].append(snap.names[answer.application_id])
        group["answers"].append(answer.pk)
        group["verdicts"].add(answer.verdict)
    ordered = sorted(groups.values(), key=lambda g: -len(g["answers"]))
    for index, group in enumerate(ordered, start=1):
        verdicts = group.pop("verdicts")
        group["index"] = index
        group["count"] = len(group["answers"])
        group["verdict"] = verdicts.pop() if len(verdicts) == 1 else "mixed"
    return ordered


def next_prepared(koth: KothGame, *, lock: bool = False) -> PreparedQuestion | None:
    """The question bank's next question not yet announced."""
    rows = PreparedQuestion.objects.filter(koth=koth, question__isnull=True)
    if lock:
        rows = rows.select_for_update()
    return rows.order_by("position", "pk").first()


def bank_questions(koth: KothGame) -> list[PreparedQuestion]:
    """The whole bank in order, with the number each used one was announced as."""
    return list(PreparedQuestion.objects.filter(koth=koth).select_related("question")
                .order_by("position", "pk"))


def connected_teams(koth: KothGame, entries: list[Application], names: dict[int, str]
                    ) -> list[str]:
    """The teams whose phones are connected now (at least one open socket), in slope order."""
    present = {pk for (pk,) in sql.rows(_sockets_sql(), [koth.pk])}
    return [names[a.pk] for a in entries if a.pk in present]


@functools.cache
def _sockets_sql() -> str:
    # Every host state carries the list: constant SQL (compiling the ORM's query took an
    # answer a tenth of its time).
    c = functools.partial(sql.column, PhoneSocket)
    return (f"SELECT DISTINCT {c('application')} FROM {sql.table(PhoneSocket)} "
            f"WHERE {c('koth')} = %s")


def presence_states(w: Write) -> dict[str, dict] | None:
    """The build of a presence refresh: only the host's list of connected teams changes, so
    its stored ``host`` part is patched (two or three queries, no snapshot); None when the host
    state was never stored (then the whole game is built)."""
    koth = w.game
    stored = w.read_values({realtime.HOST: ["host"]}).get(realtime.HOST, {}).get("host")
    if stored is None:
        return None
    kept = _kept(koth)
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


def bank_summary(koth: KothGame) -> dict:
    """What the host console shows of the bank: how many are left and the next one (one
    query: every host state carries it)."""
    found = sql.rows(_bank_sql(), [koth.pk])
    if not found:
        return {"left": 0, "next": None}
    pk, text, answer_key, variants, partner, note, left = found[0]
    return {"left": left, "next": {
        "id": pk, "text": text, "answer_key": answer_key,
        "variants": list(sql.loaded(variants) or []), "partner": bool(partner), "note": note}}


@functools.cache
def _bank_sql() -> str:
    c = functools.partial(sql.column, PreparedQuestion)
    columns = ", ".join(c(f) for f in ("pk", "text", "answer_key", "variants", "partner", "note"))
    return (f"SELECT {columns}, COUNT(*) OVER () FROM {sql.table(PreparedQuestion)} "
            f"WHERE {c('koth')} = %s AND {c('question')} IS NULL "
            f"ORDER BY {c('position')}, {c('pk')} LIMIT 1")


def _history(snap: Snapshot) -> list[dict]:
    """Every closed question with its answers, newest first: the same for every write until
    the board is recomputed, so built once per board."""
    if "history" in snap.memo:
        return snap.memo["history"]
    closed = [q for q in snap.questions if q.closed_at is not None] + snap.voided
    history = [_history_entry(snap, q) for q in reversed(closed)]
    snap.memo["history"] = history
    return history


def _history_entry(snap: Snapshot, q: Question) -> dict:
    counts = snap.board is not None and q.number <= len(snap.board.moves)
    move = snap.board.moves[q.number - 1] if counts else None
    return {
        "number": q.number, "partner": q.partner, "text": q.text, "counts": counts,
        "answer_key": q.answer_key,
        "ignored": dict(move.ignored) if move else {},
        "answers": [_answer_row(snap, a)
                    for a in sorted(q.answers.all(), key=lambda a: (a.at, a.pk))],
    }


def host_state(snap: Snapshot, public: dict | None = None) -> dict:
    state = dict(public or public_state(snap))
    question = snap.current
    current = None
    declarations: list[dict] = []
    groups: list[dict] = []
    unanswered: list[str] = []
    if question is not None:
        current = {
            "number": question.number, "phase": question.phase, "text": question.text,
            "answer_key": question.answer_key, "variants": list(question.variants or []),
            "partner": question.partner, "announced_at": _time(question.announced_at),
            "closed_at": _time(question.closed_at), "note": question.note,
        }
        for d in sorted(question.declarations.all(), key=lambda d: (d.at, d.pk)):
            reason = _declaration_status(snap, question, d)
            declarations.append({"team": snap.names.get(d.application_id), "kind": d.kind,
                                 "at": _time(d.at), "counts": reason is None,
                                 "reason": reason})
        groups = answer_groups(snap, question)
        answered = {a.application_id for a in question.answers.all()}
        unanswered = [snap.names[a.pk] for a in snap.entries if a.pk not in answered]
    history = _history(snap)
    phase = question.phase if question is not None else None
    judged = all(g["verdict"] in (True, False) for g in groups)
    status = snap.koth.status
    state["host"] = {
        "question": current,
        "declarations": declarations,
        "groups": groups,
        "answered": sum(g["count"] for g in groups),
        "total": len(snap.entries),
        "unanswered": unanswered,
        # Why "close" may be disabled: the answers still waiting for a verdict.
        "unjudged": sum(1 for a in question.answers.all()
                        if a.application_id in snap.names and a.verdict is None)
        if question is not None else 0,
        # Stored row by row (``Rows``): an answer rewrites the console's few changed fields,
        # not every closed question's answers.
        "history": Rows(history, by="number"),
        "bank": bank_summary(snap.koth),
        # Teams with at least one phone socket open, in registration order.
        "connected": connected_teams(snap.koth, snap.entries, snap.names),
        "challengers": list(rules.challengers(snap.board)) if snap.board is not None else [],
        "can": {
            "start": status == KothGame.Status.SETUP and len(snap.entries) >= 2,
            "announce": status == KothGame.Status.RUNNING and phase == Question.Phase.DECLARING,
            "close": status == KothGame.Status.RUNNING and phase == Question.Phase.ANSWERING
            and judged,
            "countdown": status == KothGame.Status.RUNNING and phase == Question.Phase.ANSWERING,
            "reveal": any(q.closed_at is not None for q in snap.questions),
        },
        "revealed": state.get("reveal") is not None,
    }
    return state


def _outcome(outcome: rules.Outcome) -> dict:
    # ``note`` is the engine's stable code ("" for none); the page shows its label.
    return {"step": outcome.step, "points": outcome.points, "note": outcome.code}


def _team_moves(snap: Snapshot) -> dict[str, list[dict]]:
    """Every closed question as each team played it, oldest first: its answer and verdict, the
    kind that counted (and why a declaration was ignored), step, points and the summit before
    and after. Only the closed questions go in, so it is built once per board."""
    if "team_moves" in snap.memo:
        return snap.memo["team_moves"]
    moves: dict[str, list[dict]] = {name: [] for name in snap.names.values()}
    if snap.board is not None:
        closed = {q.number: q for q in snap.questions if q.closed_at is not None}
        before = None
        for move in snap.board.moves:
            for name, played in _played(snap, move, before, closed.get(move.question)):
                moves.setdefault(name, []).append(played)
            before = move.snapshot
    snap.memo["team_moves"] = moves
    return moves


def _played(snap: Snapshot, move: rules.MoveResult, before: rules.Snapshot | None,
            question: Question | None) -> list[tuple[str, dict]]:
    """How each team played one closed question (``_team_moves``), from the board before it."""
    after = move.snapshot
    texts: dict[str, str] = {}
    declared: dict[str, str] = {}
    if question is not None:
        texts = {snap.names.get(a.application_id): a.text for a in question.answers.all()}
        declared = {snap.names.get(d.application_id): d.kind
                    for d in question.declarations.all()}
    played = []
    for i, name in enumerate(after.names):
        was_king = before is not None and before.king == i
        is_king = after.king == i
        played.append((name, {
            "number": move.question, "partner": move.partner,
            "answer": texts.get(name), "correct": name in move.correct,
            "declared": declared.get(name),
            "kind": move.effective.get(name, rules.ORDINARY),
            "ignored_reason": move.ignored.get(name),
            "before": {"step": before.step[i] if before else 0,
                       "points": before.points[i] if before else 0, "king": was_king},
            "after": {"step": after.step[i], "points": after.points[i], "king": is_king},
            "crowned": is_king and not was_king, "deposed": was_king and not is_king,
        }))
    return played


def team_state(snap: Snapshot, application_id: int, public: dict | None = None) -> dict:
    """The public state plus this team's own view; never another team's answer."""
    state = dict(public or public_state(snap))
    if state.get("question"):
        # Other teams' answers are not this team's news: they push nothing to it, so its
        # state does not count them either (one version, one state).
        state["question"] = {k: v for k, v in state["question"].items() if k != "answered"}
    name = snap.names.get(application_id)
    me: dict = {"application": application_id, "team": name}
    if name is None:
        state["me"] = me
        return state
    index = [a.pk for a in snap.entries].index(application_id)
    me["colour"] = team_colour(index)
    question = snap.current
    row = next((t for t in state["board"]["teams"] if t["team"] == name), None) or {}
    me.update({"place": row.get("place"), "step": row.get("step", 0),
               "points": row.get("points", 0),
               "revolution_right": row.get("revolution_right", True),
               "is_king": state["board"]["king"] == name})
    allowed = {"jump": False, "jump_reason": NOT_STARTED,
               "revolution": False, "revolution_reason": NOT_STARTED}
    projection = {}
    if snap.board is not None and snap.koth.status != KothGame.Status.SETUP:
        engine = rules.allowed_declarations(snap.board, name)
        allowed = {"jump": engine.jump, "jump_reason": engine.jump_reason,
                   "revolution": engine.revolution, "revolution_reason": engine.revolution_reason}
        if question is not None and question.phase != Question.Phase.DECLARING \
                and not snap.board.finished:
            allowed = {"jump": False, "jump_reason": NOT_DECLARING,
                       "revolution": False, "revolution_reason": NOT_DECLARING}
        if not snap.board.finished:
            partner = bool(question and question.partner and question.closed_at is None)
            for kind in (rules.ORDINARY, rules.JUMP, rules.REVOLUTION):
                p = rules.projected_outcome(snap.board, name, kind, partner=partner)
                projection[kind] = {"kind": p.kind, "ignored_reason": p.ignored_reason,
                                    "correct": _outcome(p.correct),
                                    "incorrect": _outcome(p.incorrect)}
    me["allowed"] = allowed
    me["projection"] = projection
    played = _team_moves(snap).get(name, [])
    # The close opens the next question at once, so the verdict lives here, not in ``answer``.
    me["last_move"] = played[-1] if played else None
    me["history"] = [
        {"number": m["number"], "answer": m["answer"], "correct": m["correct"],
         "kind": m["kind"], "ignored": m["ignored_reason"] is not None,
         "partner": m["partner"], "step": m["after"]["step"], "points": m["after"]["points"],
         "king": m["after"]["king"]}
        for m in reversed(played)]
    me["declaration"] = None
    me["answer"] = None
    if question is not None:
        for d in question.declarations.all():
            if d.application_id == application_id:
                reason = _declaration_status(snap, question, d)
                me["declaration"] = {"kind": d.kind, "at": _time(d.at),
                                     "counts": reason is None, "reason": reason}
        for a in question.answers.all():
            if a.application_id == application_id:
                me["answer"] = {
                    "text": a.text, "at": _time(a.at), "client_id": str(a.client_id),
                    # The verdict is news only once the move is played.
                    "verdict": a.verdict if question.closed_at is not None else None,
                }
    state["me"] = me
    return state


def koth_game(game_id: int) -> KothGame:
    """The KotH game with its ``teams.Game`` loaded; ``KothGame.DoesNotExist`` otherwise."""
    return KothGame.objects.select_related("game").get(pk=game_id)


def audience(kind: str, application_id: int | None = None) -> str:
    """The live audience of a screen: ``public`` (projector), ``host``, or one team's."""
    return team_audience(application_id) if kind == "team" else kind


def build_states(w: Write, settled: None = None) -> dict[str, dict]:
    """The live core's build for King of the Hill: settle the game when its closed questions
    may have changed, then every audience's state (``kingofhill.realtime`` documents them).

    The board is recomputed from the record when the action says the closed questions changed
    (``BoardChanged``), or when this process keeps no board for the game's
    ``board_generation``; otherwise only the open question is read. The game settles only in
    the first case: a board recomputed because this process kept none is the stored one.
    A write about some teams (``AnswerAdded``, ``AnswersAdded``) on a kept board builds only
    those teams' views of the teams'.
    """
    koth = w.game
    full, closed, current, current_read, teams = False, None, None, False, None
    match w.change:
        case changes.PresenceChanged():
            states = presence_states(w)
            if states is not None:
                return states
        case changes.BoardChanged(closed=closed):
            full = True
        case changes.QuestionChanged(current=current):
            pass
        case changes.AnswerAdded(team=team, current=current):
            current_read, teams = True, {team}
        case changes.AnswersAdded(teams=teams, current=current):
            current_read = True
    try:
        snap = None if closed is None else closed_snapshot(koth, closed)
        if snap is None:
            snap = load_snapshot(koth, reuse=not full, current=current,
                                 current_read=current_read)
    except RecordError as exc:
        raise record_refusal(exc) from None
    # A board computed only because this process kept none (another worker moved the game on)
    # is the stored one: every write that changes the closed questions recomputes and settles
    # (``recompute``). Settling it again would store a new generation and make the other
    # worker, and then this one, recompute on every write in turn.
    cold = not full and _closed_key(koth) is not None
    if not snap.reused and not cold:
        settle(koth, snap, w.now)
    public = public_state(snap)
    states = {PUBLIC: public, realtime.HOST: host_state(snap, public)}
    # A write about some teams on an unchanged board (an answer, a batch of answers) changes
    # only those teams' own views: the others see the public state without the answer count.
    touched = teams if snap.reused else None
    for entry in snap.entries:
        if touched is None or entry.pk in touched:
            states[team_audience(entry.pk)] = team_state(snap, entry.pk, public)
    if not snap.reused:
        generation = koth.board_generation
        transaction.on_commit(lambda: remember_closed(snap, generation))
    return states


def merged(writes: list[Write]) -> Write:
    """Answers applied in one batch (``live.batch``) as the one write ``build_states`` takes:
    the last answer's open question (read after every answer before it, so it holds them all)
    and every answering team. Only answers batch (``services.answer_submit``): anything else
    is refused, and the live core then applies each write alone."""
    last = writes[-1]
    if not all(isinstance(x.change, changes.AnswerAdded) for x in writes):
        raise ValueError("only answers are merged")
    return Write(game=last.game, now=last.now, change=changes.AnswersAdded(
        teams=frozenset(x.change.team for x in writes), current=last.change.current))


def settle(koth: KothGame, snap: Snapshot, now: datetime) -> None:
    """Make the stored game follow its freshly computed board: it finishes when the engine says
    so (and runs again if a changed verdict un-finishes it), a running game always has its next
    question open, and the board is stored under a new generation."""
    board = snap.board
    if koth.status != KothGame.Status.SETUP and board is not None:
        if board.finished:
            if koth.status != KothGame.Status.FINISHED:
                koth.status = KothGame.Status.FINISHED
                koth.finished_at = now
                # The club's game lists read ``teams.Game``: it finishes with its board.
                Game.objects.filter(pk=koth.pk, status=Game.Status.RUNNING).update(
                    status=Game.Status.FINISHED)
            # A question opened before the board finished (after a changed verdict) has no
            # place in the record any more: an empty one goes, one the teams already declared
            # for or that was announced is closed as voided (its answers stay in the history).
            current = snap.current
            if current is not None and current.closed_at is None:
                snap.questions.pop()
                if current.announced_at is None and not current.declarations.all():
                    current.delete()
                else:
                    current.closed_at = now
                    current.save(update_fields=["closed_at"])
                    snap.voided.append(current)
        else:
            if koth.status == KothGame.Status.FINISHED:  # a changed verdict re-opened it
                Game.objects.filter(pk=koth.pk, status=Game.Status.FINISHED).update(
                    status=Game.Status.RUNNING)
            koth.status = KothGame.Status.RUNNING
            koth.finished_at = None
            last = snap.current
            if last is None or last.closed_at is not None:
                number = 1 if last is None else last.number + 1
                opened = Question.objects.create(koth=koth, number=number)
                # Empty, but read once here rather than once per team state.
                prefetch_related_objects([opened], "declarations", "answers")
                snap.questions.append(opened)
    koth.board = snap.board_dict()
    koth.board_generation += 1
    koth.save(update_fields=["status", "finished_at", "board", "board_generation",
                             "team_order", "started_at"])


def read_state(koth: KothGame, *, kind: str, application_id: int | None = None) -> dict | None:
    """``{"version", "state", "server_time"}`` of one screen, served from the stored state (no
    recomputation); None when the team does not play in the game."""
    from kingofhill.live import LIVE

    stored = LIVE.read(koth.pk, audience(kind, application_id))
    if stored is None:
        return None
    return {**stored.data(), "server_time": timezone.now().isoformat()}


def read_stored(koth: KothGame, *, kind: str, application_id: int | None = None) -> Stored | None:
    """The stored state of one screen (``Stored.response`` answers it as it is); None when the
    team does not play in the game."""
    from kingofhill.live import LIVE

    return LIVE.read(koth.pk, audience(kind, application_id))
