"""The GoRoD night-game rules: level clock, organizer rulings, totals and places, as a package
by topic, read like the rule book:

- ``record``: the rules' constants and the game's record (parsing, settings check);
- ``engine``: each team's night and the results (``compute``, ``team_result``);
- ``standings``: places and the per-level sums;
- ``deadlines``: the live clock (next deadline, timeouts);
- ``output``: the statistics table and the replay output; ``instants``: the engine's
  microsecond instants and the fast ISO writer they are written with;
- ``fixes``: what a level's corrected codes credit (fixing a level during play);
- ``setup``: routes for a non-linear game and the set-up warnings.

Everything public is named here too (``from gorod import rules; rules.compute(...)``).

Pure: this package must not import Django, must not read the clock, the database, the network or
the environment. The current time is always an argument (``compute(record, now)``), so the live
app, ``manage.py replay`` and the tests all get the same answer for the same record.

The rules are ``docs/rules/gorod.md``; the record and the replay output are ``docs/spec/record-format.md``.
Every bad input raises ``core.records.RecordError`` with a "what and where" message, never
another exception.

Internally every instant is an ``int`` of microseconds since the Unix epoch: the arithmetic is
exact (a code at exactly ``r + limit`` is compared without float noise) and runs on instants,
so a daylight-saving change during the night cannot move a deadline. Datetimes are made only
at the edges (parsing, results).

Decisions the rules page leaves open are marked ``[decision]`` where they are implemented.
"""

from __future__ import annotations

from gorod.rules.deadlines import (  # noqa: F401
    next_deadline,
    timeout_request_refusal,
    timeout_until,
)
from gorod.rules.engine import (  # noqa: F401
    LevelResult,
    Results,
    Ruling,
    TeamResult,
    clock_over,
    compute,
    team_result,
)
from gorod.rules.fixes import (  # noqa: F401
    FixCredit,
    fix_credit,
    lost_s,
)
from gorod.rules.output import (  # noqa: F401
    replay,
    statistics_row,
    statistics_table,
)
from gorod.rules.record import (  # noqa: F401
    CLOSING_TYPES,
    DEFAULT_HINT_OFFSETS_MIN,
    DEFAULT_LIMIT_MIN,
    DEFAULT_MAX_DURATION_H,
    DEFAULT_SLIV_PENALTY_MIN,
    END_SHARE,
    EVENT_TYPES,
    HOW,
    LEVEL_RULINGS,
    MAX_WRONG_RANGE,
    MINUTE_RULINGS,
    RULING_TYPES,
    TIMED_RULINGS,
    TIMEOUT_MIN_RANGE,
    WRONG_WINDOW_S_RANGE,
    Event,
    GameRecord,
    Level,
    check_settings,
    parse_record,
    with_event,
)
from gorod.rules.safety import (  # noqa: F401
    CHECKIN_GRADES,
    checkin_due,
    checkin_overdue,
    next_checkin_wake,
)
from gorod.rules.setup import (  # noqa: F401
    SPEED_UP_RANGE,
    SetupWarning,
    SpeededSetup,
    generate_routes,
    setup_warnings,
    speed_up,
)
from gorod.rules.standings import (  # noqa: F401
    StandingChange,
    clock_text,
    level_sums,
    placed_in_order,
    rank,
    standing_key,
    standings_diff,
)

__all__ = [
    "DEFAULT_LIMIT_MIN",
    "GameRecord",
    "LevelResult",
    "Results",
    "TeamResult",
    "clock_over",
    "compute",
    "generate_routes",
    "level_sums",
    "rank",
    "team_result",
    "check_settings",
    "next_deadline",
    "parse_record",
    "replay",
    "setup_warnings",
    "statistics_table",
]
