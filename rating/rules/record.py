"""The season record (``docs/spec/record-format.md``, format ``season``, with this package's
extensions: see ``rating.rules``): its parser with "what and where" messages, and the replay
output of the contract.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from core.records import RecordError, check_type, optional, require
from rating.rules.bonuses import koth_bonuses_from_record
from rating.rules.checks import check_name, check_whole, describe
from rating.rules.organizer import Organizer, check_vote
from rating.rules.points import scale_from_data
from rating.rules.standings import Game, Season, Standing, season_table

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


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
        raise RecordError(f"format: expected 'season', got {describe(data.get('format'))}")
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
        team = check_name(require(raw, "team", str, spot), f"{spot}.team")
        if team in seen:
            raise RecordError(f"{spot}.team: {team!r} organizes this game, so it cannot also "
                              f"play it (it is in {seen[team]})")
        votes = optional(raw, "votes", dict, spot, {})
        for voter, vote in votes.items():
            if voter not in played:
                raise RecordError(f"{spot}.votes.{voter}: only a team that played this game "
                                  f"votes, and {voter!r} did not")
            check_vote(vote, f"{spot}.votes.{voter}")
        organizer = Organizer(team, dict(votes))
    in_game = played | ({organizer.team} if organizer else set())

    deductions = optional(game, "deductions", dict, where, {})
    for team, amount in deductions.items():
        spot = f"{where}.deductions.{team}"
        _in_game(team, in_game, spot)
        check_whole(amount, spot)
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
            name = check_name(name, f"{spot}[{index}]")
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
        check_name(team, spot)
        if team in seen:
            raise RecordError(f"{spot}: {team!r} is in this game twice (also in {seen[team]})")
        seen[team] = key
    return teams


def _in_game(team: str, in_game: set[str], where: str) -> None:
    if team not in in_game:
        raise RecordError(f"{where}: {team!r} did not play or organize this game")


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
