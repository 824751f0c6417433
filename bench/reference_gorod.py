"""The yardstick for ``manage.py replay`` of a GoRoD record: the level clock, rulings, totals
and places of ``docs/rules/gorod.md`` written again, straightforwardly, as plain loops over the
parsed JSON record with datetimes — no caches, no instants in microseconds, no project
imports, no checks of the input (it reads only valid records).

``make bench`` times the engine against it (the engine must be at least as fast), and
``tests/core/test_bench_references.py`` holds its output byte for byte equal to the command's
on the bench's records and on every example, which cross-checks the engine as well.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import orjson

SECOND = timedelta(seconds=1)
CLOSING = ("code", "sliv", "force_majeure")
RULINGS = ("penalty", "bonus", "average_time", "disqualify", "sliv", "force_majeure")
LEVEL_RULINGS = ("average_time", "sliv", "force_majeure")


def minutes(value) -> timedelta:
    # To the microsecond, rounded as the record's minutes are everywhere.
    return timedelta(microseconds=round(value * 60_000_000))


def setting(record, key, default):
    value = record.get(key)
    return default if value is None else value


def when(text):
    return None if text is None else datetime.fromisoformat(text)


def replay(record: dict) -> dict:
    """The replay contract's output (``docs/spec/record-format.md``) for a valid record."""
    start = when(record["start"])
    zone = start.tzinfo
    levels = {level["id"]: minutes(setting(level, "duration_min", 70))
              for level in record["levels"]}
    teams = record["teams"]
    routes = record.get("routes") or {}
    offsets = [minutes(m) for m in setting(record, "hint_offsets_min", [25, 50])]
    sliv_s = setting(record, "sliv_penalty_min", 15) * 60
    hours = setting(record, "max_duration_h", 24)
    cap = start + timedelta(microseconds=round(hours * 3_600_000_000))
    end, now = when(record.get("end")), when(record.get("now"))
    game_end = end or cap
    horizon = game_end if now is None else min(now, game_end)

    events = {team: [] for team in teams}
    pauses = []
    for event in record.get("events") or []:
        if event["type"] == "pause":
            pauses.append(event)
        else:
            events[event["team"]].append(event)

    # Each team's timeline: (level, received, fail, closed or None, outcome, timeout, paused,
    # the stops of its clock while on it).
    played = {team: play(team, events[team], pauses, routes.get(team, list(levels)), levels,
                         start, horizon) for team in teams}
    all_finished = all(len(played[t]) == len(levels) and played[t][-1][3] is not None
                       for t in teams)
    game_over = now is None or now >= game_end or all_finished

    # Every team's time on each level it closed, for average-time rulings.
    sums = {level: [0.0, 0] for level in levels}
    for rows in played.values():
        for level, r, _fail, close, _outcome, timeout, paused, _stops in rows:
            if close is not None:
                sums[level][0] += (close - r - timeout - paused) / SECOND
                sums[level][1] += 1

    results = []
    for reg, team in enumerate(teams):
        results.append(team_result(team, reg, events[team], played[team], offsets, sums,
                                   sliv_s, len(levels), start, horizon, game_over, now, cap,
                                   zone))
    placed = sorted((t for t in results if t["key"] is not None), key=lambda t: t["key"])
    for place, t in enumerate(placed, start=1):
        t["out"]["place"] = place
    standings = placed + [t for t in results if t["key"] is None]

    ends = []
    if all_finished:
        ends.append((max(rows[-1][3] for rows in played.values()), "all_finished"))
    if end is not None:
        ends.append((end, "organizer"))
    elif now is None or now >= cap:
        ends.append((cap, "cap"))
    ended, reason = min(ends) if game_over and ends else (None, None)
    deadlines = [t["deadline"] for t in results if t["deadline"] is not None]
    return {
        "format": "gorod",
        "finished": game_over,
        "ended_at": iso(ended, zone),
        "end_reason": reason,
        "finished_share": sum(t["out"]["finished_at"] is not None for t in results) / len(teams),
        "protests_until": None if ended is None else iso(ended + timedelta(hours=12), zone),
        "final_by": None if ended is None else iso(ended + timedelta(hours=72), zone),
        "next_deadline": iso(min(deadlines), zone) if deadlines else None,
        "teams": [t["out"] for t in standings],
    }


def play(team, events, pauses, route, levels, start, horizon):
    """Walk the team's route with the level clock up to ``horizon``."""
    closings = {e["level"]: e for e in events if e["type"] in CLOSING}
    timeout = next((e for e in events if e["type"] == "timeout"), None)
    stops = sorted(pauses + ([timeout] if timeout else []), key=lambda e: when(e["at"]))
    rows = []
    r = start
    for level in route:
        if r > horizon:
            break
        fail = r + levels[level]
        event = closings.get(level)
        closes_at = None if event is None else when(event["at"])
        timeout_length, paused, applied = timedelta(0), timedelta(0), []
        for stop in stops:
            # A stop belongs to the level the team is on when it starts.
            at = when(stop["at"])
            if at < r:
                continue
            if at >= fail or (closes_at is not None and closes_at <= at):
                break
            length = minutes(stop["minutes"])
            fail += length
            applied.append((at, length))
            if stop is timeout:
                timeout_length = length
            else:
                paused += length
        if event is not None:
            close, outcome = closes_at, event["type"]
        else:
            close, outcome = fail, "auto_sliv"
        if close > horizon:
            rows.append((level, r, fail, None, None, timeout_length, paused, applied))
            break
        rows.append((level, r, fail, close, outcome, timeout_length, paused, applied))
        r = close
    return rows


def hint_time(r, offset, stops):
    """A hint appears ``offset`` after receipt, later by every stop that began before it."""
    h = r + offset
    for at, length in stops:
        if h > at:
            h += length
    return h


def team_result(team, reg, events, rows, offsets, sums, sliv_s, n_levels, start, horizon,
                game_over, now, cap, zone):
    averaged = {e["level"] for e in events if e["type"] == "average_time"}
    disqualified = any(e["type"] == "disqualify" for e in events)
    penalty_s = sum(e["minutes"] for e in events if e["type"] == "penalty") * 60.0
    bonus_s = sum(e["minutes"] for e in events if e["type"] == "bonus") * 60.0
    timeout = next((e for e in events if e["type"] == "timeout"), None)

    levels_out, failed = [], []
    adjust = 0.0
    stopped = timedelta(0)  # timeouts and pauses on closed levels
    last_close = start
    closed = 0
    for level, r, fail, close, outcome, timeout_length, paused, stops in rows:
        hints = [hint_time(r, offset, stops) for offset in offsets]
        average = None
        if close is not None:
            listed = [h for h in hints if h < close]
            shown = len(listed)
            duration = (close - r - timeout_length - paused) / SECOND
            closed += 1
            last_close = close
            stopped += timeout_length + paused
            if outcome in ("sliv", "auto_sliv"):
                failed.append(level)
            if level in averaged and sums[level][1] > 1:
                average = (sums[level][0] - duration) / (sums[level][1] - 1)
                adjust += average - duration
        else:
            shown = len([h for h in hints if h <= horizon and h < fail])
            listed = [h for h in hints if h < horizon] if game_over else hints
            duration = None
        levels_out.append({
            "level": level, "received_at": iso(r, zone),
            "hints_at": [iso(h, zone) for h in listed], "hints_shown": shown,
            "fail_at": iso(fail, zone), "closed_at": iso(close, zone), "outcome": outcome,
            "duration_s": duration, "timeout_s": timeout_length / SECOND, "average_s": average})

    finished = closed == n_levels
    total = ((last_close - start - stopped) / SECOND + sliv_s * len(failed) + penalty_s
             - bonus_s + adjust)
    if disqualified:
        status = "disqualified"
    elif finished:
        status = "finished"
    elif game_over:
        status = "stopped"
    else:
        status = "playing"

    open_row = rows[-1] if rows and rows[-1][3] is None else None
    deadline = None
    if now is not None and not game_over:
        if not rows and now < start:
            deadline = start
        elif open_row is not None:
            level, r, fail, _close, _outcome, _timeout, _paused, stops = open_row
            # The next moment the team's screen changes by the clock alone: a hint, the
            # level's fail time, the end of a timeout or pause; never past the cap.
            candidates = [fail]
            for offset in offsets:
                h = hint_time(r, offset, stops)
                if now < h < fail:
                    candidates.append(h)
            for at, length in stops:
                if now < at + length:
                    candidates.append(at + length)
            deadline = min(min(c for c in candidates if c > now), cap)

    if disqualified:
        key = None
    elif finished:
        key = (0, total, last_close, reg)
    else:
        key = (1, -closed, total, reg)
    out = {
        "team": team, "place": None, "status": status, "levels_closed": closed,
        "slivs": len(failed), "finished_at": iso(last_close, zone) if finished else None,
        "total_s": total, "penalty_s": penalty_s, "bonus_s": bonus_s,
        "timeout_s": 0.0 if timeout is None else timeout["minutes"] * 60.0,
        "timeout_at": None if timeout is None else when(timeout["at"]).isoformat(),
        "average_adjust_s": adjust, "failed_levels": failed,
        "current_level": open_row[0] if open_row is not None and not game_over else None,
        "next_deadline": iso(deadline, zone),
        "rulings": [{"type": e["type"],
                     "minutes": e.get("minutes") if e["type"] in ("penalty", "bonus") else None,
                     "level": e["level"] if e["type"] in LEVEL_RULINGS else None,
                     "at": None if e.get("at") is None else when(e["at"]).isoformat(),
                     "reason": e.get("reason"), "by": e.get("by")}
                    for e in events if e["type"] in RULINGS],
        "levels": levels_out,
    }
    return {"key": key, "deadline": deadline, "out": out}


def iso(moment, zone):
    return None if moment is None else moment.astimezone(zone).isoformat()


def run(path: str) -> bytes:
    """What ``manage.py replay PATH`` prints (without its final newline): the file read, the
    record parsed, replayed, and written as indented UTF-8 JSON with the command's encoder."""
    with open(path, encoding="utf-8") as handle:
        record = json.loads(handle.read())
    return orjson.dumps(replay(record), option=orjson.OPT_INDENT_2)
