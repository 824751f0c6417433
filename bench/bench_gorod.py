"""Benchmark of the GoRoD engine on a big night: 200 teams × 30 levels, 20 000 code attempts.

Run: ``.venv/bin/python bench/bench_gorod.py``. Deterministic (seeded); no Django needed.

The attempts go through the real code matcher and brute-force limiter, the accepted ones become
the record's ``code`` events, then the full results plus statistics table are timed (best of
several runs), and so is the recomputation one code submission costs in the live app.
"""

from __future__ import annotations

import random
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gorod.codes import LevelCodes, Sector, check_attempt_limit, match_attempt, standard_code  # noqa: E402
from gorod.rules import compute, generate_routes, parse_record, statistics_table  # noqa: E402

TEAMS, LEVELS, ATTEMPTS, RUNS = 200, 30, 20_000, 7
START = datetime.fromisoformat("2026-12-05T22:00:00+03:00")


def build(seed: int = 2026, n_teams: int = TEAMS, n_levels: int = LEVELS, attempts: int = ATTEMPTS):
    rng = random.Random(seed)
    level_ids = [str(i) for i in range(1, n_levels + 1)]
    teams = [f"Team {i:03d}" for i in range(n_teams)]
    limits = {lid: rng.choice([45, 60, 70, 70, 70, 90]) for lid in level_ids}
    # A few levels with sectors, personal codes and personal digits, to exercise every kind.
    specs: dict[str, LevelCodes] = {}
    for i, lid in enumerate(level_ids):
        if i % 10 == 3:
            specs[lid] = LevelCodes((Sector("one", codes=(standard_code(1, rng=rng),)),
                                     Sector("two", codes=(standard_code(1, rng=rng),))))
        elif i % 10 == 6:
            specs[lid] = LevelCodes((Sector("code", "personal", ("R9D",),
                                            {t: f"G1P{j}" for j, t in enumerate(teams)}),))
        elif i % 10 == 8:
            specs[lid] = LevelCodes((Sector("code", "personal_digit", (standard_code(1, rng=rng),),
                                            {t: str(j % 10) for j, t in enumerate(teams)}),))
        else:
            specs[lid] = LevelCodes.single(standard_code(1, rng=rng))
    routes = generate_routes(level_ids, teams, seed)

    def right_texts(team: str, lid: str) -> list[str]:
        return [s.accepted(team)[0] for s in specs[lid].sectors]

    # Each team's clock: its current level, when it got it, what it has found there.
    state = {t: {"pos": 0, "r": START, "found": set(), "wrong": []} for t in teams}
    events: list[dict] = []
    verdicts = {"accepted": 0, "wrong": 0, "repeat": 0, "limited": 0, "late": 0}
    clock = START
    step = timedelta(seconds=24 * 3600 * 0.8 / attempts)
    burst_team, burst_left = None, 0
    for _ in range(attempts):
        # Now and then a team hammers codes a second apart, so the limiter has work to do.
        if burst_left:
            burst_left -= 1
            clock += timedelta(seconds=1)
            team = burst_team
        else:
            clock += step
            team = rng.choice(teams)
            if rng.random() < 0.01:
                burst_team, burst_left = team, 20
        st = state[team]
        if st["pos"] >= n_levels:
            continue
        lid = routes[team][st["pos"]]
        fail = st["r"] + timedelta(minutes=limits[lid])
        while clock > fail:  # the level failed by the clock meanwhile
            st["pos"] += 1
            st["r"], st["found"], st["wrong"] = fail, set(), []
            if st["pos"] >= n_levels:
                break
            lid = routes[team][st["pos"]]
            fail = st["r"] + timedelta(minutes=limits[lid])
        if st["pos"] >= n_levels:
            verdicts["late"] += 1
            continue
        limit = check_attempt_limit(st["wrong"], clock)
        if not limit.allowed:
            verdicts["limited"] += 1
            continue
        if rng.random() < 0.06:
            text = rng.choice(right_texts(team, lid)).lower()
        else:
            text = standard_code(1, rng=rng)
        result = match_attempt(specs[lid], team, text, st["found"])
        verdicts[result.verdict] += 1
        if result.is_wrong:
            st["wrong"] = [t for t in st["wrong"] if (clock - t).total_seconds() < 60] + [clock]
        st["found"] = set(result.found)
        if result.closed:
            events.append({"team": team, "type": "code", "level": lid, "at": clock.isoformat()})
            st["pos"] += 1
            st["r"], st["found"], st["wrong"] = clock, set(), []
    for i, team in enumerate(teams[:20]):
        events.append({"team": team, "type": "penalty", "minutes": 10 + i, "reason": "bench"})
    record = {
        "format": "gorod", "start": START.isoformat(),
        "levels": [{"id": lid, "duration_min": limits[lid]} for lid in level_ids],
        "teams": teams, "routes": routes, "events": events,
        "now": clock.isoformat(),
    }
    return record, verdicts


def best_of(fn, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(n_teams: int = TEAMS, n_levels: int = LEVELS, attempts: int = ATTEMPTS,
         runs: int = RUNS) -> dict[str, float]:
    """Print the figures and return them in seconds (the suite runs a small night through it)."""
    t0 = time.perf_counter()
    record, verdicts = build(n_teams=n_teams, n_levels=n_levels, attempts=attempts)
    setup = time.perf_counter() - t0
    print(f"GoRoD benchmark: {n_teams} teams × {n_levels} levels, {attempts:,} code attempts")
    print(f"  attempts through matcher + limiter: {setup:6.2f} s  ({setup / attempts * 1e6:.0f} µs each)")
    print("  verdicts: " + ", ".join(f"{k} {v:,}" for k, v in verdicts.items()))
    print(f"  code events in the record: {sum(e['type'] == 'code' for e in record['events']):,}")

    parsed = parse_record(record)
    results = compute(parsed)
    levels = sum(len(t.levels) for t in results.teams)
    print(f"  level rows computed: {levels:,}")

    full = best_of(lambda: statistics_table(compute(parse_record(record))), runs)
    print(f"  full results + statistics table (parse included), best of {runs}: {full * 1000:7.1f} ms")
    only = best_of(lambda: statistics_table(compute(parsed)), runs)
    print(f"  results + statistics from a parsed record,        best of {runs}: {only * 1000:7.1f} ms")

    # One submission in the live app: one more code event for a team still playing, and the
    # record recomputed at that moment.
    now = datetime.fromisoformat(record["now"])
    live = compute(parsed, now)
    team = next((t for t in live.teams if t.current_level is not None), None)
    extra = dict(record)
    if team is not None:
        extra["events"] = [*record["events"], {"team": team.team, "type": "code",
                                               "level": team.current_level, "at": now.isoformat()}]
    submission = best_of(lambda: compute(parse_record(extra), now), runs)
    print(f"  one code submission's recomputation,              best of {runs}: {submission * 1000:7.1f} ms")
    verdict = "OK" if full < 1.0 else "TOO SLOW"
    print(f"  target: full results well under 1 s → {verdict}")
    return {"attempts": setup, "full": full, "parsed": only, "submission": submission}


if __name__ == "__main__":
    main()
