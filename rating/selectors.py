"""Reads: a game's published results with the points they earn, the organizer's desk, and a
season's record, table, chart and per-team / per-player pages.

The season table is computed by ``rating.rules`` from the FINAL results of the season's rated
games — the code path of ``manage.py replay`` — keyed by team and member ids (names are only
looked up to render). It is computed once and kept in the cache until a game of the season
changes its results (``season_cache_forget``, called by ``rating.services``). The season
record (``docs/spec/record-format.md``, format ``season``) is the same data keyed by names, so the
download replays to exactly the table the page shows.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Prefetch

from core import engine_messages, formats
from core.accounts.selectors import rating_name
from rating import rules
from rating.models import GameResult, OrganizerVote, Protest, ResultChange, ResultRow, Season
from teams.models import Application, Game, Member, Team
from teams.selectors import team_ids_by_name

CACHE_KEY = "rating:season:{pk}"
CACHE_SECONDS = 7 * 24 * 3600


def results_published(game: Game | int) -> bool:
    """Are results of this game published (preliminary or final)?"""
    return GameResult.objects.filter(game=game).exists()


def game_result(game: Game) -> GameResult | None:
    return (GameResult.objects.select_related("game", "game__organizing_team", "published_by")
            .prefetch_related(Prefetch("rows", ResultRow.objects.select_related("team")),
                              Prefetch("votes", OrganizerVote.objects.select_related(
                                  "team", "voted_by")),
                              Prefetch("protests", Protest.objects.select_related("team")))
            .filter(game=game).first())


def ordered_rows(result: GameResult) -> list[ResultRow]:
    """Placed teams by place, disqualified ones last (in the game's standings order)."""
    return sorted(result.rows.all(), key=lambda r: (r.disqualified, r.place or 0, r.standing))


def game_ended_at(result: GameResult) -> datetime:
    """When the game ended (read from its record at publication), else the publication."""
    return result.ended_at or result.published_at


def protest_deadline(result: GameResult) -> datetime:
    return rules.protest_deadline(game_ended_at(result))


def vote_deadline(result: GameResult) -> datetime:
    return rules.vote_deadline(game_ended_at(result))


def final_due(result: GameResult) -> datetime:
    return rules.final_due(game_ended_at(result))


def protests(result: GameResult, now: datetime | None = None) -> list[Protest]:
    """The game's protests, oldest first; each carries ``answer_due`` and, given ``now``,
    ``overdue`` (unanswered past its 24 h)."""
    items = list(result.protests.select_related("team", "created_by", "answered_by")
                 .order_by("created_at", "id"))
    for p in items:
        p.answer_due = rules.answer_due(p.created_at)
        p.overdue = now is not None and rules.answer_overdue(p.created_at, not p.is_open, now)
    return items


def changes(result: GameResult) -> list[ResultChange]:
    return list(result.changes.select_related("team", "actor"))


def rules_game(result: GameResult, key=lambda team_id: team_id) -> rules.Game:
    """The game as ``rating.rules`` scores it, teams keyed by ``key(team id)``."""
    rows = ordered_rows(result)
    played = {r.team_id for r in rows}
    organizer = None
    if result.game.organizing_team_id is not None:
        organizer = rules.Organizer(key(result.game.organizing_team_id), {
            key(v.team_id): v.value for v in result.votes.all() if v.team_id in played})
    return rules.Game(
        results=tuple(key(r.team_id) for r in rows if not r.disqualified),
        disqualified=tuple(key(r.team_id) for r in rows if r.disqualified),
        deductions={key(r.team_id): r.deduction for r in rows if r.deduction},
        organizer=organizer)


def season_scale(season: Season) -> list[int] | dict:
    """The season's scale as the record carries it. King of the Hill's band scale repeats its
    last value ("20 and below"), so its seasons say so; a GoRoD list extends by decrement."""
    points = list(season.scale) or list(
        (rules.KOTH_BAND_SCALE if season.format == Game.Format.KINGOFHILL
         else rules.GOROD_SCALE).points)
    if season.format == Game.Format.KINGOFHILL:
        return {"points": points, "beyond": "repeat"}
    return points


@dataclass
class SeasonPoints:
    season: Season
    points: dict[int, int]  # team id -> points for this game (before deductions)
    error: str = ""


def result_points(result: GameResult) -> list[SeasonPoints]:
    """The points each team earns for this game in each of its seasons (its place's points,
    0 when disqualified, K for the organizing team)."""
    out = []
    game = rules_game(result)
    for season in result.game.seasons.all():
        try:
            out.append(SeasonPoints(season, rules.game_points(
                game, rules.scale_from_data(season_scale(season)))))
        except rules.RecordError as exc:
            out.append(SeasonPoints(season, {}, engine_messages.translate(exc)))
    return out


def organizer_desk(now: datetime) -> dict:
    """What organizers still owe: preliminary results with their final due date (72 h after
    the game's end; ``overdue`` past it) and open protests with their answer due (24 h)."""
    pending = list(GameResult.objects.filter(status=GameResult.Status.PRELIMINARY)
                   .select_related("game").order_by("published_at"))
    for result in pending:
        result.final_due = final_due(result)
        result.final_overdue = now > result.final_due
    open_protests = list(Protest.objects.filter(status=Protest.Status.OPEN)
                         .select_related("team", "result__game").order_by("created_at"))
    for p in open_protests:
        p.answer_due = rules.answer_due(p.created_at)
        p.overdue = rules.answer_overdue(p.created_at, False, now)
    return {"pending": pending, "protests": open_protests}


# --- seasons ---------------------------------------------------------------------------------


def season_results(season: Season) -> list[GameResult]:
    """The final results of the season's rated games, in game order (start time, then id)."""
    return list(
        GameResult.objects.filter(game__in=season.games.filter(rated=True, format=season.format),
                                  status=GameResult.Status.FINAL)
        .select_related("game", "game__organizing_team")
        .prefetch_related(Prefetch("rows", ResultRow.objects.select_related("team")),
                          Prefetch("votes", OrganizerVote.objects.select_related("team")))
        .order_by("game__starts_at", "game_id"))


def _rosters(results: list[GameResult]) -> dict[int, dict[int, list[Member]]]:
    """game id -> team id -> the members on that team's application for the game, each with
    its profile (``user``)."""
    out: dict[int, dict[int, list[Member]]] = {}
    applications = (Application.objects.filter(game__in=[r.game_id for r in results])
                    .prefetch_related(Prefetch("members", Member.objects.select_related("user"))))
    for a in applications:
        out.setdefault(a.game_id, {})[a.team_id] = sorted(a.members.all(), key=lambda m: m.pk)
    return out


def counted(member: Member, game: Game) -> bool:
    """Does this roster entry count in the players' table for ``game`` (rule 2.6,
    ``rules.counts_for_game``): linked to a named profile before the game's start?"""
    user = member.user
    return user is not None and rules.counts_for_game(
        linked_at=member.linked_at, starts_at=game.starts_at, surname=user.last_name,
        first_name=user.first_name)


def game_players(result: GameResult, rosters: dict) -> tuple[dict[int, list[Member]],
                                                              dict[int, int]]:
    """The game's players as the players' table takes them: team id -> the counted entries,
    and member id -> team id of the entries that do not count (not registered in time).

    [decision] One profile on the rosters of two teams of the same game counts for neither:
    nobody plays for two teams at once, and picking one would be a guess; the captains fix
    the rosters and the table follows."""
    roster = rosters.get(result.game_id, {})
    playing = [(row.team_id, m) for row in ordered_rows(result)
               for m in roster.get(row.team_id, [])]
    profiles_seen = Counter(m.user_id for _team, m in playing if m.user_id is not None)
    counted_by_team: dict[int, list[Member]] = {}
    uncounted: dict[int, int] = {}
    for team, m in playing:
        if counted(m, result.game) and profiles_seen[m.user_id] == 1:
            counted_by_team.setdefault(team, []).append(m)
        else:
            uncounted[m.pk] = team
    return counted_by_team, uncounted


def _koth_record(game: Game, team_key) -> dict | None:
    """The game's King of the Hill record with its teams keyed by ``team_key(team id)`` (the
    record names teams as they are called now; the game's applications give their ids). Asked
    through the format registry (``core.formats``): the rating imports no game."""
    game_format = formats.get(game.format)
    record = game_format.record(game) if game_format is not None else None
    if record is None:
        return None
    ids = team_ids_by_name(game)

    def rename(name: str) -> str:
        return team_key(ids[name]) if name in ids else name

    out = dict(record)
    out["teams"] = [rename(n) for n in record.get("teams", [])]
    out["moves"] = [
        {**move, **{part: {rename(n): v for n, v in move.get(part, {}).items()}
                    for part in ("declarations", "answers") if part in move}}
        for move in record.get("moves", [])]
    return out


def _season_entries(season: Season, results: list[GameResult], team_key, player_key,
                    rosters: dict | None = None) -> list:
    """The season record's games; ``player_key(member)`` names a counted player (the others are
    not registered and left out, rule 2.6)."""
    koth = season.format == Game.Format.KINGOFHILL
    if rosters is None:
        rosters = _rosters(results) if koth else {}
    entries = []
    for result in results:
        game = rules_game(result, team_key)
        entry: dict[str, Any] = {"game": result.game.title, "results": list(game.results)}
        if game.disqualified:
            entry["disqualified"] = list(game.disqualified)
        if game.deductions:
            entry["deductions"] = dict(game.deductions)
        if game.organizer is not None:
            entry["organizer"] = {"team": game.organizer.team, "votes": dict(game.organizer.votes)}
        if koth:
            counted_by_team = game_players(result, rosters)[0]
            players = {team_key(row.team_id): [player_key(m) for m in
                                               counted_by_team.get(row.team_id, [])]
                       for row in ordered_rows(result)}
            players = {team: names for team, names in players.items() if names}
            if players:
                entry["players"] = players
            record = _koth_record(result.game, team_key)
            if record is not None:
                entry["kingofhill"] = record
        entries.append(entry)
    return entries


def _player_names(results: list[GameResult], rosters: dict | None = None) -> dict[int, str]:
    """Profile (user) id -> the name the season record gives the player: the profile's
    "Surname First name" (rule 2.6), with the username added when two profiles of the season
    share one."""
    rosters = _rosters(results) if rosters is None else rosters
    users = {m.user_id: m.user for team in rosters.values() for ms in team.values()
             for m in ms if m.user_id is not None}
    names = {pk: rating_name(user) for pk, user in users.items()}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {pk: name if counts[name] == 1 else f"{name} ({users[pk].get_username()})"
            for pk, name in names.items()}


def season_record(season: Season) -> dict:
    """The season record: scale and, in game order, the final results of its rated games,
    teams and players by name (the record contract)."""
    results = season_results(season)
    names = {t.pk: t.name for t in Team.objects.filter(result_rows__result__in=results)
             .distinct()} | {r.game.organizing_team_id: r.game.organizing_team.name
                             for r in results if r.game.organizing_team_id}
    players = _player_names(results) if season.format == Game.Format.KINGOFHILL else {}
    return {
        "format": "season",
        "season": season.title,
        "scale": season_scale(season),
        "games": _season_entries(season, results, names.__getitem__,
                                 lambda m: players[m.user_id]),
    }


def _compute(season: Season) -> dict:
    results = season_results(season)
    koth = season.format == Game.Format.KINGOFHILL
    rosters = _rosters(results) if koth else {}
    entries = _season_entries(season, results, str, lambda m: str(m.user_id), rosters)
    parsed = rules.parse_season({"format": "season", "scale": season_scale(season),
                                 "games": entries})
    table = rules.season_table(parsed)

    def rows(standings, label):
        return [{label: int(s.name), "place": s.place, "points": s.points, "games": s.games,
                 "places": dict(s.places)} for s in standings]

    per_game = []
    for game, result in zip(parsed.games, results, strict=True):
        points = rules.game_points(game, parsed.scale)
        finish = {team: place for place, team in enumerate(game.results, 1)}
        organizer = game.organizer.team if game.organizer else None
        per_game.append({
            "game": result.game_id, "title": result.game.title,
            "starts_at": result.game.starts_at,
            "teams": {int(team): {"points": pts, "place": finish.get(team),
                                  "deduction": game.deductions.get(team, 0),
                                  "disqualified": team in game.disqualified,
                                  "organizer": team == organizer}
                      for team, pts in points.items()},
            "players": {int(name): {"team": int(team),
                                    "points": points.get(team, 0) + (
                                        0 if team in game.disqualified
                                        else game.bonuses.get(team, 0)),
                                    "bonus": 0 if team in game.disqualified
                                    else game.bonuses.get(team, 0),
                                    "place": finish.get(team)}
                        for team, names in game.players.items() for name in names},
            "unregistered": game_players(result, rosters)[1] if koth else {},
        })
    players = rows(table.players, "player") if table.players is not None else None
    played_for: dict[int, list[int]] = {}  # profile -> its teams, in the order first played
    unregistered: dict[int, dict] = {}
    for game in per_game:
        for player, line in game["players"].items():
            teams = played_for.setdefault(player, [])
            if line["team"] not in teams:
                teams.append(line["team"])
        for member, team in game["unregistered"].items():
            unregistered.setdefault(member, {"member": member, "team": team, "games": 0})
            unregistered[member]["games"] += 1
    if players:
        # Inside a shared place the record lists players by name; so does the page.
        names = _player_names(results, rosters)
        players.sort(key=lambda row: (row["place"], names.get(row["player"], "")))
    for row in players or []:
        row["teams"] = played_for.get(row["player"], [])
    return {
        "teams": rows(table.teams, "team"),
        "players": players,
        "unregistered": list(unregistered.values()) if koth else [],
        "games": per_game,
        "progress": [{int(t): v for t, v in after.items()}
                     for after in rules.season_progress(parsed)],
    }


def _season_stamp(season: Season) -> tuple:
    # What the table depends on: the scale and which results are final since when (final
    # results cannot change without being re-opened, which changes this stamp too). One
    # query, so a game added in the admin or a cache shared by workers never shows a stale table.
    finals = tuple(GameResult.objects.filter(
        game__in=season.games.filter(rated=True, format=season.format),
        status=GameResult.Status.FINAL).order_by("pk").values_list("pk", "finalized_at"))
    return (repr(season_scale(season)), finals)


def season_data(season: Season) -> dict:
    """The season's table (``teams``), King of the Hill players' table (``players`` or None:
    rows by profile id, with the ``teams`` each played for), the players not registered in
    time (``unregistered``: member, team, games), per game figures (``games``) and totals
    after each game (``progress``), by ids.

    Computed once and cached; recomputed when a result of the season changes
    (``season_cache_forget``, and the stamp of the season's final results). Raises
    ``RecordError`` when the season cannot be computed (e.g. a broken scale).
    """
    key = CACHE_KEY.format(pk=season.pk)
    stamp = _season_stamp(season)
    stored = cache.get(key)
    if stored is not None and stored[0] == stamp:
        return stored[1]
    data = _compute(season)
    cache.set(key, (stamp, data), CACHE_SECONDS)
    return data


def season_cache_forget(season_id: int) -> None:
    cache.delete(CACHE_KEY.format(pk=season_id))


def players_cache_forget() -> None:
    """A profile linked, unlinked, merged or renamed: every King of the Hill season's players'
    table may change (a rare write, so all of them are recomputed on their next read)."""
    for pk in Season.objects.filter(format=Game.Format.KINGOFHILL).values_list("pk", flat=True):
        season_cache_forget(pk)


def season_table(season: Season) -> dict:
    """The season table as the record contract gives it (names): ``rating.rules.replay`` of
    ``season_record``."""
    return rules.replay(season_record(season))


def team_names(ids) -> dict[int, str]:
    return dict(Team.objects.filter(pk__in=set(ids)).values_list("pk", "name"))


def member_names(ids) -> dict[int, Member]:
    return Member.objects.select_related("team").in_bulk(set(ids))


def profiles(ids) -> dict[int, str]:
    """Profile (user) id -> the name the players' rating shows (rule 2.6)."""
    return {user.pk: rating_name(user)
            for user in get_user_model().objects.filter(pk__in=set(ids))}


def player_seasons(user) -> list[dict]:
    """The King of the Hill seasons a profile played in, newest first: its standing, the games
    that counted ``(game, line, team name)`` and those that did not (played before the link or
    without a name: ``(game, team name)``). A season that cannot be computed is left out."""
    members = set(user.memberships.values_list("pk", flat=True))
    seasons = (Season.objects.filter(format=Game.Format.KINGOFHILL,
                                     games__applications__members__in=members).distinct())
    out = []
    for season in seasons:
        try:
            data = season_data(season)
        except rules.RecordError:
            continue
        standing = next((row for row in data["players"] or [] if row["player"] == user.pk), None)
        counted_games = [(g, g["players"][user.pk]) for g in data["games"]
                         if user.pk in g["players"]]
        uncounted = [(g, team) for g in data["games"] for member, team in
                     g["unregistered"].items() if member in members]
        if standing is None and not uncounted:
            continue
        out.append({"season": season, "standing": standing, "games": counted_games,
                    "uncounted": uncounted})
    names = team_names({line["team"] for s in out for _g, line in s["games"]}
                       | {team for s in out for _g, team in s["uncounted"]})
    for s in out:
        s["games"] = [(g, line, names.get(line["team"], "?")) for g, line in s["games"]]
        s["uncounted"] = [(g, names.get(team, "?")) for g, team in s["uncounted"]]
    return out
