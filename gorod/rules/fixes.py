"""Fixing a level during play (``docs/rules/gorod.md``, "Fixing a level during play"): what a
team whose stored attempt matches a level's corrected codes is credited, written with the
record's existing events — a ``code`` for a team still on the level, ``bonus`` minutes for the
time it lost — so the record format does not change.

Pure, like the whole package: the moments and the record are arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gorod.rules.engine import LevelResult
from gorod.rules.instants import MINUTE, to_us
from gorod.rules.record import GameRecord


@dataclass(frozen=True)
class FixCredit:
    """What one team is credited: its level closed by a ``code`` at ``close_at`` (None: it had
    already left the level) and ``bonus_s`` seconds of bonus (0: none)."""

    found_at: datetime  # the attempt that matches the corrected codes
    close_at: datetime | None
    bonus_s: float


def lost_s(record: GameRecord, team: str, since: datetime, until: datetime) -> float:
    """The seconds of the team's clock between ``since`` and ``until``: the pauses of the
    game and the team's timeouts in between do not count (they leave its total as well).

    >>> from gorod.rules.record import parse_record
    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A"], "events": [
    ...         {"type": "pause", "at": "2026-12-05T22:20:00+03:00", "minutes": 5},
    ...         {"team": "A", "type": "timeout", "at": "2026-12-05T22:40:00+03:00", "minutes": 3}]})
    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> lost_s(rec, "A", at("22:10"), at("22:50")) / 60  # 40 min less 5 of pause, 3 of timeout
    32.0
    """
    start, end = to_us(since, "since"), to_us(until, "until")
    if end <= start:
        return 0.0
    stopped = 0
    for event in record.events:
        if event.type == "pause" or (event.type == "timeout" and event.team == team):
            s, e = event.stop_us
            stopped += max(0, min(e, end) - max(s, start))
    return (end - start - stopped) / 1_000_000


def fix_credit(record: GameRecord, team: str, level: LevelResult, found_at: datetime,
               moment: datetime, credited_s: float = 0.0) -> FixCredit | None:
    """The credit of a team whose attempt at ``found_at`` matches its level's corrected codes,
    ``moment`` being when the fix takes effect (now, or the end of a finished game).

    [decision] A team still on the level closes it at ``moment`` (a ``code`` event) and gets
    bonus minutes for the time since ``found_at``: its total is as if the level had closed at
    that attempt, and its next level starts with its whole time and hints (a ``code`` at the
    attempt's time would start the next level in the past while the team was still looking).
    A team that had left the level gets bonus minutes for the time from ``found_at`` to when it
    left, plus the fail's penalty when the clock failed the level (it would not have failed);
    an organizer's fail ruling stays, as the organizer's. None: nothing to credit (the attempt
    came when the team had already left, or an earlier fix of the level already credited it
    that much: ``credited_s``, the bonus it got for the level, is taken off, so a second fix
    credits only an earlier attempt's extra time).

    >>> from gorod.rules.record import parse_record
    >>> from gorod.rules.engine import compute
    >>> rec = parse_record({"start": "2026-12-05T22:00:00+03:00", "levels": [{"id": "1"}],
    ...     "teams": ["A"], "events": []})
    >>> at = lambda hm: datetime.fromisoformat(f"2026-12-05T{hm}:00+03:00")
    >>> failed = compute(rec, at("23:20")).teams[0].levels[0]  # failed by the clock at 23:10
    >>> fix_credit(rec, "A", failed, at("22:40"), at("23:20")).bonus_s / 60  # 30 + 15 penalty
    45.0
    >>> still = compute(rec, at("22:50")).teams[0].levels[0]
    >>> credit = fix_credit(rec, "A", still, at("22:40"), at("22:50"))
    >>> credit.close_at == at("22:50"), credit.bonus_s / 60
    (True, 10.0)
    >>> fix_credit(rec, "A", failed, at("22:40"), at("23:20"), credited_s=45 * 60) is None
    True
    """
    if level.closed_at is None:
        return FixCredit(found_at, moment,
                         max(0.0, lost_s(record, team, found_at, moment) - credited_s))
    if found_at >= level.closed_at:
        return None
    bonus = lost_s(record, team, found_at, level.closed_at)
    if level.outcome == "auto_sliv":
        bonus += record.sliv_penalty_min * MINUTE / 1_000_000
    bonus -= credited_s
    return FixCredit(found_at, None, bonus) if bonus >= 0.5 else None
