"""The season table (``docs/rules/rating.md``, 3.21): each game's points, the season's sum,
and the places with their countback (more points, then more 1st places, more 2nd places…).

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rating.rules.organizer import Organizer, organizer_points
from rating.rules.points import GOROD_SCALE, Scale, points_for_place


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
