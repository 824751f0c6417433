"""Season rating rules: points per place, the organizing team's K, the season table, and the
King of the Hill players' personal bonuses (``docs/rules/rating.md``).

This module is pure and must stay so: it must not import Django (nor anything that imports
it), read the clock, touch the database, files or network, print, or depend on the order of a
dict it did not build. Plain data in (a season record, lists, dicts, frozen dataclasses),
frozen dataclasses or plain dicts out. Every bad input raises ``core.records.RecordError``
saying what is wrong and where (``games[1].organizer.votes.Beta: ...``), never another
exception. The King of the Hill engine is loaded lazily through the engines' dispatch by format
(``core.replay.engine``), only by ``koth_bonuses_from_record``, so that this module loads
without it and the rating imports no game.

Season record (``docs/spec/record-format.md``, format ``season``) and this module's optional,
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

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# The results' calendar lives in ``core.deadlines`` (the games read it too); the rating names
# it here too.
from core.deadlines import (  # noqa: F401
    ANSWER_DUE,
    FINAL_DUE,
    PROTEST_WINDOW,
    VOTE_WINDOW,
    answer_due,
    answer_overdue,
    final_due,
    final_is_early,
    protest_deadline,
    protest_open,
    vote_deadline,
    vote_open,
)
from core.records import RecordError, check_type, optional, require

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VOTES = (0, 25, 50, 75, 100)
#: [decision] open protests one team may have on one game's results at a time: each waits
#: for an organizer's answer, and one captain filed 161 in two seconds
PROTESTS_OPEN_MAX = 3
#: [decision] times one team's captain may cast (or change) its vote on one game
VOTES_CAST_MAX = 5
BEYOND = ("decrement", "repeat")


def _whole(value: Any, where: str) -> int:
    # check_type would say "expected a number, got a number" for 2.5: points are whole.
    if type(value) is not int:
        raise RecordError(f"{where}: expected a whole number, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return repr(value) if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Scale:
    """Points by place: ``points[0]`` for 1st, then how places past the list score."""

    points: tuple[int, ...]
    beyond: str = "decrement"

    def __post_init__(self) -> None:
        _check_scale(self.points, self.beyond, "scale")

    def points_for(self, place: int) -> int:
        """Points for finishing ``place`` (1-based). See ``points_for_place``."""
        return points_for_place(place, self)


def _check_scale(points: Any, beyond: Any, where: str, points_where: str | None = None) -> None:
    points_where = points_where or where
    if not isinstance(points, (list, tuple)):
        raise RecordError(f"{points_where}: expected a list of points, got {type(points).__name__}")
    if not points:
        raise RecordError(f"{points_where}: a scale needs points for at least 1st place")
    for index, value in enumerate(points):
        spot = f"{points_where}[{index}]"
        _whole(value, spot)
        if value < 0:
            raise RecordError(f"{spot}: points may not be negative, got {value}")
        # A better place earning less would make the table reward finishing lower.
        if index and value > points[index - 1]:
            raise RecordError(f"{spot}: {value} is more than the place before "
                              f"({points[index - 1]}); a scale may not increase")
    if beyond not in BEYOND:
        raise RecordError(f"{where}.beyond: expected one of {', '.join(BEYOND)}, got {beyond!r}")


GOROD_SCALE = Scale((100, 96, 92, 88, 84, 81, 78, 75, 72, 69, 66, 63, 60, 57, 54,
                     52, 50, 48, 46, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34))
KOTH_BAND_SCALE = Scale((115, 110, 105, 100, 100) + (90,) * 5 + (70,) * 5 + (50,) * 4 + (30,),
                        beyond="repeat")
NAMED_SCALES = {"gorod": GOROD_SCALE, "kingofhill": KOTH_BAND_SCALE}


@dataclass(frozen=True)
class Organizer:
    team: str
    votes: Mapping[str, int | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Game:
    """One rated game with final results. ``bonuses`` are KotH personal bonuses per team."""

    results: tuple[str, ...]
    disqualified: tuple[str, ...] = ()
    deductions: Mapping[str, int] = field(default_factory=dict)
    organizer: Organizer | None = None
    players: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    bonuses: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Season:
    games: tuple[Game, ...]
    scale: Scale = GOROD_SCALE


@dataclass(frozen=True)
class Tally:
    """A team's (or player's) season so far, before it is placed in the table."""

    name: str
    points: int = 0
    games: int = 0
    places: Mapping[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Standing:
    name: str
    place: int
    points: int
    games: int
    places: Mapping[int, int]


@dataclass(frozen=True)
class SeasonTable:
    teams: tuple[Standing, ...]
    players: tuple[Standing, ...] | None = None


# --- points per place -------------------------------------------------------------------------

def points_for_place(place: int, scale: Scale = GOROD_SCALE) -> int:
    """Points for finishing ``place`` on ``scale`` (the GoRoD table by default).

    Past the end of a ``decrement`` scale each place gets one point less than the place before,
    never below 1; a ``repeat`` scale keeps its last value.

    >>> points_for_place(1), points_for_place(30), points_for_place(31), points_for_place(99)
    (100, 34, 33, 1)
    >>> [points_for_place(p, KOTH_BAND_SCALE) for p in (1, 4, 5, 6, 19, 20, 40)]
    [115, 100, 100, 90, 50, 30, 30]
    >>> points_for_place(5, Scale((10, 8, 7)))
    5
    """
    _whole(place, "place")
    if place < 1:
        raise RecordError(f"place: expected 1 or more, got {place}")
    if not isinstance(scale, Scale):
        raise RecordError(f"scale: expected a Scale, got {type(scale).__name__}")
    if place <= len(scale.points):
        return scale.points[place - 1]
    last = scale.points[-1]
    if scale.beyond == "repeat" or last <= 1:
        return last
    return max(1, last - (place - len(scale.points)))


def scale_from_data(value: Any, where: str = "scale") -> Scale:
    """A scale from its record form: a list of points, a scale's name, or an object.

    >>> scale_from_data([100, 96, 92]).points_for(5)
    90
    >>> scale_from_data("kingofhill") is KOTH_BAND_SCALE
    True
    >>> scale_from_data({"points": [20, 10], "beyond": "repeat"}).points_for(5)
    10
    """
    if value is None:
        return GOROD_SCALE
    if isinstance(value, str):
        if value not in NAMED_SCALES:
            names = ", ".join(repr(n) for n in NAMED_SCALES)
            raise RecordError(f"{where}: expected a list of points or one of {names}, got {value!r}")
        return NAMED_SCALES[value]
    if isinstance(value, dict):
        points = require(value, "points", list, where)
        beyond = optional(value, "beyond", str, where, "decrement")
        _check_scale(points, beyond, where, points_where=f"{where}.points")
        return Scale(tuple(points), beyond)
    check_type(value, list, where)
    _check_scale(value, "decrement", where)
    return Scale(tuple(value))


# --- the organizing team --------------------------------------------------------------------

def organizer_points(teams_played: int, votes: Iterable[int | None],
                     scale: Scale = GOROD_SCALE) -> int:
    """The organizing team's points K = (100 − Rj)·Q/100 + Rj, rounded half up.

    ``teams_played`` is i (disqualified teams included), j = i + 1, Rj the points for place j;
    Q is the average of the votes given (``None`` = did not vote, which counts as the average
    of the others); with no votes at all Q = 0. The rules' example, 10 teams, R11 = 66:

    >>> [organizer_points(10, [q]) for q in (100, 75, 50, 25, 0)]
    [100, 92, 83, 75, 66]
    >>> organizer_points(10, [100, 75, None])   # Q = 87.5: 95.75
    96
    >>> organizer_points(10, [None, None])      # no votes: Q = 0, K = R11
    66
    """
    _whole(teams_played, "teams_played")
    if teams_played < 0:
        raise RecordError(f"teams_played: expected 0 or more, got {teams_played}")
    if isinstance(votes, (str, bytes, Mapping)) or not isinstance(votes, Iterable):
        raise RecordError("votes: expected a list of votes")
    given = [_check_vote(vote, f"votes[{n}]") for n, vote in enumerate(votes)]
    given = [vote for vote in given if vote is not None]
    # Here, not at the top: fractions (and the decimal it imports) cost every process that
    # loads these rules, a GoRoD replay's included (for its protest window), some 5 ms.
    from fractions import Fraction

    quality = Fraction(sum(given), len(given)) if given else Fraction(0)
    r_j = points_for_place(teams_played + 1, scale)
    # Exact fractions, then half up: float round() would round 91.5 to even and 0.1s drift.
    return math.floor(r_j + (100 - r_j) * quality / 100 + Fraction(1, 2))


def _check_vote(vote: Any, where: str) -> int | None:
    if vote is None:
        return None
    if type(vote) is not int or vote not in VOTES:
        raise RecordError(f"{where}: expected one of {', '.join(map(str, VOTES))}, got "
                          f"{_show(vote)}")
    return vote


# --- the season table -----------------------------------------------------------------------

def countback_key(tally: Tally | Standing, depth: int) -> tuple:
    """The order of the table: more points first, then more 1st places, more 2nd places, …

    ``depth`` is how many places the countback looks at (the deepest place anyone has).

    >>> a = Tally("A", 10, 2, {1: 1, 3: 1}); b = Tally("B", 10, 2, {2: 2})
    >>> countback_key(a, 3) < countback_key(b, 3)
    True
    """
    return (-tally.points, *(-tally.places.get(place, 0) for place in range(1, depth + 1)))


def rank(tallies: Iterable[Tally]) -> tuple[Standing, ...]:
    """Sort and place: by ``countback_key``; rows equal on it share a place (1, 2, 2, 4).

    >>> table = rank([Tally("C", 5), Tally("A", 9), Tally("B", 5)])
    >>> [(s.name, s.place) for s in table]
    [('A', 1), ('B', 2), ('C', 2)]
    """
    tallies = list(tallies)
    depth = max((max(t.places, default=0) for t in tallies), default=0)
    ordered = sorted(tallies, key=lambda t: (countback_key(t, depth), t.name))
    standings: list[Standing] = []
    for index, tally in enumerate(ordered):
        key = countback_key(tally, depth)
        if standings and key == countback_key(standings[-1], depth):
            place = standings[-1].place
        else:
            place = index + 1
        standings.append(Standing(tally.name, place, tally.points, tally.games,
                                  dict(sorted(tally.places.items()))))
    return tuple(standings)


def game_points(game: Game, scale: Scale = GOROD_SCALE) -> dict[str, int]:
    """Each team's points for one game, before deductions: its place's points, 0 when
    disqualified, K for the organizing team.

    >>> game = Game(("A", "B"), disqualified=("C",), organizer=Organizer("O", {"A": 100}))
    >>> game_points(game)
    {'A': 100, 'B': 96, 'C': 0, 'O': 100}
    """
    points: dict[str, int] = {}
    for place, team in enumerate(game.results, 1):
        points[team] = points_for_place(place, scale)
    for team in game.disqualified:
        points[team] = 0
    if game.organizer is not None:
        played = len(game.results) + len(game.disqualified)
        points[game.organizer.team] = organizer_points(
            played, game.organizer.votes.values(), scale)
    return points


def season_table(season: Season) -> SeasonTable:
    """Add up a season: points per place, K for organizers, deductions, then ``rank``.

    It trusts its input: build the ``Season`` with ``parse_season`` to have it checked.

    >>> season = Season((Game(("A", "B")), Game(("B",), disqualified=("A",),
    ...                  deductions={"A": 4}, organizer=Organizer("C", {"B": 50}))))
    >>> [(s.name, s.place, s.points, s.games) for s in season_table(season).teams]
    [('B', 1, 196, 2), ('A', 2, 96, 2), ('C', 3, 96, 1)]

    A and C both have 96 (A: 100 − 4; C: K with R3 = 92, Q = 50); A's first place wins.
    """
    teams: dict[str, _Running] = {}
    players: dict[str, _Running] = {}
    any_players = False
    for game in season.games:
        game_pts = game_points(game, season.scale)
        finish = {team: place for place, team in enumerate(game.results, 1)}
        for team, points in game_pts.items():
            teams.setdefault(team, _Running()).add(points, finish.get(team))
        for team, deduction in game.deductions.items():
            teams.setdefault(team, _Running()).points -= deduction
        for team, names in game.players.items():
            any_players = True
            points = game_pts.get(team, 0)
            if team not in game.disqualified:
                points += game.bonuses.get(team, 0)
            for name in names:
                players.setdefault(name, _Running()).add(points, finish.get(team))
    return SeasonTable(
        teams=rank(running.tally(name) for name, running in teams.items()),
        players=rank(running.tally(name) for name, running in players.items())
        if any_players else None,
    )


def season_progress(season: Season) -> tuple[dict[str, int], ...]:
    """Every team's season total after each game (deductions included): one dict per game,
    for the chart of the season. A team appears from its first game on.

    >>> season = Season((Game(("A", "B")), Game(("B", "A"), deductions={"A": 4})))
    >>> season_progress(season)
    ({'A': 100, 'B': 96}, {'A': 192, 'B': 196})
    """
    totals: dict[str, int] = {}
    after: list[dict[str, int]] = []
    for game in season.games:
        for team, points in game_points(game, season.scale).items():
            totals[team] = totals.get(team, 0) + points
        for team, deduction in game.deductions.items():
            totals[team] = totals.get(team, 0) - deduction
        after.append(dict(totals))
    return tuple(after)


class _Running:
    """Mutable accumulator, private to ``season_table``; the public results are frozen."""

    def __init__(self) -> None:
        self.points = 0
        self.games = 0
        self.places: Counter[int] = Counter()

    def add(self, points: int, place: int | None) -> None:
        self.points += points
        self.games += 1
        if place is not None:
            self.places[place] += 1

    def tally(self, name: str) -> Tally:
        return Tally(name, self.points, self.games, dict(self.places))


# --- King of the Hill personal bonuses ------------------------------------------------------

def koth_bonuses(moves_summary: Any, team: str) -> int:
    """A team's King of the Hill personal bonus (each of its players gets it).

    ``moves_summary`` is a list of moves ``{"partner": bool, "correct": [teams that answered
    correctly], "effective": {team: "jump" | "revolution"}}`` (effective declarations only;
    ignored ones are ordinary moves). +1 per correct answer, +1 per correct jump, +1 per
    correct partner answer, +3 if all the team's partner answers were correct (at least one
    partner question), +3 for three or more jumps in the game, all correct.

    >>> moves = [{"partner": False, "correct": ["A"], "effective": {}},
    ...          {"partner": True, "correct": ["A"], "effective": {"A": "jump"}},
    ...          {"partner": False, "correct": ["B"], "effective": {"A": "jump"}}]
    >>> koth_bonuses(moves, "A")   # 2 answers, 1 correct jump, 1 partner, all partner +3
    7
    >>> koth_bonuses(moves, "B")   # 1 answer; missed the only partner question
    1
    """
    return koth_bonuses_by_team(moves_summary, [_name(team, "team")])[team]


def koth_bonuses_by_team(moves_summary: Any, teams: Iterable[str]) -> dict[str, int]:
    """``koth_bonuses`` for several teams at once (validating the moves once).

    >>> koth_bonuses_by_team([{"partner": True, "correct": ["A"]}], ["A", "B"])
    {'A': 5, 'B': 0}
    """
    if isinstance(teams, (str, bytes, Mapping)) or not isinstance(teams, Iterable):
        raise RecordError("teams: expected a list of team names")
    moves = _read_moves(moves_summary)
    result: dict[str, int] = {}
    for index, team in enumerate(teams):
        _name(team, f"teams[{index}]")
        answers = jumps = correct_jumps = partner_questions = partner_correct = 0
        for partner, correct, effective in moves:
            right = team in correct
            answers += right
            partner_questions += partner
            partner_correct += partner and right
            if effective.get(team) == "jump":
                jumps += 1
                correct_jumps += right
        bonus = answers + correct_jumps + partner_correct
        if partner_questions and partner_correct == partner_questions:
            bonus += 3
        if jumps >= 3 and correct_jumps == jumps:
            bonus += 3
        result[team] = bonus
    return result


def _read_moves(moves_summary: Any) -> list[tuple[bool, frozenset[str], dict[str, str]]]:
    check_type(moves_summary, list, "moves")
    moves = []
    for index, move in enumerate(moves_summary):
        where = f"moves[{index}]"
        check_type(move, dict, where)
        partner = optional(move, "partner", bool, where, False)
        correct = optional(move, "correct", list, where, [])
        for n, team in enumerate(correct):
            _name(team, f"{where}.correct[{n}]")
        effective = optional(move, "effective", dict, where, {})
        for team, kind in effective.items():
            if kind not in ("jump", "revolution"):
                raise RecordError(f"{where}.effective.{team}: expected jump or revolution, got "
                                  f"{_show(kind)}")
        moves.append((partner, frozenset(correct), effective))
    return moves


def koth_bonuses_from_record(koth_record: Any) -> dict[str, int]:
    """Replay a King of the Hill record with ``kingofhill.rules`` and give each team's bonus.

    Teams are those of the record (``teams``); a team with no correct answer gets 0. Any
    failure of the engine comes out as ``RecordError``.

    >>> koth_bonuses_from_record({"format": "kingofhill", "teams": ["A", "B"], "moves": [
    ...     {"partner": True, "answers": {"A": {"correct": True}}}]})
    {'A': 5, 'B': 0}
    """
    check_type(koth_record, dict, "kingofhill")
    if koth_record.get("format") != "kingofhill":
        raise RecordError(f"kingofhill.format: expected 'kingofhill', got "
                          f"{_show(koth_record.get('format'))}")
    teams = require(koth_record, "teams", list, "kingofhill")
    for index, team in enumerate(teams):
        _name(team, f"kingofhill.teams[{index}]")
    try:
        # Lazy: the season rules load (and most seasons replay) without the KotH engine.
        from core.replay import engine

        koth_replay = engine("kingofhill").replay
    except ImportError:
        raise RecordError("kingofhill: the King of the Hill rules engine is not available") from None
    try:
        output = koth_replay(koth_record)
    except RecordError:
        raise
    except Exception as exc:
        # The engine promises RecordError for any bad record; should a slip there let another
        # exception out, the season must still report a bad record, never a traceback.
        detail = f": {exc}" if str(exc) else ""
        raise RecordError(f"kingofhill: the King of the Hill engine could not replay this "
                          f"record ({type(exc).__name__}{detail})") from None
    moves = output.get("moves", []) if isinstance(output, dict) else None
    if not isinstance(moves, list):
        raise RecordError("kingofhill: the King of the Hill engine gave no list of moves")
    return koth_bonuses_by_team(moves, list(dict.fromkeys(teams)))


# --- the season record ----------------------------------------------------------------------

def parse_season(data: Any) -> Season:
    """Read and check a season record (see the module docstring) into a ``Season``.

    >>> season = parse_season({"format": "season", "scale": [10, 8],
    ...                        "games": [{"results": ["A"], "organizer": {"team": "O"}}]})
    >>> season.scale.points, season.games[0].results, season.games[0].organizer.team
    ((10, 8), ('A',), 'O')
    >>> parse_season({"format": "season", "games": [{"results": ["A", "A"]}]})
    Traceback (most recent call last):
    ...
    core.records.RecordError: games[0].results[1]: 'A' is in this game twice (also in results)
    """
    if not isinstance(data, dict):
        raise RecordError("the record must be a JSON object")
    if data.get("format", "season") != "season":
        raise RecordError(f"format: expected 'season', got {_show(data.get('format'))}")
    scale = scale_from_data(data.get("scale"))
    if "games" not in data:
        raise RecordError("games: missing")
    games = check_type(data["games"], list, "games")
    return Season(tuple(_parse_game(game, f"games[{i}]") for i, game in enumerate(games)), scale)


def _parse_game(game: Any, where: str) -> Game:
    check_type(game, dict, where)
    seen: dict[str, str] = {}
    results = _team_list(game, "results", where, seen, required=True)
    disqualified = _team_list(game, "disqualified", where, seen, required=False)
    played = set(results) | set(disqualified)

    organizer = None
    raw = optional(game, "organizer", dict, where)
    if raw is not None:
        spot = f"{where}.organizer"
        team = _name(require(raw, "team", str, spot), f"{spot}.team")
        if team in seen:
            raise RecordError(f"{spot}.team: {team!r} organizes this game, so it cannot also "
                              f"play it (it is in {seen[team]})")
        votes = optional(raw, "votes", dict, spot, {})
        for voter, vote in votes.items():
            if voter not in played:
                raise RecordError(f"{spot}.votes.{voter}: only a team that played this game "
                                  f"votes, and {voter!r} did not")
            _check_vote(vote, f"{spot}.votes.{voter}")
        organizer = Organizer(team, dict(votes))
    in_game = played | ({organizer.team} if organizer else set())

    deductions = optional(game, "deductions", dict, where, {})
    for team, amount in deductions.items():
        spot = f"{where}.deductions.{team}"
        _in_game(team, in_game, spot)
        _whole(amount, spot)
        if amount < 0:
            raise RecordError(f"{spot}: write a deduction as the positive number of points to "
                              f"subtract, got {amount}")

    players: dict[str, tuple[str, ...]] = {}
    raw_players = optional(game, "players", dict, where, {})
    player_team: dict[str, str] = {}
    for team, names in raw_players.items():
        spot = f"{where}.players.{team}"
        _in_game(team, in_game, spot)
        check_type(names, list, spot)
        for index, name in enumerate(names):
            name = _name(name, f"{spot}[{index}]")
            if name in player_team:
                raise RecordError(f"{spot}[{index}]: {name!r} is listed twice in this game "
                                  f"(also for {player_team[name]!r})")
            player_team[name] = team
        players[team] = tuple(names)

    bonuses: dict[str, int] = {}
    koth = optional(game, "kingofhill", dict, where)
    if koth is not None:
        try:
            bonuses = koth_bonuses_from_record(koth)
        except RecordError as exc:
            message = str(exc)
            if message.startswith("kingofhill"):
                raise RecordError(f"{where}.{message}") from None
            raise RecordError(f"{where}.kingofhill: {message}") from None
        for team in bonuses:
            if team not in played:
                raise RecordError(f"{where}.kingofhill.teams: {team!r} is not in this game's "
                                  f"results or disqualified")

    return Game(tuple(results), tuple(disqualified), dict(deductions), organizer, players,
                bonuses)


def _team_list(game: dict, key: str, where: str, seen: dict[str, str], *, required: bool
               ) -> list[str]:
    teams = require(game, key, list, where) if required else optional(game, key, list, where, [])
    for index, team in enumerate(teams):
        spot = f"{where}.{key}[{index}]"
        _name(team, spot)
        if team in seen:
            raise RecordError(f"{spot}: {team!r} is in this game twice (also in {seen[team]})")
        seen[team] = key
    return teams


def _in_game(team: str, in_game: set[str], where: str) -> None:
    if team not in in_game:
        raise RecordError(f"{where}: {team!r} did not play or organize this game")


def _name(value: Any, where: str) -> str:
    check_type(value, str, where)
    if not value.strip():
        raise RecordError(f"{where}: a name may not be empty")
    return value


# --- replay ---------------------------------------------------------------------------------

def replay(data: Any) -> dict:
    """The contract's output for a ``format: season`` record (``docs/spec/record-format.md``).

    >>> replay({"format": "season", "games": [{"results": ["A", "B"]}]})["teams"][1]
    {'team': 'B', 'place': 2, 'points': 96, 'games': 1, 'places': {'2': 1}}
    """
    table = season_table(parse_season(data))
    output: dict[str, Any] = {"format": "season", "teams": [_row("team", s) for s in table.teams]}
    if table.players is not None:
        output["players"] = [_row("player", s) for s in table.players]
    return output


def _row(label: str, standing: Standing) -> dict:
    return {label: standing.name, "place": standing.place, "points": standing.points,
            "games": standing.games,
            "places": {str(place): count for place, count in standing.places.items()}}


# --- the places of a game's results (its calendar: ``core.deadlines``) ----------------------


class PlacesError(ValueError):
    """The organizer's table of places cannot stand; ``code`` says why, ``team`` where
    (``invalid``: a place that is not a whole number ≥ 1, ``missing``: a team that is not
    disqualified has no place, ``duplicate``: two teams with one place)."""

    def __init__(self, code: str, team: Any, message: str) -> None:
        super().__init__(message)
        self.code, self.team = code, team


def table_places(rows: Iterable[tuple[Any, Any, bool]]) -> dict[Any, int | None]:
    """Places 1..n from the organizer's table, checked as a whole.

    ``rows`` are ``(team, requested place, disqualified)``. Disqualified teams get no place and
    drop out; the others keep the order of their requested places and close up to 1, 2, … n,
    so a gap left by a disqualification closes by itself. Two teams asking for one place, a
    place that is not a whole number ≥ 1, or a team with none raise ``PlacesError``.

    >>> table_places([("A", 1, False), ("B", 2, True), ("C", 3, False)])
    {'A': 1, 'B': None, 'C': 2}
    >>> table_places([("A", 2, False), ("B", 1, False)])
    {'A': 2, 'B': 1}
    >>> table_places([("A", 1, False), ("B", 1, False)])
    Traceback (most recent call last):
    ...
    rating.rules.PlacesError: 'B' and 'A' both have place 1
    """
    rows = list(rows)
    taken: dict[int, Any] = {}
    for team, place, disqualified in rows:
        if disqualified:
            continue
        if place is None:
            raise PlacesError("missing", team, f"{team!r} is not disqualified and has no place")
        if type(place) is not int or place < 1:
            raise PlacesError("invalid", team, f"{team!r}: a place is a whole number, 1 or "
                                               f"more, got {_show(place)}")
        if place in taken:
            raise PlacesError("duplicate", team,
                              f"{team!r} and {taken[place]!r} both have place {place}")
        taken[place] = team
    closed = {team: n for n, (_place, team) in enumerate(sorted(taken.items()), 1)}
    return {team: closed.get(team) for team, _place, _dq in rows}


def places_complete(rows: Iterable[tuple[int | None, bool]]) -> bool:
    """"Places are 1..n": ``rows`` are ``(place, disqualified)``; every team that is not
    disqualified holds one of exactly 1, 2, … n (the season record scores a game by its order
    of finish), and disqualified teams hold none.

    >>> places_complete([(1, False), (2, False), (None, True)])
    True
    >>> places_complete([(1, False), (3, False)]), places_complete([(1, False), (None, False)])
    (False, False)
    """
    rows = list(rows)
    if any((place is None) != dq for place, dq in rows):
        return False
    held = sorted(place for place, dq in rows if not dq)
    return held == list(range(1, len(held) + 1))
