"""King of the Hill's states: what each screen shows, rendered from a snapshot of the game
(``selectors.Snapshot``) that the live pipeline's settling step (``kingofhill.settle``) read,
computed and made the stored game follow. ``kingofhill.builds.build_states``, the live core's
build (``live.write.LiveGame.build``), picks which of them a write renders.

Only rendering: nothing here writes (no save, create, update, delete, no ``on_commit``); the few
reads a state needs besides the snapshot (the bank's next question, the connected phones) are
the selectors'. What is derived from the closed questions alone (the host's history, each team's
moves, the appeals) is built once into ``Snapshot.derived``, in memory, and kept with the board.
The state shapes are documented in ``kingofhill.realtime``.
"""

from __future__ import annotations

from datetime import datetime

from django.urls import reverse

from core.records import format_time
from kingofhill import rules
from kingofhill.models import Answer, Declaration, KothGame, Question, team_colour
from kingofhill.selectors import (
    NOT_DECLARING,
    NOT_STARTED,
    Snapshot,
    bank_summary,
    connected_teams,
    game_appeals,
)
from live.rows import Rows

#: the screens a question is shown on (``Question.shown_on``)
PROJECTOR, PHONES = "projector", "phones"


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


def public_question(snap: Snapshot) -> dict | None:
    """The open question as every screen sees it (the host's view and the projector's count)."""
    question = snap.current
    if question is None:
        return None
    return {
        "number": question.number,
        "phase": question.phase,
        "partner": question.partner,
        "answered": sum(1 for a in question.answers.all() if a.application_id in snap.names),
        "total": len(snap.entries),
        "revolutions": _counting(snap, question, rules.REVOLUTION),
        "jumps": _counting(snap, question, rules.JUMP),
        "countdown": _countdown(question),
    }


def public_state(snap: Snapshot) -> dict:
    koth = snap.koth
    q = public_question(snap)
    return {
        "game": {
            "id": koth.pk,
            "title": koth.game.title,
            "status": koth.status,
            "summit": koth.summit,
            "main_questions": koth.main_questions,
            "reserve_questions": koth.reserve_questions,
            "holds_to_win": rules.KING_HOLD_MOVES,
            # Phones close their answer at the countdown's end unless this is on.
            "answers_after_zero": koth.answers_after_zero,
        },
        "teams": [{"name": a.team.name, "colour": team_colour(i)}
                  for i, a in enumerate(snap.entries)],
        "board": public_board(snap.board_dict()),
        "question": q,
        "reveal": _reveal(snap),
        "shown": shown_state(snap, PROJECTOR),
    }


def _countdown(question: Question) -> dict | None:
    """The host's countdown of the open question: running, screens count down to ``ends_at``
    from ``server_time``; paused, they show ``paused_left`` and stand still."""
    if question.closed_at is not None:
        return None
    if question.countdown_paused_left is not None:
        return {"seconds": question.countdown_seconds,
                "paused_left": question.countdown_paused_left}
    if question.countdown_ends_at is not None:
        return {"seconds": question.countdown_seconds,
                "ends_at": _time(question.countdown_ends_at)}
    return None


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


def image_url(question: Question, screen: str) -> str | None:
    """Where ``screen`` fetches the question's image (``kingofhill.screens.image_for`` checks
    the same rule); the image's id makes a new picture a new URL."""
    if question.image_id is None:
        return None
    path = reverse("kingofhill:question_image", args=[question.koth_id, question.number, screen])
    return f"{path}?v={question.image_id}"


def shown_state(snap: Snapshot, screen: str) -> dict:
    """What ``screen`` (projector or phones) shows of the questions: the open one's text and
    image once its rule shows them; after a close, until the next announcement, the last
    closed one with its accepted answer and how many teams got it right."""
    current = snap.current
    out: dict = {"question": None, "after": None}
    if current is not None and current.announced_at is not None and current.closed_at is None:
        if current.shown_on(screen):
            out["question"] = {"number": current.number, "text": current.text,
                               "image": image_url(current, screen)}
        return out
    closed = [q for q in snap.questions if q.closed_at is not None]
    last = closed[-1] if closed else None
    if last is None or not last.shown_on(screen):
        return out
    counts = snap.board is not None and last.number <= len(snap.board.moves)
    out["after"] = {
        "number": last.number, "text": last.text, "image": image_url(last, screen),
        "answer_key": last.answer_key, "variants": list(last.variants or []),
        "correct": len(snap.board.moves[last.number - 1].correct) if counts else None,
        "total": len(snap.entries),
    }
    return out


def _answer_row(snap: Snapshot, answer: Answer) -> dict:
    return {"id": answer.pk, "team": snap.names.get(answer.application_id), "text": answer.text,
            "normalized": answer.normalized, "at": _time(answer.at), "verdict": answer.verdict}


def _keys(question: Question) -> set[str]:
    return rules.answer_keys(question.answer_key, question.variants)


def answer_groups(snap: Snapshot, question: Question) -> list[dict]:
    """Answers grouped by normalised text, or by the group the host merged that text into
    (``Question.merged``), biggest group first (then the earliest arrival)."""
    keys = _keys(question)
    merged = question.merged or {}
    groups: dict[str, dict] = {}
    for answer in sorted(question.answers.all(), key=lambda a: (a.at, a.pk)):
        if answer.application_id not in snap.names:
            continue
        key = rules.group_of(merged, answer.normalized)
        group = groups.setdefault(key, {
            "key": key, "texts": [], "teams": [], "answers": [], "forms": [],
            "matches_key": False, "verdicts": set(),
        })
        if answer.text not in group["texts"]:
            group["texts"].append(answer.text)
        if answer.normalized not in group["forms"]:
            group["forms"].append(answer.normalized)
            group["matches_key"] = group["matches_key"] or answer.normalized in keys
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


def group_suggestions(question: Question, groups: list[dict]) -> list[dict]:
    """The merges the console offers the host for the open question's groups (the pure
    ``rules.similar``, whose pairs are memoised: an answer compares only its new group), minus
    the pairs the host kept apart."""
    if question.phase != Question.Phase.ANSWERING or len(groups) < 2:
        return []
    found = rules.suggestions([g["key"] for g in groups], dismissed=question.kept_apart or [],
                              verdicts={g["key"]: g["verdict"] for g in groups},
                              forms={g["key"]: g["forms"] for g in groups})
    return [{"keys": list(s.keys), "reasons": list(s.reasons)} for s in found]


def _history(snap: Snapshot) -> list[dict]:
    """Every closed question with its answers, newest first: the same for every write until
    the board is recomputed, so built once per board."""
    if snap.derived.history is not None:
        return snap.derived.history
    closed = [q for q in snap.questions if q.closed_at is not None] + snap.voided
    history = [history_entry(snap, q) for q in reversed(closed)]
    snap.derived.history = history
    return history


def _appeals(snap: Snapshot) -> dict[int, list[dict]]:
    """The game's appeals by question number: they change only with ``AppealChanged``, which
    recomputes the board, so they are read once per board and kept with it."""
    if snap.derived.appeals is not None:
        return snap.derived.appeals
    appeals: dict[int, list[dict]] = {}
    for a in game_appeals(snap.koth):
        appeals.setdefault(a.question.number, []).append({
            "id": a.pk, "number": a.question.number, "team": a.application.team.name,
            "application": a.application_id, "text": a.text, "verdict": a.verdict,
            "status": a.status, "answer": a.answer, "at": _time(a.created_at),
            "decided_at": _time(a.decided_at)})
    snap.derived.appeals = appeals
    return appeals


def _appeal_window(snap: Snapshot) -> int | None:
    """The question a team may appeal now: the newest closed one, while the game runs
    (``kingofhill.appeals.appeal_file`` checks the same)."""
    if snap.koth.status != KothGame.Status.RUNNING:
        return None
    closed = [q.number for q in snap.questions if q.closed_at is not None]
    return max(closed) if closed else None


def history_entry(snap: Snapshot, q: Question) -> dict:
    counts = snap.board is not None and q.number <= len(snap.board.moves)
    move = snap.board.moves[q.number - 1] if counts else None
    return {
        "number": q.number, "partner": q.partner, "text": q.text, "counts": counts,
        "answer_key": q.answer_key,
        "ignored": dict(move.ignored) if move else {},
        "answers": [_answer_row(snap, a)
                    for a in sorted(q.answers.all(), key=lambda a: (a.at, a.pk))],
        "appeals": _appeals(snap).get(q.number, []),
    }


def host_open(snap: Snapshot) -> dict:
    """The host's view of the open question: its declarations, the answers' groups and what
    is left to judge, and what the console may do. These are the only fields of the host's
    view that an answer changes (``answers_states``)."""
    question = snap.current
    current = None
    declarations: list[dict] = []
    groups: list[dict] = []
    suggestions: list[dict] = []
    unanswered: list[str] = []
    if question is not None:
        current = {
            "number": question.number, "phase": question.phase, "text": question.text,
            "answer_key": question.answer_key, "variants": list(question.variants or []),
            "partner": question.partner, "announced_at": _time(question.announced_at),
            "closed_at": _time(question.closed_at), "note": question.note,
            "image": image_url(question, PROJECTOR),
            "show_projector": question.show_projector, "show_phones": question.show_phones,
        }
        for d in sorted(question.declarations.all(), key=lambda d: (d.at, d.pk)):
            reason = _declaration_status(snap, question, d)
            declarations.append({"team": snap.names.get(d.application_id), "kind": d.kind,
                                 "at": _time(d.at), "counts": reason is None,
                                 "reason": reason})
        groups = answer_groups(snap, question)
        suggestions = group_suggestions(question, groups)
        answered = {a.application_id for a in question.answers.all()}
        unanswered = [snap.names[a.pk] for a in snap.entries if a.pk not in answered]
    phase = question.phase if question is not None else None
    judged = all(g["verdict"] in (True, False) for g in groups)
    status = snap.koth.status
    return {
        "question": current,
        "declarations": declarations,
        "groups": groups,
        # Groups that are probably the same answer: each offered once, to merge or keep apart.
        "suggestions": suggestions,
        "answered": sum(g["count"] for g in groups),
        "total": len(snap.entries),
        "unanswered": unanswered,
        # Why "close" may be disabled: the answers still waiting for a verdict.
        "unjudged": sum(1 for a in question.answers.all()
                        if a.application_id in snap.names and a.verdict is None)
        if question is not None else 0,
        "can": {
            "start": status == KothGame.Status.SETUP and len(snap.entries) >= 2,
            "announce": status == KothGame.Status.RUNNING and phase == Question.Phase.DECLARING,
            "close": status == KothGame.Status.RUNNING and phase == Question.Phase.ANSWERING
            and judged,
            "countdown": status == KothGame.Status.RUNNING and phase == Question.Phase.ANSWERING,
            "reveal": any(q.closed_at is not None for q in snap.questions),
        },
    }


def host_state(snap: Snapshot, public: dict | None = None) -> dict:
    state = dict(public or public_state(snap))
    current = host_open(snap)
    can = current.pop("can")
    state["host"] = {
        **current,
        # Stored row by row (``Rows``): an answer rewrites the console's few changed fields,
        # not every closed question's answers.
        "history": Rows(_history(snap), by="number"),
        "bank": bank_summary(snap.koth),
        # Teams with at least one phone socket open, in registration order.
        "connected": connected_teams(snap.koth, snap.entries, snap.names),
        "challengers": list(rules.challengers(snap.board)) if snap.board is not None else [],
        "can": can,
        "revealed": state.get("reveal") is not None,
        # Waiting for the host's decision, oldest first; decided ones are in the history.
        "appeals": [a for number in sorted(_appeals(snap)) for a in _appeals(snap)[number]
                    if a["status"] == "open"],
        "screens": {PROJECTOR: snap.koth.show_projector, PHONES: snap.koth.show_phones},
    }
    return state


def _outcome(outcome: rules.Outcome) -> dict:
    # ``note`` is the engine's stable code ("" for none); the page shows its label.
    return {"step": outcome.step, "points": outcome.points, "note": outcome.code}


def _team_moves(snap: Snapshot) -> dict[str, list[dict]]:
    """Every closed question as each team played it, oldest first: its answer and verdict, the
    kind that counted (and why a declaration was ignored), step, points and the summit before
    and after. Only the closed questions go in, so it is built once per board."""
    if snap.derived.team_moves is not None:
        return snap.derived.team_moves
    moves: dict[str, list[dict]] = {name: [] for name in snap.names.values()}
    if snap.board is not None:
        closed = {q.number: q for q in snap.questions if q.closed_at is not None}
        before = None
        for move in snap.board.moves:
            for name, played in move_played(snap, move, before, closed.get(move.question)):
                moves.setdefault(name, []).append(played)
            before = move.snapshot
    snap.derived.team_moves = moves
    return moves


def move_played(snap: Snapshot, move: rules.MoveResult, before: rules.Snapshot | None,
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


def teams_public(snap: Snapshot, public: dict | None = None) -> dict:
    """What every team's state holds of the public state: the open question without the
    answer count and the phones' screen. Built once per write and shared by every team's state,
    so that each of its values is encoded and compared with the stored text once, not once per
    team (``live.store.compare_and_store`` goes by the values' identity)."""
    state = dict(public or public_state(snap))
    if state.get("question"):
        # Other teams' answers are not this team's news: they push nothing to it, so its
        # state does not count them either (one version, one state).
        state["question"] = {k: v for k, v in state["question"].items() if k != "answered"}
    state["shown"] = shown_state(snap, PHONES)
    return state


def team_state(snap: Snapshot, application_id: int, public: dict | None = None, *,
               common: dict | None = None) -> dict:
    """The public state plus this team's own view; never another team's answer. ``common``:
    ``teams_public`` of this snapshot, built once for all teams."""
    state = dict(common if common is not None else teams_public(snap, public))
    name = snap.names.get(application_id)
    me: dict = {"application": application_id, "team": name}
    if name is None:
        state["me"] = me
        return state
    me["colour"] = team_colour(snap.positions[application_id])
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
    # The team's appeals by question number (its own only), and the question it may appeal.
    me["appeals"] = {str(number): {k: a[k] for k in ("status", "text", "answer")}
                     for number, found in _appeals(snap).items()
                     for a in found if a["application"] == application_id}
    me["appeal_question"] = _appeal_window(snap)
    me["declaration"] = None
    me["answer"] = None
    if question is not None:
        for d in question.declarations.all():
            if d.application_id == application_id:
                reason = _declaration_status(snap, question, d)
                me["declaration"] = {"kind": d.kind, "at": _time(d.at),
                                     "counts": reason is None, "reason": reason}
        me["answer"] = my_answer(question, application_id)
    state["me"] = me
    return state


def my_answer(question: Question, application_id: int) -> dict | None:
    """The team's own answer to ``question`` as its phone shows it."""
    found = None
    for a in question.answers.all():
        if a.application_id == application_id:
            found = answer_view(question, a)
    return found


def answer_view(question: Question, a: Answer) -> dict:
    return {
        "text": a.text, "at": _time(a.at), "client_id": str(a.client_id),
        # The verdict is news only once the move is played.
        "verdict": a.verdict if question.closed_at is not None else None,
    }
