"""Season rating rules (``docs/rules/rating.md``), as a package by topic, read like the rule
book:

- ``points``: points per place, the scales (the GoRoD table, the King of the Hill bands);
- ``organizer``: the votes on an organized game and the organizing team's K;
- ``standings``: a game's points, the season table, places and the countback;
- ``bonuses``: the King of the Hill players' personal bonuses;
- ``players``: who counts in the King of the Hill players' table (rule 2.6);
- ``record``: the season record's parser and the replay output;
- ``windows``: the results' calendar (from ``core.deadlines``) and the limits on protests and
  votes; ``places``: the organizer's table of places;
- ``checks``: the value checks the parts share.

Everything public is named here too (``from rating import rules; rules.season_table(...)``).

This package is pure and must stay so: it must not import Django (nor anything that imports
it), read the clock, touch the database, files or network, print, or depend on the order of a
dict it did not build. Plain data in (a season record, lists, dicts, frozen dataclasses),
frozen dataclasses or plain dicts out. Every bad input raises ``core.records.RecordError``
saying what is wrong and where (``games[1].organizer.votes.Beta: ...``), never another
exception. The King of the Hill engine is loaded lazily (see ``bonuses``), so that the package
loads without it and the rating imports no game.

Season record (``docs/spec/record-format.md``, format ``season``) and this package's optional,
backward-compatible extensions — a record without them is exactly the contract's:

- ``scale``: a list of points by place (the contract), or the name ``"gorod"`` (the default
  GoRoD table) or ``"kingofhill"`` (the club's band scale), or an object
  ``{"points": [...], "beyond": "decrement" | "repeat"}`` saying how places past the list score.
- ``games[i].players``: ``{team: [player names]}``, who played for each team in that game.
  The organizing team may be listed too (its players get K, like the team).
- ``games[i].kingofhill``: the game's King of the Hill record (``format: kingofhill``); it is
  replayed to give each team's personal bonuses, which every listed player of that team gets.

When any game lists ``players``, the output gains ``players``: rows ``player, place, points,
games, places`` sorted and placed exactly like ``teams``. A player's points for a game are
their team's points for that game plus the team's bonuses; season deductions are the team's
and do not touch players.

Decisions of our own (beyond ``docs/rules/rating.md``):
- A list scale shorter than the field extends like the GoRoD table: one point less than the
  place before, never below 1 (a scale already ending below 1 repeats its last value). The
  band scale instead repeats its last value (its "20 and below").
- A scale must not increase down the places, and no value may be negative.
- A disqualified team counts the game in ``games`` but has no finish in ``places`` (it was
  not placed); its players score nothing for that game, bonuses included.
- The organizing team counts the game in ``games`` but not in ``places`` (it did not finish).
- A vote may only come from a team that played that game (disqualified included); a
  deduction or a player list only for a team of that game (played or organized).
- Teams equal on points and on the whole countback share a place; inside a shared place rows
  are listed by name so that the output never depends on the order of the games.
- Bonuses: a correct partner answer also counts as a correct answer (+1 +1), a correct jump
  too (+1 +1), mirroring the game's own points; the "all partner answers correct" +3 needs at
  least one partner question in the game.
"""

from __future__ import annotations

from core.records import RecordError  # noqa: F401
from rating.rules.bonuses import (  # noqa: F401
    koth_bonuses,
    koth_bonuses_by_team,
    koth_bonuses_from_record,
)
from rating.rules.organizer import VOTES, Organizer, organizer_points  # noqa: F401
from rating.rules.places import PlacesError, places_complete, table_places  # noqa: F401
from rating.rules.players import counts_for_game  # noqa: F401
from rating.rules.points import (  # noqa: F401
    BEYOND,
    GOROD_SCALE,
    KOTH_BAND_SCALE,
    NAMED_SCALES,
    Scale,
    points_for_place,
    scale_from_data,
)
from rating.rules.record import parse_season, replay  # noqa: F401
from rating.rules.standings import (  # noqa: F401
    Game,
    Season,
    SeasonTable,
    Standing,
    Tally,
    countback_key,
    game_points,
    rank,
    season_progress,
    season_table,
)
from rating.rules.windows import (  # noqa: F401
    ANSWER_DUE,
    FINAL_DUE,
    PROTEST_WINDOW,
    PROTESTS_OPEN_MAX,
    VOTE_WINDOW,
    VOTES_CAST_MAX,
    answer_due,
    answer_overdue,
    final_due,
    final_is_early,
    protest_deadline,
    protest_open,
    vote_deadline,
    vote_open,
)
