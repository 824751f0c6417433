"""Before the night: routes for a non-linear game (4.2) and the set-up warnings the organizer
sees before the start.

Pure, like the whole package (see ``gorod.rules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gorod.rules.record import DEFAULT_HINT_OFFSETS_MIN, DEFAULT_LIMIT_MIN

# --------------------------------------------------------------------------------------------
# Routes for a non-linear game
# --------------------------------------------------------------------------------------------


def generate_routes(level_ids: list[str], team_names: list[str], seed: int | str) -> dict[str, list[str]]:
    """Routes for a non-linear game (4.2) that spread teams across levels.

    A seeded shuffle of the levels, then a Latin-square rotation: team ``i`` starts at position
    ``i * n // t`` of the shuffled cycle and follows it around, so (with ``t`` teams and ``n``
    levels, ``t <= n``) no two teams start on the same level, and teams moving at the same pace
    never meet on a level. Teams are assigned to rotations in a seeded order too. With more teams
    than levels the rotations repeat as evenly as possible. The same seed gives the same routes.

    >>> generate_routes(["1", "2", "3"], ["A", "B", "C"], seed=7) == generate_routes(
    ...     ["1", "2", "3"], ["A", "B", "C"], seed=7)
    True
    >>> sorted(route[0] for route in generate_routes(["1", "2", "3"], ["A", "B", "C"], 1).values())
    ['1', '2', '3']
    """
    if len(set(level_ids)) != len(level_ids) or not level_ids:
        raise ValueError("level_ids must be distinct and not empty")
    if len(set(team_names)) != len(team_names):
        raise ValueError("team_names must be distinct")
    # Here, not at the top: only the set-up draws routes, and loading random slows a replay.
    import random

    rng = random.Random(seed)
    cycle = list(level_ids)
    rng.shuffle(cycle)
    order = list(team_names)
    rng.shuffle(order)
    n, t = len(cycle), max(len(order), 1)
    routes = {}
    for i, team in enumerate(order):
        shift = (i * n // t) if t <= n else i % n
        routes[team] = cycle[shift:] + cycle[:shift]
    return {team: routes[team] for team in team_names}


# --------------------------------------------------------------------------------------------
# Set-up warnings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetupWarning:
    """Something that will surprise the organizer during the night, found before the start.
    ``kind`` says what (the page words it); the other fields say where."""

    kind: str  # hint_after_limit | no_code | no_personal_code | duplicate_code | route | no_route
    level: str | None = None
    team: str | None = None
    hint: int | None = None  # 1-based
    minutes: float | None = None  # the hint's time
    limit_min: float | None = None
    code: str | None = None
    levels: tuple[str, ...] = ()  # duplicate_code: where the code is; route: levels missing
    teams: tuple[str, ...] = ()  # no_personal_code: teams without their part
    extra: tuple[str, ...] = ()  # route: levels unknown or visited twice


def setup_warnings(*, levels: list[Mapping], hint_offsets_min=DEFAULT_HINT_OFFSETS_MIN,
                   teams: list[str] = (), routes: Mapping[str, list[str]] | None = None
                   ) -> list[SetupWarning]:
    """What to fix before the start; none of it stops the engine. ``levels`` are mappings with
    ``id``, ``duration_min`` (default 70) and ``codes`` (``gorod.codes.level_codes_from_dict``
    form); ``routes`` maps a team to its level ids (none: a linear game).

    - a hint due at or after its level's limit: the level fails first, the hint never appears;
    - a level without a usable code, or a personal part / digit missing for some team;
    - a code that closes two places (two levels, or two sectors), read as ``codes_match`` does:
      a team on one level typing the other's code;
    - in a non-linear game, a team without a route, or a route that does not visit every level
      exactly once.

    Worked example: hint 2 at 50 min on a 45 min level, and level 2 repeating level 1's code
    typed on the Russian layout.

    >>> for w in setup_warnings(levels=[{"id": "1", "codes": {"code": "G1R1D"}},
    ...         {"id": "2", "duration_min": 45, "codes": {"code": "п1к1в"}}]):
    ...     print(w.kind, w.level or w.levels, w.hint, w.code)
    hint_after_limit 2 2 None
    duplicate_code ('1', '2') None G1R1D
    """
    # Here, not at the top: a replay (a process of its own, make bench) needs no code matching.
    from gorod.codes import CodeSpecError, level_codes_from_dict

    found: list[SetupWarning] = []
    places: list[tuple[str, str, str, str]] = []  # level, sector, normalised, layout form
    ids = [str(level.get("id")) for level in levels]
    for level in levels:
        level_id = str(level.get("id"))
        limit = level.get("duration_min", DEFAULT_LIMIT_MIN)
        for number, offset in enumerate(hint_offsets_min, start=1):
            if isinstance(limit, int | float) and offset >= limit:
                found.append(SetupWarning("hint_after_limit", level=level_id, hint=number,
                                          minutes=offset, limit_min=limit))
        try:
            spec = level_codes_from_dict(level.get("codes") or {})
        except CodeSpecError:
            found.append(SetupWarning("no_code", level=level_id))
            continue
        missing = spec.missing_for(teams)
        if missing:
            found.append(SetupWarning("no_personal_code", level=level_id, teams=tuple(missing)))
        for sector in spec.sectors:
            owners = [None] if sector.kind == "common" else [
                t for t in teams if t in sector.personal]
            for team in owners:
                for norm, keys in zip(sector.accepted(team), sector.accepted_layout(team),
                                      strict=True):
                    places.append((level_id, sector.name, norm, keys))
    reported: set[tuple] = set()
    for i, (level_a, sector_a, norm_a, keys_a) in enumerate(places):
        for level_b, sector_b, norm_b, keys_b in places[i + 1:]:
            if (level_a, sector_a) == (level_b, sector_b):
                continue  # alternatives of one sector may well look alike
            if norm_a == norm_b or keys_a == keys_b:
                key = (level_a, sector_a, level_b, sector_b)
                if key not in reported:
                    reported.add(key)
                    found.append(SetupWarning("duplicate_code", code=norm_a,
                                              levels=tuple(dict.fromkeys((level_a, level_b)))))
    if routes:
        for team in teams:
            route = routes.get(team)
            if route is None:
                found.append(SetupWarning("no_route", team=team))
                continue
            seen: set[str] = set()
            extra = []
            for level_id in route:
                if level_id in seen or level_id not in ids:
                    extra.append(level_id)
                seen.add(level_id)
            missing_levels = tuple(i for i in ids if i not in seen)
            if missing_levels or extra:
                found.append(SetupWarning("route", team=team, levels=missing_levels,
                                          extra=tuple(extra)))
    return found


# --------------------------------------------------------------------------------------------
# A test run's speeded-up clock
# --------------------------------------------------------------------------------------------

#: The speed-ups a test run may take: ×1 (real time) to ×120 (a 70-minute level in 35 s).
SPEED_UP_RANGE = (1, 120)


@dataclass(frozen=True)
class SpeededSetup:
    """A game's minutes as a test run played ``factor`` times faster takes them."""

    hint_offsets_min: list[float]
    sliv_penalty_min: float
    max_duration_h: float
    durations_min: list[float]
    checkin_every_min: int


def speed_up(*, factor: int, hint_offsets_min, sliv_penalty_min: float, max_duration_h: float,
             durations_min, checkin_every_min: int = 0) -> SpeededSetup:
    """Every span of the game's clock divided by ``factor``: the hint times, the levels' time
    limits, the penalty per failed level and the time cap, so at ×10 a level's hints come at
    +2.5 and +5 min and it fails at +7 min of real time, each a tenth of the night's.

    The one place a test run's speed-up turns into minutes: the copy is then an ordinary game
    whose record replays as it was played, and the engine never learns of a factor.
    Check-ins on dangerous levels are asked in whole minutes: the interval is rounded up, at
    least 1 when they are on. The brute-force window and a team's timeout are not the clock's
    (a tester types and rests at a human speed) and stay as they are.

    >>> s = speed_up(factor=10, hint_offsets_min=[25, 50], sliv_penalty_min=15,
    ...              max_duration_h=24, durations_min=[70, 90])
    >>> s.hint_offsets_min, s.durations_min, s.sliv_penalty_min, s.max_duration_h
    ([2.5, 5.0], [7.0, 9.0], 1.5, 2.4)
    """
    low, high = SPEED_UP_RANGE
    if isinstance(factor, bool) or not isinstance(factor, int) or not low <= factor <= high:
        raise ValueError(f"the speed-up is a whole number from {low} to {high}")
    every = int(checkin_every_min or 0)
    return SpeededSetup(
        hint_offsets_min=[float(m) / factor for m in hint_offsets_min],
        sliv_penalty_min=float(sliv_penalty_min) / factor,
        max_duration_h=float(max_duration_h) / factor,
        durations_min=[float(m) / factor for m in durations_min],
        checkin_every_min=-(-every // factor) if every else 0)
