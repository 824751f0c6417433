"""What a GoRoD action changed, as settling it needs to know it: the action sets one of these as
``Write.change`` and ``gorod.settle.settle`` dispatches on it with ``match``. No change
(None): a refresh, or an action whose every audience is built from a computation of the game
(the start, the leaderboard switch, a refused timeout or photo)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gorod.models import CodeAttempt
    from gorod.reads import TeamRows
    from gorod.selectors import Snapshot


@dataclass(frozen=True, slots=True)
class Computed:
    """The action computed the game after its event (the end, a ruling undone or edited, a
    timeout or photo decided): every audience is built from that snapshot, not a new one."""

    snapshot: Snapshot


@dataclass(frozen=True, slots=True)
class PauseChanged:
    """The whole game paused or resumed (``gorod.pauses``), computed after it: every audience
    is rebuilt from that snapshot, and no deadline is stored while the pause lasts."""

    snapshot: Snapshot


@dataclass(frozen=True, slots=True)
class RulingAdded:
    """A ruling about one team, the game computed after it: while nothing is due and the public
    state stands, only the organizer's view and that team's are rebuilt."""

    team: int  # the team's application id
    snapshot: Snapshot


@dataclass(frozen=True, slots=True)
class CodeChecked:
    """A code that closes no level (wrong, a sector, a duplicate, a refused try): only the
    attempt log and its team's own view and row change; no result moves."""

    team: int  # the team's application id
    attempt: CodeAttempt
    rows: TeamRows  # the team's rows the check read, the new attempt among them
    snapshot: Snapshot  # the team's own timeline at the code, which the code does not move


@dataclass(frozen=True, slots=True)
class LevelClosed:
    """A level's closing code: its team moves on to the next level (an event of the record)."""

    team: int  # the team's application id
    attempt: CodeAttempt
    rows: TeamRows  # the team's rows the check read, the new attempt among them
    before: Snapshot  # the team's own timeline before the code: the shape of its next one


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock at a deadline: the teams whose deadline passed move on, nothing else."""


@dataclass(frozen=True, slots=True)
class CodesApplied:
    """Several codes applied in one batch (``settle.merged``), in the order they were."""

    codes: tuple[CodeChecked | LevelClosed, ...]


@dataclass(frozen=True, slots=True)
class MessageSent:
    """The organizer's message or bonus hint (``gorod.messages``): it changes no time, only the
    organizer's list and the phones of the teams it reached."""

    message: int
    teams: tuple[int, ...]  # the application ids it reached
    # A bonus hint's: the game computed at the sending (its receivers' levels), from which
    # their own part is rebuilt to show it under their level's hints.
    snapshot: Snapshot | None = None


@dataclass(frozen=True, slots=True)
class MessagesSeen:
    """A team's phone showed some messages or bonus hints: its list and the organizer's."""

    team: int  # the team's application id


@dataclass(frozen=True, slots=True)
class SafetyChanged:
    """A team checked in on a dangerous level, or the organizer acknowledged its alarm
    (``gorod.safety``): the organizer's alarms and that team's own view change."""

    team: int  # the team's application id


@dataclass(frozen=True, slots=True)
class LevelFixed:
    """The organizer fixed a level during play (``gorod.level_fix``): its texts, and its codes
    with the credits they gave, computed after it. Every audience is built from that snapshot;
    only the states that differ (the phones on the level, the credited teams, the organizer's)
    get a new version."""

    level: str  # the level's label
    snapshot: Snapshot


Code = CodeChecked | LevelClosed
Note = MessageSent | MessagesSeen
Change = (Computed | PauseChanged | RulingAdded | CodeChecked | LevelClosed | Tick | CodesApplied
          | MessageSent | MessagesSeen | SafetyChanged | LevelFixed)
