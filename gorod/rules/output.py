"""What the screens and the replay write: the statistics table and the contract's replay
output (``docs/spec/record-format.md``), with the fast ISO writer for its many moments.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from collections.abc import Callable

from core.deadlines import final_due, protest_deadline
from core.records import format_time
from gorod.rules.engine import share_finished, standings_at
from gorod.rules.instants import from_us, iso_writer
from gorod.rules.record import parse_record

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from gorod.rules.engine import Results, TeamResult, Times


# --------------------------------------------------------------------------------------------
# Statistics and replay
# --------------------------------------------------------------------------------------------


def statistics_table(results: Results) -> dict:
    """The statistics screen: one row per team (standings order) with one cell per level in game
    order (received, hints shown, closed, how, time on level; None for a level not received
    yet), and the team's penalties, bonuses, timeout, total and place.

    Worked example: a team that closed level 1 by code after 31 min 10 s saw hint 1 (22:25) and
    spent 1870 s there; level 2 then failed by the clock and cost 15 min of penalty.

    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00",
    ...     "levels": [{"id": "1"}, {"id": "2"}], "teams": ["A"], "events": [
    ...     {"team": "A", "type": "code", "level": "1", "at": "2026-12-05T22:31:10+03:00"}]})
    >>> row = statistics_table(compute(rec))["rows"][0]
    >>> [(c["hints_shown"], c["how"], c["time_s"]) for c in row["cells"]]
    [(1, 'code', 1870.0), (2, 'failed (time out)', 4200.0)]
    >>> row["place"], row["total_s"]  # 1870 + 4200 + 900 s of penalty
    (1, 6970.0)
    """
    return {"levels": list(results.level_ids),
            "rows": [statistics_row(team, results.level_ids) for team in results.teams],
            "finished_share": results.finished_share}


def statistics_row(team: TeamResult, level_ids: tuple[str, ...]) -> dict:
    """One team's row of ``statistics_table`` (its place as the result carries it): what a
    write about that team alone replaces in the stored table before re-ranking it."""
    cells: dict[str, dict | None] = dict.fromkeys(level_ids)
    for order, level in enumerate(team.levels, start=1):
        cells[level.level] = {
            "order": order,
            "received_at": level.received_at,
            "hints_shown": level.hints_shown,
            "closed_at": level.closed_at,
            "outcome": level.outcome,
            "how": level.how,
            "time_s": level.duration_s,
            "average_s": level.average_s,
            "timeout_s": level.timeout_s,
        }
    return {
        "team": team.team, "place": team.place, "status": team.status,
        "cells": [cells[level_id] for level_id in level_ids],
        "levels_closed": team.levels_closed, "slivs": team.slivs,
        "penalty_s": team.penalty_s, "bonus_s": team.bonus_s, "timeout_s": team.timeout_s,
        "average_adjust_s": team.average_adjust_s, "total_s": team.total_s,
        "finished_at": team.finished_at, "rulings": team.rulings,
    }


def replay(data: dict) -> dict:
    """``manage.py replay`` for ``"format": "gorod"``: the contract output of
    ``docs/spec/record-format.md`` plus a few extra fields (fail times, hints shown, rulings).

    >>> out = replay({"format": "gorod", "start": "2026-12-05T22:00:00+03:00",
    ...               "levels": [{"id": "1"}], "teams": ["A"]})
    >>> team = out["teams"][0]
    >>> team["status"], team["levels"][0]["outcome"], team["total_s"]  # 70 min + 15 min penalty
    ('finished', 'auto_sliv', 5100.0)
    """
    record = parse_record(data)
    game = standings_at(record, None)
    tz = record.start.tzinfo
    # Written straight from the instants: the same text as format_time of compute's datetimes
    # (tests/gorod/test_rules.py holds them equal), without a datetime per moment.
    iso = iso_writer(tz)
    ended = None if game.ended is None else from_us(game.ended, tz)
    deadlines = [times.deadline for times, _place in game.teams if times.deadline is not None]
    return {
        "format": "gorod",
        "finished": game.over,
        "ended_at": format_time(ended),
        "end_reason": game.end_reason,
        "finished_share": share_finished([times.finished for times, _place in game.teams]),
        "protests_until": format_time(None if ended is None
                                      else protest_deadline(ended)),
        "final_by": format_time(None if ended is None else final_due(ended)),
        "next_deadline": iso(min(deadlines)) if deadlines else None,
        "teams": [_team_json(times, place, iso) for times, place in game.teams],
    }


def _team_json(times: Times, place: int | None, iso: Callable[[int], str]) -> dict:
    timeout = times.timeout
    return {
        "team": times.team, "place": place, "status": times.status,
        "levels_closed": times.levels_closed, "slivs": len(times.failed_levels),
        "finished_at": None if times.finished is None else iso(times.finished),
        "total_s": times.total_s, "penalty_s": times.penalty_s, "bonus_s": times.bonus_s,
        "timeout_s": 0.0 if timeout is None else timeout.minutes * 60.0,
        "timeout_at": None if timeout is None else format_time(timeout.at),
        "average_adjust_s": times.average_adjust_s,
        "failed_levels": list(times.failed_levels), "current_level": times.current_level,
        "next_deadline": None if times.deadline is None else iso(times.deadline),
        "rulings": [{"type": e.type, "minutes": e.minutes, "level": e.level,
                     "at": format_time(e.at), "reason": e.reason, "by": e.by}
                    for e in times.rulings],
        "levels": [{
            "level": level, "received_at": iso(r), "hints_at": [iso(h) for h in listed],
            "hints_shown": shown, "fail_at": iso(fail),
            "closed_at": None if close is None else iso(close), "outcome": outcome,
            "duration_s": duration, "timeout_s": timeout_s, "average_s": avg,
        } for level, r, listed, shown, fail, close, outcome, duration, timeout_s, avg
            in times.levels],
    }
