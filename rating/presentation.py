"""How rating data is shown: the results and season tables as typed cells (the page, the CSV
and the XLSX export render the same ``Table``, so they always agree), the finish labels and
the season chart as a small server-rendered SVG."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from core import exports
from rating import selectors
from rating.models import GameResult, Season
from teams.models import Game

PLACE_COLUMNS = 3  # 1st, 2nd, 3rd places as separate columns: the prizes' places


@dataclass(frozen=True)
class Cell:
    value: Any  # int, str, timedelta or None: what the XLSX cell holds
    text: str  # what the page and the CSV show


@dataclass
class Row:
    cells: list[Cell]
    url: str = ""
    css: str = ""


@dataclass
class Table:
    columns: list[str]
    numeric: list[bool]
    rows: list[Row] = field(default_factory=list)


def table_html(table: Table, table_id: str, empty: str = "") -> SafeString:
    """The table as HTML, built here rather than in a template loop: a 100-team season table
    renders in about a millisecond this way, against tens in the template language."""
    def attr(numeric: bool) -> str:
        return ' class="num"' if numeric else ""

    head = "".join(f"<th{attr(n)}>{escape(c)}</th>"
                   for c, n in zip(table.columns, table.numeric, strict=True))
    body = []
    for row in table.rows:
        cells = []
        for index, (cell, numeric) in enumerate(zip(row.cells, table.numeric, strict=True)):
            text = escape(cell.text)
            if index == 1 and row.url:
                text = f'<a href="{escape(row.url)}">{text}</a>'
            cells.append(f"<td{attr(numeric)}>{text}</td>")
        css = f' class="{escape(row.css)}"' if row.css else ""
        body.append(f"<tr{css}>{''.join(cells)}</tr>")
    if not body:
        body.append(f'<tr><td colspan="{len(table.columns)}">{escape(empty)}</td></tr>')
    return mark_safe(  # noqa: S308 - every text above is escaped
        f'<table class="table rating-table" id="{escape(table_id)}"><thead><tr>{head}</tr>'
        f'</thead>\n<tbody>{"".join(body)}</tbody></table>')


def duration(seconds: float | None) -> timedelta | None:
    return None if seconds is None else timedelta(seconds=round(seconds))


def duration_text(value: timedelta | None) -> str:
    return exports.duration_text(value)


def _int(value: int | None) -> Cell:
    return Cell(value, "" if value is None else str(value))


def _text(value: str) -> Cell:
    return Cell(value, value)


def _dur(seconds: float | None) -> Cell:
    value = duration(seconds)
    return Cell(value, duration_text(value))


def place_cell(place: int | None, disqualified: bool = False) -> Cell:
    if disqualified:
        label = pgettext("disqualified, short", "DQ")
        return Cell(label, label)
    return _int(place)


def results_table(result: GameResult, points: list[selectors.SeasonPoints]) -> Table:
    """The results page's table: place, team, the game's own figures, deduction and the
    rating points each place earns in each season of the game."""
    koth = result.game.format == Game.Format.KINGOFHILL
    if koth:
        figures = [_("Step"), _("Game points")]
    else:
        figures = [_("Levels closed"), _("Failed levels"), _("Penalties"), _("Bonuses"),
                   _("Total time")]
    seasons = [_("Rating points: %(season)s") % {"season": p.season.title} for p in points]
    columns = [_("Place"), _("Team"), *figures, _("Deduction"), *seasons]
    numeric = [True, False, *([True] * len(figures)), True, *([True] * len(seasons))]
    table = Table(columns, numeric)
    for row in selectors.ordered_rows(result):
        f = row.figures or {}
        if koth:
            cells = [_int(f.get("step")), _int(f.get("points"))]
        else:
            cells = [_int(f.get("levels_closed")), _int(f.get("failed_levels")),
                     _dur(f.get("penalty_s")), _dur(f.get("bonus_s")), _dur(f.get("total_s"))]
        table.rows.append(Row(
            [place_cell(row.place, row.disqualified), _text(row.team.name), *cells,
             _int(row.deduction), *[_int(p.points.get(row.team_id)) for p in points]],
            css="disqualified" if row.disqualified else ""))
    return table


def _standings(season: Season, rows: list[dict], names: dict, label: str, kind: str) -> Table:
    ordinals = [pgettext("places column", "1st"), pgettext("places column", "2nd"),
                pgettext("places column", "3rd")][:PLACE_COLUMNS]
    columns = [_("Place"), label, *([_("Team")] if kind == "player" else []), _("Points"),
               _("Games"), *ordinals]
    numeric = [True, False, *([False] if kind == "player" else []), True, True,
               *([True] * len(ordinals))]
    table = Table(columns, numeric)
    # One reverse() for the whole table: resolving a URL per row costs more than the rest.
    if kind == "player":
        base = reverse("rating:player", args=[0])[:-2]
    else:
        base = reverse("rating:season_team", args=[season.pk, 0])[:-2]
    for row in rows:
        key = row[kind]
        url = f"{base}{key}/"
        if kind == "player":
            name, teams = names.get(key, ("?", ""))
            extra = [_text(teams)]
        else:
            name, extra = names.get(key, "?"), []
        places = row["places"]
        table.rows.append(Row(
            [_int(row["place"]), _text(name), *extra, _int(row["points"]), _int(row["games"]),
             *[_int(places.get(n, 0)) for n in range(1, PLACE_COLUMNS + 1)]], url=url))
    return table


def season_table(season: Season, data: dict) -> Table:
    names = selectors.team_names(r["team"] for r in data["teams"])
    return _standings(season, data["teams"], names, _("Team"), "team")


def players_table(season: Season, data: dict) -> Table | None:
    """The ranked players (rule 2.6: linked profiles, one row per person), named as their
    profile, with the teams they played for in the season."""
    if data["players"] is None:
        return None
    people = selectors.profiles(r["player"] for r in data["players"])
    teams = selectors.team_names(t for r in data["players"] for t in r["teams"])
    names = {r["player"]: (people.get(r["player"], "?"),
                           ", ".join(teams.get(t, "?") for t in r["teams"]))
             for r in data["players"]}
    return _standings(season, data["players"], names, _("Player"), "player")


def unregistered_table(data: dict) -> Table | None:
    """Who played without counting (rule 2.6: not linked to a named profile before the game):
    listed by nickname and team, apart from the ranking, never placed."""
    rows = data.get("unregistered") or []
    if not rows:
        return None
    members = selectors.member_names(r["member"] for r in rows)
    table = Table([_("Player"), _("Team"), _("Games")], [False, False, True])
    lines = sorted(((members[r["member"]], r["games"]) for r in rows if r["member"] in members),
                   key=lambda line: (line[0].nickname.casefold(), line[0].team.name.casefold()))
    for member, games in lines:
        table.rows.append(Row([_text(member.nickname), _text(member.team.name), _int(games)],
                              css="unregistered"))
    return table


# --- the chart -------------------------------------------------------------------------------

CHART_TEAMS = 5
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd")


def season_chart(data: dict, names: dict[int, str], top: int = CHART_TEAMS) -> SafeString:
    """An inline SVG: the top teams' season totals after each game, one line per team, with a
    legend (names escaped). Empty when no game is final yet."""
    progress = data["progress"]
    teams = [row["team"] for row in data["teams"][:top]]
    if not progress or not teams:
        return mark_safe("")  # noqa: S308 - constant
    width, height, left, right, top_pad, bottom = 640, 260, 44, 150, 12, 28
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    values = [after.get(t, 0) for after in progress for t in teams]
    low, high = min(0, *values), max(1, *values)
    n = len(progress)

    def x(i: int) -> float:
        return left + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: int) -> float:
        return top_pad + plot_h - (v - low) * plot_h / (high - low)

    parts = [f'<svg class="season-chart" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(_("Points after each game"))}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{left}" y1="{y(low):.1f}" x2="{left + plot_w}" y2="{y(low):.1f}" '
             f'stroke="#999"/>',
             f'<line x1="{left}" y1="{top_pad}" x2="{left}" y2="{top_pad + plot_h}" '
             f'stroke="#999"/>',
             f'<text x="{left - 4}" y="{y(high) + 4:.1f}" text-anchor="end" font-size="11">'
             f'{high}</text>',
             f'<text x="{left - 4}" y="{y(low) + 4:.1f}" text-anchor="end" font-size="11">'
             f'{low}</text>']
    for i in range(n):
        parts.append(f'<text x="{x(i):.1f}" y="{height - 10}" text-anchor="middle" '
                     f'font-size="11">{i + 1}</text>')
    for index, team in enumerate(teams):
        color = COLORS[index % len(COLORS)]
        points = " ".join(f"{x(i):.1f},{y(after.get(team, 0)):.1f}"
                          for i, after in enumerate(progress))
        name = escape(names.get(team, "?"))
        final = progress[-1].get(team, 0)
        parts.append(f'<polyline class="chart-line" data-team="{team}" data-points="{final}" '
                     f'fill="none" stroke="{color}" stroke-width="2" points="{points}">'
                     f'<title>{name}: {final}</title></polyline>')
        # A dot on every game: a season of one game has no line to draw, only these.
        for i, after in enumerate(progress):
            parts.append(f'<circle class="chart-point" data-team="{team}" data-game="{i + 1}" '
                         f'data-points="{after.get(team, 0)}" cx="{x(i):.1f}" '
                         f'cy="{y(after.get(team, 0)):.1f}" r="4" fill="{color}">'
                         f'<title>{name}: {after.get(team, 0)}</title></circle>')
        ly = top_pad + 14 + index * 18
        parts.append(f'<rect x="{left + plot_w + 12}" y="{ly - 9}" width="10" height="10" '
                     f'fill="{color}"/><text class="chart-legend" x="{left + plot_w + 26}" '
                     f'y="{ly}" font-size="12">{index + 1}. {name}</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - numbers and escaped names only
