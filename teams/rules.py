"""Registration rules and the fee ledger, as pure functions.

This module must not import Django, read the clock or touch the database: callers pass plain
values and ``now``. A broken rule raises ``RuleViolation`` whose ``template`` is an English
message marked for translation (``gettext_noop``) and ``params`` fill it; ``teams.services``
translates it for the user.

Rules (GoRoD 2.2, 3.27–3.28, 3.31, 8.3, 8.6, 11.3.8–9; King of the Hill club rules):
- roster size: King of the Hill 3–8, GoRoD 2–8;
- applications are open from publication until 1 hour before the start; a game should be
  published at least 4 days before its start (a warning, not a refusal);
- a team may not apply while a ban lasts;
- 4 applications or fewer: the organizer is warned the game may not take place;
- prizes: 1st place 100 % off the fee of the next game, 2nd 50 %, 3rd 25 %; a benefit that is
  not used within the next three games of its format lapses.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta


def gettext_noop(message: str) -> str:
    """Marks a message for ``makemessages`` without importing Django."""
    return message


KINGOFHILL = "kingofhill"
GOROD = "gorod"
TEAM_SIZE: dict[str, tuple[int, int]] = {KINGOFHILL: (3, 8), GOROD: (2, 8)}
APPLICATIONS_CLOSE_BEFORE = timedelta(hours=1)
MIN_PUBLICATION_LEAD = timedelta(days=4)
FEW_APPLICATIONS = 4
PRIZE_PERCENT: dict[int, int] = {1: 100, 2: 50, 3: 25}
BENEFIT_VALID_GAMES = 3


class RuleViolation(ValueError):
    """A registration rule says no. ``str()`` gives the English message."""

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params))


# --- registration -------------------------------------------------------------------------


def check_roster_size(*, game_format: str, size: int) -> None:
    if game_format not in TEAM_SIZE:
        raise RuleViolation(gettext_noop("Unknown game format: {format}."), format=game_format)
    low, high = TEAM_SIZE[game_format]
    if not low <= size <= high:
        raise RuleViolation(
            gettext_noop(
                "A team plays this game with {low} to {high} members; the roster has {size}."
            ),
            low=low,
            high=high,
            size=size,
        )


def applications_close_at(starts_at: datetime) -> datetime:
    return starts_at - APPLICATIONS_CLOSE_BEFORE


def check_applications_open(*, starts_at: datetime, scheduled: bool, now: datetime) -> None:
    """Applications (and changes to them) are accepted until 1 h before the start (8.6)."""
    if not scheduled:
        raise RuleViolation(gettext_noop("This game does not accept applications any more."))
    if now >= applications_close_at(starts_at):
        raise RuleViolation(
            gettext_noop("Applications closed 1 hour before the start of the game.")
        )


def publication_too_late(*, starts_at: datetime, now: datetime) -> bool:
    """True when a game published ``now`` leaves less than 4 days for applications (8.6).

    [decision] The organizer is warned, not refused: the club may still run a short-notice game.
    """
    return starts_at - now < MIN_PUBLICATION_LEAD


@dataclass(frozen=True)
class BanInfo:
    until: datetime
    reason: str = ""


def active_ban(bans: Iterable[BanInfo], now: datetime) -> BanInfo | None:
    """The ban lasting longest among those still in force at ``now``."""
    current = [ban for ban in bans if ban.until > now]
    return max(current, key=lambda ban: ban.until) if current else None


def check_not_banned(bans: Iterable[BanInfo], now: datetime) -> None:
    ban = active_ban(bans, now)
    if ban is not None:
        raise RuleViolation(
            gettext_noop("The team is banned from applying until {until}."),
            until=ban.until.isoformat(timespec="minutes"),
        )


def check_not_organizing(organizes: bool) -> None:
    """The team that prepares a game does not play it (GoRoD 10.5)."""
    if organizes:
        raise RuleViolation(
            gettext_noop("The team organizes this game, so it cannot apply to play it.")
        )


def check_application(
    *,
    game_format: str,
    starts_at: datetime,
    scheduled: bool,
    roster_size: int,
    bans: Iterable[BanInfo],
    now: datetime,
    organizes: bool = False,
) -> None:
    """Everything a new or edited application must satisfy; the first broken rule raises."""
    check_not_organizing(organizes)
    check_applications_open(starts_at=starts_at, scheduled=scheduled, now=now)
    check_not_banned(bans, now)
    check_roster_size(game_format=game_format, size=roster_size)


def few_applications(count: int) -> bool:
    """4 applications or fewer: the game may not take place (8.3)."""
    return count <= FEW_APPLICATIONS


# --- fees and prize benefits --------------------------------------------------------------


def prize_percent(place: int) -> int | None:
    return PRIZE_PERCENT.get(place)


def amount_due(fee: int, percent: int) -> int:
    """The fee after a discount; the discount is rounded down (the club never over-discounts)."""
    return fee - fee * percent // 100


@dataclass(frozen=True)
class LedgerGame:
    """A game that counts for the ledger: one not cancelled, of the team's formats."""

    game_id: int
    game_format: str
    starts_at: datetime
    fee: int


@dataclass(frozen=True)
class Entry:
    """The team takes part in ``game_id`` (an approved application)."""

    game_id: int
    paid: bool = False


@dataclass(frozen=True)
class Prize:
    """A benefit won at ``game_id`` with ``percent`` off."""

    game_id: int
    percent: int
    place: int = 0


@dataclass(frozen=True)
class LedgerRow:
    game_id: int
    fee: int
    percent: int
    benefit_from: int | None
    due: int
    paid: bool


@dataclass(frozen=True)
class PrizeState:
    prize: Prize
    used_at: int | None  # game id
    lapsed: bool


@dataclass(frozen=True)
class Ledger:
    rows: tuple[LedgerRow, ...]
    prizes: tuple[PrizeState, ...]

    @property
    def total_due(self) -> int:
        return sum(row.due for row in self.rows if not row.paid)


def fee_ledger(
    *,
    games: Sequence[LedgerGame],
    entries: Iterable[Entry],
    prizes: Iterable[Prize],
    now: datetime,
) -> Ledger:
    """The team's fees, game by game, with prize benefits applied.

    [decision] A benefit won at game G is valid for the next three games of G's format held by
    the club (cancelled games are not passed in and do not count). It pays for the first of
    them the team takes part in; one benefit per game, the largest first, so a second benefit
    waits for a later game within its own window. A benefit lapses (3.31) once the third game of
    its window has started without the team using it.
    """
    order = sorted(games, key=lambda g: (g.starts_at, g.game_id))
    by_id = {g.game_id: g for g in order}
    position = {g.game_id: i for i, g in enumerate(order)}
    same_format: dict[str, list[int]] = {}
    for g in order:
        same_format.setdefault(g.game_format, []).append(g.game_id)

    def window(prize: Prize) -> list[int]:
        source = by_id.get(prize.game_id)
        if source is None:
            return []
        ids = same_format[source.game_format]
        start = ids.index(prize.game_id) + 1
        return ids[start : start + BENEFIT_VALID_GAMES]

    prize_list = sorted(prizes, key=lambda p: (position.get(p.game_id, -1), -p.percent))
    windows = {id(p): window(p) for p in prize_list}
    used: dict[int, int] = {}  # id(prize) -> game id
    rows: list[LedgerRow] = []
    entry_list = sorted(
        (e for e in entries if e.game_id in by_id), key=lambda e: position[e.game_id]
    )
    for entry in entry_list:
        game = by_id[entry.game_id]
        candidates = [
            p for p in prize_list if id(p) not in used and entry.game_id in windows[id(p)]
        ]
        best = max(candidates, key=lambda p: (p.percent, -position[p.game_id]), default=None)
        percent = 0
        if best is not None:
            used[id(best)] = entry.game_id
            percent = best.percent
        rows.append(
            LedgerRow(
                game_id=game.game_id,
                fee=game.fee,
                percent=percent,
                benefit_from=best.game_id if best else None,
                due=amount_due(game.fee, percent),
                paid=entry.paid,
            )
        )
    states = []
    for prize in prize_list:
        win = windows[id(prize)]
        used_at = used.get(id(prize))
        lapsed = (
            used_at is None and len(win) == BENEFIT_VALID_GAMES and by_id[win[-1]].starts_at <= now
        )
        states.append(PrizeState(prize=prize, used_at=used_at, lapsed=lapsed))
    return Ledger(rows=tuple(rows), prizes=tuple(states))
