"""How fast the King of the Hill engine replays a game and recomputes it after a changed verdict.

Run: ``.venv/bin/python bench/bench_kingofhill.py``. Plain script, not a test; prints a table.

The live app recomputes the whole board from the record on every write (a verdict, a partner
mark, a declaration), so the figure that matters is the 24-team recompute: it must stay far
below 10 ms. The records are deterministic (fixed seeds). They are driven by the engine itself
so that the game does not finish early: whenever the King is one hold from winning, it answers
wrongly and a team waiting on the penultimate step revolts correctly.
"""

from __future__ import annotations

import copy
import random
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.records import RecordError  # noqa: E402
from kingofhill import rules  # noqa: E402

T0 = datetime(2026, 12, 5, 19, 0, tzinfo=timezone(timedelta(hours=3)))


def build_record(n_teams: int, n_moves: int, seed: int, main_questions: int | None) -> dict:
    rnd = random.Random(seed)
    teams = [f"Team {i:02d}" for i in range(n_teams)]
    record = {"format": "kingofhill", "summit": 7, "teams": teams, "moves": []}
    if main_questions is not None:
        record["main_questions"] = main_questions
    board = rules.initial_board(rules.parse_record(record))
    for q in range(n_moves):
        announced = T0 + timedelta(minutes=3 * q)
        move = {"announced_at": announced.isoformat(), "partner": q % 7 == 6,
                "declarations": {}, "answers": {}}
        rebels = []
        for state in board.teams:
            allowed = rules.allowed_declarations(board, state.team)
            if allowed.revolution and rnd.random() < 0.4:
                rebels.append(state.team)
            elif allowed.jump and rnd.random() < 0.3:
                move["declarations"][state.team] = {
                    "kind": "jump", "at": (announced - timedelta(seconds=rnd.randint(1, 90))).isoformat()}
        finale = board.king is not None and board.king_holds == rules.KING_HOLD_MOVES - 1
        if finale and not rebels:
            rebels = list(rules.challengers(board))[:1]
        for team in rebels:
            move["declarations"][team] = {"kind": "revolution"}
        seconds = rnd.sample(range(5, 120), n_teams) if n_teams <= 115 else [
            rnd.uniform(5, 120) for _ in teams]
        for i, team in enumerate(teams):
            correct = rnd.random() < 0.6
            if finale and team == board.king:
                correct = False
            if finale and rebels and team == rebels[0]:
                correct = True
            move["answers"][team] = {
                "correct": correct, "at": (announced + timedelta(seconds=seconds[i])).isoformat()}
        record["moves"].append(move)
        board = rules.advance(board, rules.parse_move(move, set(teams), f"moves[{q}]"))
        if board.finished and q + 1 < n_moves:
            print(f"note: the {n_teams}-team game finished after {q + 1} moves "
                  f"({board.finish_reason}); benchmarking that record")
            break
    return record


def best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def flipped(record: dict) -> tuple[dict, str]:
    """The record with one verdict in the middle of the game changed, still a valid record."""
    teams = record["teams"]
    middle = len(record["moves"]) // 2
    for offset in range(len(record["moves"])):
        q = (middle + offset) % len(record["moves"])
        for team in teams:
            changed = copy.deepcopy(record)
            answer = changed["moves"][q]["answers"][team]
            answer["correct"] = not answer["correct"]
            try:
                rules.compute(rules.parse_record(changed))
            except RecordError:
                continue  # the change would end the game before the record does
            return changed, f"question {q + 1}, {team}"
    raise SystemExit("no single verdict can change without ending the game early")


def main() -> None:
    big = build_record(64, 500, seed=64, main_questions=None)
    club = build_record(24, 60, seed=24, main_questions=60)
    changed, where = flipped(club)
    parsed_changed = rules.parse_record(changed)

    rows = [
        ("full replay, 64 teams", len(big["moves"]), best_of(5, lambda: rules.replay(big))),
        ("full replay, 24 teams", len(club["moves"]), best_of(30, lambda: rules.replay(club))),
        ("recompute after one verdict, 24 teams (parse + compute)", len(club["moves"]),
         best_of(50, lambda: rules.compute(rules.parse_record(changed)))),
        ("  of which compute only", len(club["moves"]),
         best_of(50, lambda: rules.compute(parsed_changed))),
    ]
    final_big = rules.compute(rules.parse_record(big))
    final_club = rules.compute(rules.parse_record(club))
    print(f"64-team game: {final_big.question} moves, king {final_big.king}, "
          f"finished {final_big.finish_reason}, {sum(1 for m in final_big.moves if any(k == 'revolution' for k in m.effective.values()))} moves with revolutions")
    print(f"24-team game: {final_club.question} moves, king {final_club.king}, "
          f"finished {final_club.finish_reason}; changed verdict: {where}")
    print()
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'moves':>5}  {'best ms':>9}  {'µs/move':>8}")
    print(f"{'-' * width}  {'-' * 5}  {'-' * 9}  {'-' * 8}")
    for name, moves, ms in rows:
        print(f"{name:<{width}}  {moves:>5}  {ms:>9.2f}  {ms * 1000 / moves:>8.1f}")


if __name__ == "__main__":
    main()
