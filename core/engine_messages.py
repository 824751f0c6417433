"""The rules engines' messages in the user's language.

The engines (``gorod/rules/``, ``gorod/codes.py``, ``rating/rules/``) are pure Python with no
Django, so they raise their errors in English, with the values in the text. Here, at the
boundary where a service turns an engine error into the user's refusal, the text is matched
against the engine's message shapes and translated with its values kept. Each shape is the
engine's f-string with every ``{expression}`` written as ``%(expression)s`` (its Python text
with non-word characters as ``_``): ``SHAPES`` lists them for the catalogue, and
``tests/core/test_messages.py`` walks the engines' ``raise`` statements so that a new or
changed message without its shape and Russian fails.

[decision] Engines stay as they are (no codes in them): their English stays readable in logs,
records and replays, and another engineer may reshape ``gorod/rules/`` without touching this.
"""

from __future__ import annotations

import ast
import re
from functools import cache

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def shape_of(node: ast.expr) -> str | None:
    """The shape of an engine message given as a literal or an f-string, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("%", "%%")
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value).replace("%", "%%"))
        else:
            name = re.sub(r"\W+", "_", ast.unparse(value.value)).strip("_")
            parts.append(f"%({name})s")
    return "".join(parts)


#: Shapes with less fixed text than this are wrappers around another message
#: (``"%(where)s.%(message)s"``): they would match anything, so they are left as they are.
MIN_LITERAL = 6


def literal_length(shape: str) -> int:
    return len(PLACEHOLDER.sub("", shape))


@cache
def _patterns() -> list[tuple[re.Pattern, str, list[str]]]:
    """(regex, shape, the placeholder of each group ``g0``, ``g1``, …), the shapes with the
    most fixed text first (the most specific)."""
    patterns = []
    for shape in SHAPES:
        pieces = PLACEHOLDER.split(shape)
        regex, names = [], []
        for i, piece in enumerate(pieces):
            if i % 2:
                regex.append(f"(?P<g{len(names)}>.+?)")
                names.append(piece)
            else:
                regex.append(re.escape(piece.replace("%%", "%")))
        patterns.append((literal_length(shape), re.compile("".join(regex) + r"\Z", re.S),
                         shape, names))
    patterns.sort(key=lambda p: -p[0])
    return [(regex, shape, names) for _n, regex, shape, names in patterns]


def translate(message: object) -> str:
    """An engine's message (or exception) in the active language; unknown text as it is."""
    text = str(message)
    for regex, shape, names in _patterns():
        match = regex.match(text)
        if match:
            # a value may be another engine message (a wrapper's "why")
            values = {}
            for i, name in enumerate(names):
                value = match.group(f"g{i}")
                values[name] = translate(value) if len(value) > 12 else value
            return _(shape) % values
    return text


#: The engines' message shapes (``shape_of`` of each ``raise``), for the catalogue.
SHAPES = (
    gettext_noop('%(where)s: %(value)s is not a plausible game time (year 1900–9000)'),
    gettext_noop('%(where)s: expected a finite number, got %(value)s'),
    gettext_noop('%(where)s: %(value)s is outside %(bracket)s%(low)s, %(high)s]'),
    gettext_noop('the record must be a JSON object'),
    gettext_noop("format: expected 'gorod', got %(fmt)s"),
    gettext_noop('%(event_where)s.at: %(format_time_event_at)s is before the start %(format_time_start)s'),
    gettext_noop('hint_offsets_min: the hint times must increase'),
    gettext_noop('levels: a game needs at least one level'),
    gettext_noop('now: expected an aware datetime (with a UTC offset)'),
    gettext_noop('end: %(format_time_record_end)s is later than now (%(format_time_now)s)'),
    gettext_noop("%(event_where)s: %(team)s's %(event_type)s on level %(event_level)s at %(format_time_event_at)s: %(why)s"),
    gettext_noop("%(timeout_where)s: %(team)s's timeout at %(format_time_timeout_at)s: %(why)s"),
    gettext_noop('%(where)s: %(value_isoformat)s is out of range'),
    gettext_noop('end: %(data_end)s is before the start %(data_start)s'),
    gettext_noop('end: %(data_end)s is after the %(max_h)s h cap'),
    gettext_noop('end: %(data_end)s is later than now (%(data_now)s)'),
    gettext_noop('%(event_where)s.at: %(format_time_event_at)s is later than %(label)s (%(format_time_from_us_bound_start_tzinfo)s)'),
    gettext_noop('%(where)s.id: level %(level_id)s is listed twice'),
    gettext_noop('%(where)s: unknown team %(team)s'),
    gettext_noop('%(where)s: the route misses level(s) %(join_missing)s (a route visits every level exactly once)'),
    gettext_noop('%(where)s.team: unknown team %(team)s'),
    gettext_noop('%(where)s.type: unknown event type %(kind)s (expected one of %(join_EVENT_TYPES)s)'),
    gettext_noop('%(event_where)s.at: %(format_time_event_at)s is later than now (%(format_time_now)s)'),
    gettext_noop('%(where)s[%(j)s]: unknown level %(level_id)s'),
    gettext_noop('%(where)s[%(j)s]: level %(level_id)s is visited twice (a route visits every level exactly once)'),
    gettext_noop('%(where)s.level: unknown level %(level)s'),
    gettext_noop("%(where)s: %(team)s's level %(level)s is closed twice (already by %(first_type)s in %(first_where)s)"),
    gettext_noop('%(label_event_team_level_id)s: the team received that level only at %(fmt_r_record)s%(was_on_rows_at_record)s'),
    gettext_noop("%(label_event_team_level_id)s: after the level's fail time %(fmt_fail_record)s (the level was already failed by the clock)"),
    gettext_noop("%(label_event_team_level_id)s: during the team's timeout (%(fmt_t_start_record)s – %(fmt_t_start_t_us_record)s)"),
    gettext_noop('%(event_where)s: later than the computed moment'),
    gettext_noop('%(where)s: %(team)s takes a second timeout (one per game, 3.10; the first is %(self_timeouts_team_where)s)'),
    gettext_noop('%(where)s: average time for %(team)s on level %(level)s is already ruled in %(self_averages_team_level_where)s'),
    gettext_noop('%(where)s: %(team)s is already disqualified in %(self_disqualified_team_where)s'),
    gettext_noop('%(where)s.team: a pause is of the whole game and names no team'),
    gettext_noop('%(second_where)s: the pause at %(format_time_second_at)s overlaps the pause at %(format_time_first_at)s (%(first_minutes)s min, %(first_where)s)'),
    gettext_noop("%(second_where)s: %(timeout_team)s's timeout at %(format_time_timeout_at)s (%(timeout_minutes)s min) overlaps the pause of the game at %(format_time_pause_at)s (%(pause_minutes)s min)"),
    gettext_noop("%(event_where)s: %(event_team)s's %(event_type)s on level %(event_level)s at %(format_time_event_at)s is during the pause of the game (%(format_time_pause_at)s, %(pause_minutes)s min, %(pause_where)s)"),
    gettext_noop('%(where)s: expected a text, got %(value)s'),
    gettext_noop('sectors[%(index)s]: expected a mapping'),
    gettext_noop('%(where)s.codes: expected a list'),
    gettext_noop('%(where)s.personal: expected a mapping team → part'),
    gettext_noop('already_found names unknown sectors: %(join_sorted_unknown)s'),
    gettext_noop('sector %(self_name)s: unknown kind %(self_kind)s'),
    gettext_noop('sector %(self_name)s: no code'),
    gettext_noop('sector %(self_name)s: an empty code never matches'),
    gettext_noop('sector %(self_name)s: an empty personal part never matches'),
    gettext_noop('sector %(self_name)s: no personal %(part_if_self_kind_personal_else_digit)s for team %(team)s'),
    gettext_noop('a level needs at least one code'),
    gettext_noop('sector names must be distinct'),
    gettext_noop('sectors: expected a list'),
    gettext_noop('bad level code description: %(exc)s'),
    gettext_noop('%(where)s: expected a whole number, got %(describe_value)s'),
    gettext_noop('%(points_where)s: expected a list of points, got %(type_points___name)s'),
    gettext_noop('%(points_where)s: a scale needs points for at least 1st place'),
    gettext_noop('%(where)s.beyond: expected one of %(join_BEYOND)s, got %(beyond)s'),
    gettext_noop('place: expected 1 or more, got %(place)s'),
    gettext_noop('scale: expected a Scale, got %(type_scale___name)s'),
    gettext_noop('teams_played: expected 0 or more, got %(teams_played)s'),
    gettext_noop('votes: expected a list of votes'),
    gettext_noop('%(where)s: expected one of %(join_map_str_VOTES)s, got %(describe_vote)s'),
    gettext_noop('teams: expected a list of team names'),
    gettext_noop("kingofhill.format: expected 'kingofhill', got %(describe_koth_record_get_format)s"),
    gettext_noop('kingofhill: the King of the Hill engine gave no list of moves'),
    gettext_noop("format: expected 'season', got %(describe_data_get_format)s"),
    gettext_noop('games: missing'),
    gettext_noop('%(where)s: %(team)s did not play or organize this game'),
    gettext_noop('%(where)s: a name may not be empty'),
    gettext_noop('%(spot)s: points may not be negative, got %(value)s'),
    gettext_noop('%(spot)s: %(value)s is more than the place before (%(points_index_1)s); a scale may not increase'),
    gettext_noop('%(where)s: expected a list of points or one of %(names)s, got %(value)s'),
    gettext_noop('kingofhill: the King of the Hill rules engine is not available'),
    gettext_noop('kingofhill: the King of the Hill engine could not replay this record (%(type_exc___name)s%(detail)s)'),
    gettext_noop('%(spot)s.team: %(team)s organizes this game, so it cannot also play it (it is in %(seen_team)s)'),
    gettext_noop('%(spot)s: write a deduction as the positive number of points to subtract, got %(amount)s'),
    gettext_noop('%(spot)s: %(team)s is in this game twice (also in %(seen_team)s)'),
    gettext_noop('%(where)s.effective.%(team)s: expected jump or revolution, got %(describe_kind)s'),
    gettext_noop('%(spot)s.votes.%(voter)s: only a team that played this game votes, and %(voter)s did not'),
    gettext_noop('%(spot)s[%(index)s]: %(name)s is listed twice in this game (also for %(player_team_name)s)'),
    gettext_noop('%(where)s.kingofhill: %(message)s'),
    gettext_noop("%(where)s.kingofhill.teams: %(team)s is not in this game's results or disqualified"),
)
