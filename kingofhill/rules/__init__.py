"""The King of the Hill («Царь Горы») rules engine: a pure function from a game record to a board.

A package by topic, read like the rule book: ``record`` (constants and the record), ``board``
(the engine), ``screens`` (the questions the screens ask), ``past`` (changing the past),
``output`` (the replay contract), ``answers`` (equal answers), ``similar`` (answers that are
probably the same: the host's grouping help). Everything public is named
here too (``from kingofhill import rules; rules.compute(...)``).

The rules are ``docs/rules/kingofhill.md``; the record and the replay output are
``docs/spec/record-format.md``. The live app, the replay command and the season rating all call this
package, so every rule lives here and nowhere else: templates and JavaScript ask the helper
functions below (``allowed_declarations``, ``projected_outcome``, ``challengers``…) instead of
re-implementing a rule.

What this package must not do:

* import Django (or anything that needs settings) — it must run and be tested without them;
* read the clock, the database, files or the network — the board depends on the record only, so
  a changed verdict or partner mark is simply a different record, recomputed from scratch;
* raise anything but ``core.records.RecordError`` for a bad record, whatever the input;
* mutate its input or hand out mutable state — records and boards are frozen dataclasses.

Decisions taken here where the rules page is silent are marked ``[decision]`` in comments.
"""

from __future__ import annotations

from kingofhill.rules.answers import (  # noqa: F401
    answer_keys,
    group_forms,
    group_of,
    matches_key,
    merge_groups,
    normalize_answer,
    split_group,
)
from kingofhill.rules.board import (  # noqa: F401
    Board,
    MoveAfterEnd,
    MoveResult,
    Position,
    Snapshot,
    TeamState,
    advance,
    compute,
    compute_played,
    initial_board,
)
from kingofhill.rules.output import (  # noqa: F401
    board_to_dict,
    replay,
)
from kingofhill.rules.past import (  # noqa: F401
    ChangeEffect,
    PlaceChange,
    change_effect,
    record_with,
)
from kingofhill.rules.record import (  # noqa: F401
    DECLARABLE,
    DEFAULT_MAIN_QUESTIONS,
    DEFAULT_RESERVE_QUESTIONS,
    DEFAULT_SUMMIT,
    FINISHED,
    JUMP,
    JUMP_AFTER_FAIL,
    JUMP_FIRST_QUESTION,
    JUMP_KING,
    JUMP_PENULTIMATE,
    KING_HELD,
    KING_HOLD_MOVES,
    LATE,
    NO_CHALLENGER,
    NOTE_CODES,
    NOTE_KING_STAYS,
    NOTE_KING_UNLESS_DEPOSED,
    NOTE_MAY_BECOME_KING,
    NOTE_REVOLUTION,
    NOTE_STOPS_PENULTIMATE,
    ORDINARY,
    QUESTIONS_EXHAUSTED,
    REV_KING,
    REV_NO_KING,
    REV_NO_RIGHT,
    REV_NOT_PENULTIMATE,
    REVOLUTION,
    Answer,
    Declaration,
    GameRecord,
    Move,
    PlayedMove,
    parse_move,
    parse_record,
    read_record,
)
from kingofhill.rules.screens import (  # noqa: F401
    SHOW_ANNOUNCE,
    SHOW_CLOSE,
    SHOW_NEVER,
    Allowed,
    Outcome,
    Projection,
    allowed_declarations,
    challengers,
    could_still_depose,
    moves_to_penultimate,
    projected_outcome,
    question_shown,
)
from kingofhill.rules.similar import (  # noqa: F401
    Suggestion,
    same_answer,
    suggestions,
)

__all__ = [
    "JUMP", "REVOLUTION", "ORDINARY", "KING_HOLD_MOVES",
    "KING_HELD", "QUESTIONS_EXHAUSTED", "NO_CHALLENGER",
    "Declaration", "Answer", "Move", "GameRecord",
    "TeamState", "Position", "Snapshot", "MoveResult", "Board",
    "Allowed", "Outcome", "Projection", "NOTE_CODES",
    "parse_record", "parse_move", "compute", "advance", "read_record", "PlayedMove",
    "compute_played", "initial_board", "replay", "board_to_dict",
    "allowed_declarations", "projected_outcome", "moves_to_penultimate",
    "could_still_depose", "challengers",
    "record_with", "PlaceChange", "ChangeEffect", "change_effect", "MoveAfterEnd",
]
