"""GoRoD's states: what each audience (public, organizer, each team) is shown, rendered from
what ``gorod.settle`` computed and settled (the live core's ``build``, ``live.write``), and what
the reads (``gorod.selectors``) give. Nothing here writes; no state carries the current time,
so a state changes only at an event or at a deadline of the engine's."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse

from gorod import reads, realtime, rules
from gorod.codes import CodeSpecError
from gorod.models import CodeAttempt, GorodGame, Level, PhotoProof, TimeoutRequest
from gorod.selectors import (
    ATTEMPTS_LOG,
    Setup,
    Snapshot,
    TeamData,
    all_pauses,
    all_photos,
    all_rulings,
    all_timeout_requests,
    attempt_log,
    averages_in_force,
    iso,
    joined_data,
    last_attempts,
    one_team_data,
    photo_closed,
    setup,
    team_data,
)
from gorod.settle import Attempts, Deadline, Moved, Noted, Settled, Watch, Whole
from live import delta
from live.codec import encode
from live.messages import PUBLIC, team_audience
from live.rows import Rows
from live.store import Parts, stored_texts
from live.write import Write


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, rules.Ruling):
        return {"type": value.type, "minutes": value.minutes, "level": value.level,
                "at": iso(value.at), "reason": value.reason, "by": value.by}
    return value


def mark_photos(row: dict, level_ids, application: int | None,
                photos: set[tuple[int, str]]) -> dict:
    """A statistics row (``rules.statistics_row``, plain; its cells in ``level_ids`` order)
    with its photo-closed levels' outcome "photo" instead of "code"."""
    for label, cell in zip(level_ids, row["cells"], strict=True):
        if cell and cell["outcome"] == "code" and (application, label) in photos:
            cell["outcome"] = cell["how"] = "photo"
    return row


def statistics_table(results) -> dict:
    """The engine's statistics table (``rules.statistics_table`` of ``rules.compute``'s
    results) as the screens carry it: moments as the club's local ISO text. What a replay of the
    game's record gives, before the live part adds each row's application and photo outcomes."""
    return _plain(rules.statistics_table(results))


def statistics(snap: Snapshot) -> dict | None:
    if snap.results is None:
        return None
    table = statistics_table(snap.results)
    ids = {name: pk for pk, name in snap.names.items()}
    photos = photo_closed(snap.gorod.pk, snap.levels)
    for row in table["rows"]:
        row["application"] = ids.get(row["team"])
        mark_photos(row, snap.results.level_ids, row["application"], photos)
    table["rows"] = Rows(table["rows"], by="application")
    return table


def game_info(snap: Snapshot) -> dict:
    gg = snap.gorod
    results = snap.results
    return {
        "id": gg.pk, "title": gg.game.title, "status": gg.status,
        "started_at": iso(gg.started_at), "ended_at": iso(gg.ended_at),
        # Since when the whole game is paused (every screen says so), or None.
        "paused_since": iso(gg.paused_at),
        "levels": len(snap.levels), "teams": len(snap.entries),
        "finished_share": results.finished_share if results else 0.0,
    }


def leaderboard(snap: Snapshot) -> list[dict] | None:
    """The live public standings when the organizer switched them on: per team its place, the
    levels it closed and its time so far (the engine's total, which moves only at an event of
    its own), never a code."""
    if not snap.gorod.leaderboard_public or snap.results is None:
        return None
    return [{"place": t.place, "team": t.team, "levels_closed": t.levels_closed,
             "time_s": t.total_s, "status": t.status} for t in snap.results.teams]


def public_state(snap: Snapshot) -> dict:
    over = snap.gorod.status == GorodGame.Status.FINISHED
    return {"game": game_info(snap), "statistics": statistics(snap) if over else None,
            "leaderboard": leaderboard(snap)}


def _attempt(a: CodeAttempt, names: dict[int, str], labels: dict[int, str]) -> dict:
    """An attempt on the organizer's log."""
    return {"id": a.pk, "team": names.get(a.application_id), "application": a.application_id,
            **_attempt_fields(a, labels)}


def _attempt_fields(a: CodeAttempt, labels: dict[int, str]) -> dict:
    """An attempt's own fields (a team's phones list them after its id)."""
    return {"level": labels.get(a.level_id), "text": a.text, "at": iso(a.at),
            "verdict": a.verdict, "sector": a.sector or None, "closed": a.closes_level}


def _team_row(snap: Snapshot, application_id: int, last: CodeAttempt | None,
              labels: dict[int, str]) -> dict:
    """A team on the organizer's list: its level, since when, its next deadline, its last
    attempt (the screen counts the time on the level from ``received_at``)."""
    name = snap.names.get(application_id)
    result = snap.by_name.get(name)
    open_level = result.levels[-1] if result and result.current_level is not None else None
    return {
        "application": application_id, "name": name,
        "status": result.status if result else None,
        "current_level": result.current_level if result else None,
        "level_number": len(result.levels) if open_level else None,
        "received_at": iso(open_level.received_at) if open_level else None,
        "next_deadline": iso(result.next_deadline) if open_level else None,
        "levels_closed": result.levels_closed if result else 0,
        "last_attempt": None if last is None else {
            "at": iso(last.at), "text": last.text, "verdict": last.verdict,
            "level": labels.get(last.level_id)},
    }


def _organizer_live(snap: Snapshot) -> dict:
    """The organizer's fields every code changes: the moment and the attempt log (the code's
    team's row on the team list is replaced by ``_attempt_states``)."""
    gg = snap.gorod
    labels = {lv.pk: lv.label for lv in snap.levels}
    log = attempt_log(gg)
    return {
        # The moment the live statistics hold for (the last write or deadline; a finished
        # game's are final as of its end): the organizer's state changes at every write
        # anyway, the public and team states never carry the time.
        "as_of": iso(gg.ended_at if gg.status == GorodGame.Status.FINISHED else snap.now),
        "attempts": Rows([_attempt(a, snap.names, labels) for a in log], by="id"),
    }


def safety_alarms(snap: Snapshot, watch: tuple[Watch, ...],
                  last: dict[int, CodeAttempt]) -> list[dict]:
    """The organizer's alarms: the teams whose check-in on a dangerous level is overdue, the
    longest overdue first, each with its last sign of life (its last code, its last check-in)."""
    alarms = []
    for x in sorted((x for x in watch if x.overdue), key=lambda x: x.due_at):
        attempt = last.get(x.application)
        alarms.append({"application": x.application, "team": snap.names.get(x.application),
                       "level": x.level, "level_number": _level_number(snap, x.application),
                       "overdue_since": iso(x.due_at), "received_at": iso(x.received_at),
                       "last_checkin": iso(x.last_checkin),
                       "last_attempt": iso(attempt.at) if attempt else None})
    return alarms


def _level_number(snap: Snapshot, application_id: int) -> int | None:
    result = snap.by_name.get(snap.names.get(application_id))
    return len(result.levels) if result and result.current_level is not None else None


def team_safety(snap: Snapshot, application_id: int, watch: tuple[Watch, ...]) -> dict | None:
    """A team's check-in on its dangerous level, for its phone's "all fine" button: when the
    next is due and whether it is overdue; None when none is asked."""
    mine = next((x for x in watch if x.application == application_id), None)
    if mine is None:
        return None
    return {"level": mine.level, "every_min": snap.gorod.checkin_every_min,
            "due_at": iso(mine.due_at), "overdue": mine.overdue,
            "last_checkin": iso(mine.last_checkin)}


def organizer_state(snap: Snapshot, notes: list[reads.MessageRow] | None = None,
                    watch: tuple[Watch, ...] = ()) -> dict:
    gg = snap.gorod
    names = snap.names
    labels = {lv.pk: lv.label for lv in snap.levels}
    listed = all_rulings(gg)
    live = _organizer_live(snap)
    last = last_attempts(gg)
    return {
        **public_state(snap),
        "alarms": safety_alarms(snap, watch, last),
        "statistics": statistics(snap),
        "as_of": live["as_of"],
        # The clock's next deadline as settled (none while the game is paused).
        "next_deadline": iso(gg.next_deadline) if snap.results else None,
        "settings": {"hint_offsets_min": gg.hint_offsets_min,
                     "sliv_penalty_min": gg.sliv_penalty_min,
                     "max_duration_h": gg.max_duration_h, "max_wrong": gg.max_wrong,
                     "wrong_window_s": gg.wrong_window_s,
                     "checkin_every_min": gg.checkin_every_min},
        "teams": Rows([_team_row(snap, a.pk, last.get(a.pk), labels) for a in snap.entries],
                      by="application"),
        "end_rule": {"share": rules.END_SHARE,
                     "allowed": bool(snap.results and snap.results.end_allowed)},
        "level_list": [{"label": lv.label, "order": lv.order, "duration_min": lv.duration_min}
                       for lv in snap.levels],
        "attempts": live["attempts"],
        "rulings": [{"id": r.pk, "team": names.get(r.application_id), "type": r.type,
                     "minutes": r.minutes, "level": labels.get(r.level_id), "at": iso(r.at),
                     "reason": r.reason, "by": r.by.get_username() if r.by else None,
                     "created_at": iso(r.created_at), "application": r.application_id,
                     "undone_at": iso(r.undone_at), "history": r.history or []}
                    for r in listed],
        "timeout_requests": [_timeout_request(t, names) for t in all_timeout_requests(gg)],
        "photos": [_photo(p, names, labels) for p in all_photos(gg)],
        "messages": organizer_messages(reads.messages(gg.pk) if notes is None else notes,
                                       names),
        "pauses": [{"started_at": iso(p.started_at), "ended_at": iso(p.ended_at),
                    "reason": p.reason,
                    "by": p.started_by.get_username() if p.started_by else None,
                    "resumed_by": p.ended_by.get_username() if p.ended_by else None}
                   for p in all_pauses(gg)],
    }


def organizer_messages(notes: list[reads.MessageRow], names: dict[int, str]) -> Rows:
    """The messages and bonus hints sent, the latest first, each with the teams it reached
    (in the game's order) and which of their phones have shown it."""
    order = {pk: i for i, pk in enumerate(names)}
    listed = []
    for note in reversed(notes):
        teams = sorted(note.receipts, key=lambda pk: order.get(pk, len(order)))
        listed.append({
            "id": note.pk, "kind": note.kind, "audience": note.audience, "level": note.level,
            "application": note.application_id, "team": names.get(note.application_id),
            "later": note.later, "text": note.text, "at": iso(note.sent_at), "by": note.by,
            # By application id (the team list names them): a message to all of 200 teams
            # stays a small row, and a phone's "seen" adds one key to it.
            "reached": teams,
            "seen_by": {str(pk): iso(note.receipts[pk]) for pk in teams
                        if note.receipts[pk] is not None},
            "seen": sum(1 for pk in teams if note.receipts[pk] is not None), "of": len(teams)})
    # Row by row: a phone's "seen" rewrites its message's row alone.
    return Rows(listed, by="id")


def team_messages(notes: list[reads.MessageRow], application_id: int) -> dict:
    """A team's messages (the latest first; its bonus hints are shown with their level,
    ``team_me``) and the ids of those and of the bonus hints its phones have shown."""
    return {"items": [{"id": note.pk, "text": note.text, "at": iso(note.sent_at)}
                      for note in reversed(notes)
                      if not note.bonus and application_id in note.receipts],
            "seen": sorted(note.pk for note in notes
                           if note.receipts.get(application_id) is not None)}


def bonus_hints(known: Setup, level: str, application_id: int) -> list[dict]:
    """The bonus hints of the level a team is on: those that reached it when sent, and those
    sent for the teams that reach the level later too (from the set-up cache: a code that
    brings a team to a level reads nothing more)."""
    return [{"id": note.pk, "text": note.text, "at": iso(note.sent_at)}
            for note in known.bonus.get(level, ())
            if note.later or application_id in note.receipts]


def _timeout_request(t: TimeoutRequest, names: dict[int, str]) -> dict:
    return {"id": t.pk, "team": names.get(t.application_id), "application": t.application_id,
            "minutes": t.minutes, "reason": t.reason, "asked_at": iso(t.asked_at),
            "status": t.status, "decided_at": iso(t.decided_at), "answer": t.answer,
            "by": t.decided_by.get_username() if t.decided_by else None}


def _photo(p: PhotoProof, names: dict[int, str], labels: dict[int, str]) -> dict:
    return {"id": p.pk, "team": names.get(p.application_id), "application": p.application_id,
            "level": labels.get(p.level_id), "uploaded_at": iso(p.uploaded_at),
            "status": p.status, "answer": p.answer, "decided_at": iso(p.decided_at),
            "by": p.decided_by.get_username() if p.decided_by else None,
            "url": reverse("gorod:photo", args=[p.gorod_id, p.pk])}


def sectors(level: Level, found: set[str], known: Setup) -> list[dict]:
    try:
        spec = known.spec(level)
    except CodeSpecError:  # pragma: no cover - checked when the level is stored
        return []
    return [{"name": s.name, "found": s.name in found} for s in spec.sectors]


def team_state(snap: Snapshot, application_id: int, data: TeamData | None = None,
               public: dict | None = None, notes: list[reads.MessageRow] | None = None,
               watch: tuple[Watch, ...] = ()) -> dict:
    """What one team's phones see: its level, hints, deadlines and its own attempts only, the
    organizer's messages to it, and its safety check-in on a dangerous level."""
    state = dict(public or public_state(snap))
    state["me"] = team_me(snap, application_id, data)
    state["safety"] = team_safety(snap, application_id, watch)
    state["messages"] = team_messages(
        reads.messages(snap.gorod.pk) if notes is None else notes, application_id)
    return state


def team_me(snap: Snapshot, application_id: int, data: TeamData | None = None) -> dict:
    """The team's own part of its phones' state (``me``): the rest is the public state."""
    data = data or team_data(snap.gorod)
    name = snap.names.get(application_id)
    me: dict[str, Any] = {"application": application_id, "team": name, "status": None,
                          "level": None, "history": [], "attempts": []}
    result = snap.by_name.get(name) if name else None
    if result is None:
        return me
    labels = {lv.pk: lv.label for lv in snap.levels}
    over = snap.results.game_over
    done = over or result.status == "finished"
    # [decision] The team's own penalties, bonuses and failed levels are shown live (they change
    # only at an event of its own); its total once it is fixed (its finish or the end); its
    # place only at the end: before, it depends on teams still playing.
    me.update(status=result.status, levels_closed=result.levels_closed,
              finished_at=iso(result.finished_at),
              failed_levels=result.slivs,
              failed_penalty_s=result.slivs * snap.gorod.sliv_penalty_min * 60.0,
              penalty_s=result.penalty_s, bonus_s=result.bonus_s,
              timeout_s=result.timeout_s, average_adjust_s=result.average_adjust_s,
              place=result.place if over else None, total_s=result.total_s if done else None,
              teams=len(snap.entries) if over else None)
    asked = data.timeout_requests.get(application_id)
    me["timeout_request"] = None if asked is None else {
        "minutes": asked.minutes, "reason": asked.reason, "status": asked.status,
        "asked_at": iso(asked.asked_at), "answer": asked.answer}
    me["timeout_taken"] = result.timeout_at is not None
    photos = photo_closed(snap.gorod.pk, snap.levels, [application_id])
    for number, lr in enumerate(result.levels, start=1):
        if lr.closed_at is not None:
            photo = lr.outcome == "code" and (application_id, lr.level) in photos
            me["history"].append({"number": number, "level": lr.level,
                                  "received_at": iso(lr.received_at),
                                  "closed_at": iso(lr.closed_at),
                                  "outcome": "photo" if photo else lr.outcome,
                                  "how": lr.how, "duration_s": lr.duration_s,
                                  "hints_shown": lr.hints_shown})
    if result.current_level is not None:
        lr = result.levels[-1]
        level = snap.level(result.current_level)
        known = setup(snap.gorod)
        shown = lr.hints_shown
        upcoming = [h for h in lr.hints_at[shown:] if h < lr.fail_at]
        timeout_until = iso(rules.timeout_until(result, snap.now))
        me["level"] = {
            "number": len(result.levels), "of": len(snap.levels), "label": lr.level,
            "task": level.task, "received_at": iso(lr.received_at),
            "hints": [{"n": i + 1, "text": level.hint_text(i), "at": iso(lr.hints_at[i])}
                      for i in range(shown)],
            "next_hint_at": iso(upcoming[0]) if upcoming else None,
            "fail_at": iso(lr.fail_at), "timeout_until": timeout_until,
            "bonus_hints": bonus_hints(known, lr.level, application_id),
            "sectors": sectors(level, data.found.get((application_id, level.pk), set()), known),
            "danger": level.danger,
            "danger_text": level.get_danger_display() if level.danger else None,
            "images": [reverse("gorod:team_image", args=[snap.gorod.pk, level.label, name])
                       for name in level.images or []],
            "photo_proof": level.photo_proof,
            "photos": [{"status": p.status, "uploaded_at": iso(p.uploaded_at), "answer": p.answer}
                       for p in data.photos.get((application_id, level.pk), [])[:3]],
        }
    me["attempts"] = [{"id": a.pk, **_attempt_fields(a, labels)}
                      for a in data.recent.get(application_id, [])]
    return me


def _row_changes(before: dict[int, dict], rows) -> dict[str, dict]:
    """A row patch's changes (``live.delta``): each of ``rows`` as what changed since the
    stored row of its team in ``before`` (the whole row for a new one; nothing if none)."""
    changes = {}
    for row in rows:
        old = before.get(row["application"])
        change = {"=": row} if old is None else delta.diff(old, row)
        if change is not None:
            changes[str(row["application"])] = change
    return changes


def _log_patch(log: list[dict], attempts: list[CodeAttempt]) -> dict:
    """The attempt log's push: its new order and the new lines (those still on it)."""
    new = {attempt.pk for attempt in attempts}
    return {"k": "id", "o": [a["id"] for a in log],
            "c": {str(a["id"]): {"=": a} for a in log if a["id"] in new}}


def _with_attempt(log: list[dict], attempt: CodeAttempt, snap: Snapshot,
                  labels: dict[int, str]) -> list[dict]:
    """The organizer's attempt log with a new attempt on top (it is the newest: its moment was
    taken under the game's lock)."""
    return Rows([_attempt(attempt, snap.names, labels), *log][:ATTEMPTS_LOG], by="id")


def _reranked(rows: list[dict], team_order: list[int]) -> list[dict]:
    """Stored statistics rows in standings order with their places, as ``rules.rank`` places
    the results they show (registration: the team's index in the game's frozen order)."""
    registration = {pk: i for i, pk in enumerate(team_order)}

    def key(row: dict):
        finished = row["finished_at"]
        return rules.standing_key(row["status"],
                                  datetime.fromisoformat(finished) if finished else None,
                                  row["total_s"], row["levels_closed"],
                                  registration.get(row["application"], len(registration)))

    ordered = rules.placed_in_order(
        rows, key, lambda row: registration.get(row["application"], len(registration)))
    # New rows only where the place moved: the others are the stored (shared) values.
    return [row if row.get("place") == place else {**row, "place": place}
            for row, place in ordered]


def build_states(w: Write, settled: Settled) -> dict[str, dict]:
    """The live core's build for GoRoD: the states of the audiences the write can change, by
    the path ``gorod.settle.settle`` took; every audience whole (``Whole``), or only the keys
    the write changed (``Parts``) of the audiences it touched."""
    match settled:
        case Whole():
            return _whole_states(w, settled)
        case Attempts():
            return _attempt_states(w, settled)
        case Moved():
            return _moved_states(w, settled)
        case Noted():
            return _noted_states(w, settled)
        case Deadline():
            # Only the moment and the next deadline move.
            return {realtime.ORGANIZER: Parts(as_of=iso(w.now),
                                              next_deadline=iso(w.game.next_deadline))}
        case _:
            raise TypeError(f"GoRoD renders no {type(settled).__name__}: {settled!r}")


def _whole_states(w: Write, whole: Whole) -> dict[str, dict]:
    """Every audience's state from a computation of the game; for a write about one team
    (``whole.team``) the other teams' views only when the public state changed."""
    gg, snap, team_id = w.game, whole.snapshot, whole.team
    public = public_state(snap)
    notes = reads.messages(gg.pk)  # the organizer's list and the teams' own: one read
    states = {PUBLIC: public, realtime.ORGANIZER: organizer_state(snap, notes, whole.watch)}
    teams = [entry.pk for entry in snap.entries]
    # An average-time ruling credits its team from the others' times: then every view moves.
    if team_id is not None and whole.running and not averages_in_force(gg):
        stored = stored_texts(gg.pk, [PUBLIC])
        if stored.get(PUBLIC) == encode(public):
            teams = [team_id]
    data = team_data(gg, only=team_id if teams == [team_id] else None)
    for pk in teams:
        states[team_audience(pk)] = team_state(snap, pk, data, public, notes, whole.watch)
    return states


def _noted_states(w: Write, noted: Noted) -> dict[str, dict]:
    """A message sent or seen: the organizer's list and the teams' own (``Parts``); for a bonus
    hint also their part, now showing it under their level's hints."""
    gg = w.game
    notes = reads.messages(gg.pk)
    states: dict[str, dict] = {
        realtime.ORGANIZER: Parts(messages=organizer_messages(notes, setup(gg).names))}
    data = team_data(gg, only=list(noted.teams)) if noted.snapshot and noted.teams else None
    for pk in noted.teams:
        parts = Parts(messages=team_messages(notes, pk))
        if data is not None:
            parts["me"] = team_me(noted.snapshot, pk, data)
        states[team_audience(pk)] = parts
    return states


def _attempt_states(w: Write, settled: Attempts) -> dict[str, dict]:
    """The states codes that closed no level change (one code, or a batch's): each code's
    team's own part and the organizer's attempt log (the new attempts on top) and those teams'
    rows on the team list (``Parts``: the statistics and the rest are not read)."""
    codes, organizer = settled.codes, settled.organizer
    latest = {x.team: x for x in codes}  # each team's last code saw its earlier ones
    snap: Snapshot = codes[-1].snapshot
    labels = {lv.pk: lv.label for lv in snap.levels}
    rows, mine = {}, {}
    for pk, x in latest.items():
        data = team_data(w.game, only=pk, team_rows=x.rows)
        recent = data.recent.get(pk) or []
        rows[pk] = _team_row(x.snapshot, pk, recent[0] if recent else None, labels)
        mine[team_audience(pk)] = Parts(me=team_me(x.snapshot, pk, data))
    attempts = [x.attempt for x in codes]
    log = organizer["attempts"]
    for attempt in attempts:
        log = _with_attempt(log, attempt, snap, labels)
    teams = Rows([rows.get(t["application"], t) for t in organizer["teams"]], by="application")
    parts = {"as_of": iso(w.now), "attempts": Rows(log, by="id"), "teams": teams}
    # The pushes of the two lists, known here: the log's new order and its new lines, the team
    # list's changed rows (``live.delta``'s row patches), rather than diffs of both.
    patches = {"teams": {"k": "application", "o": [t["application"] for t in teams],
                         "c": _row_changes({t["application"]: t for t in organizer["teams"]},
                                           rows.values())}}
    if attempts:
        patches["attempts"] = _log_patch(parts["attempts"], attempts)
    return {realtime.ORGANIZER: Parts(parts, patches=patches), **mine}


def _moved_states(w: Write, moved: Moved) -> dict[str, dict]:
    """The states of teams that moved on (``Moved``): the organizer's statistics (the stored
    table with the moved teams' rows replaced and re-ranked, ``rules.standing_key``), team
    rows, attempt log and next deadline, and those teams' own part."""
    gg, snap, due, organizer = w.game, moved.snapshot, moved.due, moved.organizer
    rest = list(moved.rest)
    data = joined_data([one_team_data(moved.rows_of[pk]) for pk in sorted(due)
                        if pk in moved.rows_of]
                       + ([team_data(gg, only=rest[0] if len(rest) == 1 else rest)]
                          if rest else []))
    labels = {lv.pk: lv.label for lv in snap.levels}
    fresh = {}
    for pk in due:
        recent = data.recent.get(pk) or []
        fresh[pk] = _team_row(snap, pk, recent[0] if recent else None, labels)
    rows = [fresh.get(row["application"], row) for row in organizer["teams"]]
    table = organizer["statistics"]
    new_rows = {}
    closed_by_photo = photo_closed(gg.pk, snap.levels, due)
    for pk in due:
        row = _plain(rules.statistics_row(snap.by_name[snap.names[pk]], snap.results.level_ids))
        row["application"] = pk
        mark_photos(row, snap.results.level_ids, pk, closed_by_photo)
        new_rows[pk] = row
    before = {row["application"]: row for row in table["rows"]}
    table = {**table, "rows": Rows(_reranked([new_rows.get(r["application"], r)
                                              for r in table["rows"]], gg.team_order),
                                   by="application")}
    # The push of the table: its new order, what changed in the moved-on teams' rows and the
    # others' new places (``live.delta``'s row patch), built here rather than by diffing two
    # 400-KiB tables: a batch of closing codes stays a small push.
    changed_rows = _row_changes(before, [row for row in table["rows"]
                                         if row["application"] in new_rows])
    changed_rows.update({str(row["application"]): {"d": {"place": {"=": row["place"]}}}
                         for row in table["rows"] if row["application"] not in new_rows
                         and before[row["application"]]["place"] != row["place"]})
    statistics_patch = {"d": {"rows": {"k": "application",
                                       "o": [row["application"] for row in table["rows"]],
                                       "c": changed_rows}}}
    parts = {"as_of": iso(w.now), "statistics": table, "teams": Rows(rows, by="application"),
             "next_deadline": iso(gg.next_deadline)}
    # The team list's and the log's pushes are known here too: the moved-on teams' rows, the
    # new lines on top.
    patches = {"statistics": statistics_patch,
               "teams": {"k": "application", "o": [row["application"] for row in rows],
                         "c": _row_changes({row["application"]: row
                                            for row in organizer["teams"]}, fresh.values())}}
    if moved.attempts:
        log = organizer["attempts"]
        for attempt in moved.attempts:
            log = _with_attempt(log, attempt, snap, labels)
        parts["attempts"] = log
        patches["attempts"] = _log_patch(log, moved.attempts)
    states: dict[str, dict] = {realtime.ORGANIZER: Parts(parts, patches=patches)}
    for pk in due:
        states[team_audience(pk)] = Parts(me=team_me(snap, pk, data))
    return states
