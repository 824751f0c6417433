"""Reads: the game as the pure engine sees it (the record), who hosts it, its bank, and the
stored states the screens read.

``load_snapshot`` reads everything a state needs in a fixed, small number of queries and
computes the board once; ``kingofhill.states`` renders it and ``kingofhill.settle`` (the live
pipeline's settling step) makes the stored game follow it. Nothing here writes: reads serve
the stored states (``read_state``, ``read_stored``) and never recompute.
The closed questions (the record, hence the board) change only when a write recomputes the
board; what was read and computed then is kept per process under the game's
``board_generation`` (``remember_closed``), and later writes read just the open question.
No rule is decided here: whether a declaration counts and what a move would give come from
``kingofhill.rules``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import sql
from core.errors import DomainError
from core.records import RecordError, format_time
from core.roles import HOST, is_host, is_organizer
from kingofhill import rules
from kingofhill.models import (
    Answer,
    Appeal,
    Declaration,
    KothGame,
    PhoneSocket,
    PreparedQuestion,
    Question,
)
from live.messages import Stored, team_audience
from live.store import stored_one
from live.versioned import VersionedCache
from teams.models import Application

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


@dataclass(slots=True)
class Derived:
    """What the states derive from the closed questions alone, built at most once per board:
    None until a state first needs it. One object is shared by the snapshots that reuse a
    kept closed part (``remember_closed``), so what one builds the next finds; a value is
    read-only once set (``kingofhill.settle`` grows a copy for a just closed question)."""

    history: list[dict] | None = None  # the host's history, newest first
    appeals: dict[int, list[dict]] | None = None  # the appeals by question number
    team_moves: dict[str, list[dict]] | None = None  # each team's played moves, oldest first


@dataclass
class Snapshot:
    koth: KothGame
    entries: list[Application]
    questions: list[Question]
    record: dict
    board: rules.Board | None
    names: dict[int, str] = field(default_factory=dict)
    derived: Derived = field(default_factory=Derived)
    reused: bool = False  # the closed part came from ``remember_closed``
    # Closed questions after the board's end (a changed verdict ended the game earlier): kept
    # with their answers for the history, out of the record; a later change may revive them.
    voided: list[Question] = field(default_factory=list)

    @property
    def current(self) -> Question | None:
        return self.questions[-1] if self.questions else None

    @functools.cached_property
    def positions(self) -> dict[int, int]:
        """Each team's place in the registration order, by its application id: a state per
        team looked it up in the list, 64 × 64 steps at every close."""
        return {a.pk: i for i, a in enumerate(self.entries)}

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
        "moves": [record_move(question, names) for question in questions
                  if question.closed_at is not None],
    }


def record_move(question: Question, names: dict[int, str]) -> dict:
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
class ClosedPart:
    """What a committed recomputation read and computed of the closed questions, kept per
    process (``remember_closed``) for the writes that leave them alone."""

    entries: list[Application]
    questions: list[Question]
    record: dict
    board: rules.Board | None
    names: dict[int, str]
    derived: Derived
    voided: list[Question] = field(default_factory=list)


# Game id -> the closed part of its last committed recomputation, under ``closed_key``.
_CLOSED = VersionedCache(size=64)


def closed_key(koth: KothGame) -> tuple | None:
    # Before the start the teams are whatever is approved now, which changes without a write.
    if not koth.team_order:
        return None
    return (koth.board_generation, koth.started_at, tuple(koth.team_order))


def remember_closed(snap: Snapshot, generation: int) -> None:
    """Keep the closed part of a committed snapshot whose board was stored as ``generation``
    (``kingofhill.settle`` calls this from ``on_commit``, never for a rolled-back one)."""
    koth = snap.koth
    if not koth.team_order:
        return
    _CLOSED.put(koth.pk, (generation, koth.started_at, tuple(koth.team_order)), ClosedPart(
        entries=snap.entries, questions=[q for q in snap.questions if q.closed_at is not None],
        record=snap.record, board=snap.board, names=snap.names, derived=snap.derived,
        voided=snap.voided))


def kept_closed(koth: KothGame) -> ClosedPart | None:
    """The closed part this process kept for the game's current ``board_generation``."""
    key = closed_key(koth)
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


def team_answer(question: Question, application_id: int) -> Answer | None:
    """The team's answer to ``question``, if it has one (one row: an answer checks its own
    team's, not the question's 64)."""
    found = _ANSWERS.load(f"t.{sql.column(Answer, 'question')} = %s AND "
                          f"t.{sql.column(Answer, 'application')} = %s",
                          [question.pk, application_id])
    return found[0] if found else None


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
        kept = kept_closed(koth)
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
                            board=kept.board, names=kept.names, derived=kept.derived, reused=True,
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
                                     *(record_move(q, snap.names) for q in snap.voided)]}


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


def next_prepared(koth: KothGame, *, lock: bool = False) -> PreparedQuestion | None:
    """The question bank's next question not yet announced."""
    rows = PreparedQuestion.objects.filter(koth=koth, question__isnull=True)
    if lock:
        rows = rows.select_for_update()
    return rows.order_by("position", "pk").first()


def game_appeals(koth: KothGame | int) -> list[Appeal]:
    """Every appeal of the game, oldest first, with its question's number and team's name."""
    return list(Appeal.objects.filter(question__koth=koth)
                .select_related("question", "application__team"))


def bank_questions(koth: KothGame) -> list[PreparedQuestion]:
    """The whole bank in order, with the number each used one was announced as."""
    return list(PreparedQuestion.objects.filter(koth=koth).select_related("question")
                .order_by("position", "pk"))


def bank_listing(koth: KothGame) -> list[dict]:
    """The whole bank in order as the page and the API show it: each question's ``place`` in
    the queue (1 is announced next; None once announced) and ``announced_as``, the number of
    the question it was announced as."""
    rows, place = [], 0
    for q in bank_questions(koth):
        used = q.question.number if q.question is not None else None
        place += used is None
        rows.append({"id": q.pk, "place": None if used is not None else place,
                     "announced_as": used, "text": q.text, "answer_key": q.answer_key,
                     "variants": list(q.variants or []), "partner": q.partner, "note": q.note,
                     "image": q.image_id is not None})
    return rows


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


def koth_game(game_id: int) -> KothGame:
    """The KotH game with its ``teams.Game`` loaded; ``KothGame.DoesNotExist`` otherwise."""
    return KothGame.objects.select_related("game").get(pk=game_id)


def audience(kind: str, application_id: int | None = None) -> str:
    """The live audience of a screen: ``public`` (projector), ``host``, or one team's."""
    return team_audience(application_id) if kind == "team" else kind


def read_state(koth: KothGame, *, kind: str, application_id: int | None = None) -> dict | None:
    """``{"version", "state", "server_time"}`` of one screen, served from the stored state (no
    recomputation); None when the team does not play in the game."""
    stored = read_stored(koth, kind=kind, application_id=application_id)
    if stored is None:
        return None
    return {**stored.data(), "server_time": timezone.now().isoformat()}


def read_stored(koth: KothGame, *, kind: str, application_id: int | None = None) -> Stored | None:
    """The stored state of one screen (``Stored.response`` answers it as it is); None when the
    team does not play in the game. The live core's read (``LiveGame.read``), without the
    adapter: reads sit below the writes that store what they serve."""
    return stored_one(koth.pk, audience(kind, application_id))
