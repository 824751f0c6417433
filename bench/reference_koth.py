"""The yardstick for ``manage.py replay`` of a King of the Hill record: the rules of
``docs/rules/kingofhill.md`` written again, straightforwardly, as plain loops over the parsed
JSON record — no caches, no precomputed keys, no project imports, no checks of the input (it
reads only valid records).

``make bench`` times the engine against it (the engine must be at least as fast), and
``tests/core/test_bench_references.py`` holds its output byte for byte equal to the command's
on the bench's records and on every example, which cross-checks the engine as well.
"""

from __future__ import annotations

import json
from datetime import datetime

import orjson

HOLDS_TO_WIN = 3


def replay(record: dict) -> dict:
    """The replay contract's output (``docs/spec/record-format.md``) for a valid record."""
    teams = record["teams"]
    n = len(teams)
    summit = record.get("summit") or 7
    top = summit - 1
    main = record.get("main_questions")
    total = None if main is None else main + (record.get("reserve_questions") or 0)

    step = [0] * n
    points = [0] * n
    right = [True] * n
    failed = [False] * n
    changed_question = [0] * n
    changed_at = [None] * n  # the arrival (a datetime) of the answer that last moved the team
    king = None  # registration index
    holds = 0
    finish_reason = None
    question = 0
    moves_out = []

    for move in record.get("moves") or []:
        question += 1
        announced = when(move.get("announced_at"))
        bonus = 1 if move.get("partner") else 0
        correct = [False] * n
        arrival = [None] * n
        for name, answer in (move.get("answers") or {}).items():
            i = teams.index(name)
            correct[i] = answer["correct"]
            arrival[i] = when(answer.get("at"))

        kind = ["ordinary"] * n
        effective, ignored = {}, {}
        for name, declared in (move.get("declarations") or {}).items():
            i = teams.index(name)
            reason = refusal(declared["kind"], question, i == king, step[i], top, failed[i],
                             king is not None, right[i])
            at = when(declared.get("at"))
            if reason is None and at is not None and announced is not None and at >= announced:
                reason = "declared after the question was announced"
            if reason is None:
                kind[i] = declared["kind"]
                effective[name] = declared["kind"]
            else:
                ignored[name] = reason

        before = [(step[i], points[i]) for i in range(n)]
        had_king = king is not None
        arriving, rebels = [], []
        for i in range(n):
            if i == king:
                if correct[i]:
                    points[i] += 1 + bonus
            elif kind[i] == "revolution":
                right[i] = False
                rebels.append(i)
                if correct[i]:
                    points[i] += 1 + bonus
            else:
                target = step[i]
                if kind[i] == "jump":
                    if correct[i]:
                        target = step[i] + 2
                        points[i] += 2 + bonus
                    else:
                        target = max(0, step[i] - 1)
                elif correct[i]:
                    target = step[i] + 1
                    points[i] += 1 + bonus
                if target >= summit:
                    if not had_king:
                        arriving.append(i)
                    target = top
                step[i] = target

        # A contest for the summit: more points, then the earlier answer, then registration.
        new_king = None
        if arriving:
            new_king = min((-points[i], arrival_key(arrival[i]), i) for i in arriving)[2]
        elif had_king and not correct[king]:
            winners = [i for i in rebels if correct[i]]
            if winners:
                new_king = min((-points[i], arrival_key(arrival[i]), i) for i in winners)[2]
                step[king] = top
        if new_king is not None:
            king = new_king
            step[king] = summit
            holds = 0
            right = [True] * n
        elif had_king:
            holds += 1

        for i in range(n):
            if (step[i], points[i]) != before[i]:
                changed_question[i] = question
                changed_at[i] = arrival[i]
        failed = [not c for c in correct]

        if king is not None and holds >= HOLDS_TO_WIN:
            finish_reason = "king_held"
        elif total is not None and question >= total:
            finish_reason = "questions_exhausted"
        elif king is not None:
            left = HOLDS_TO_WIN - holds
            if total is not None:
                left = min(left, total - question)
            reach = [i != king and moves_to_penultimate(step[i], top, failed[i]) + 1 <= left
                     for i in range(n)]
            if not any(reach[i] and right[i] for i in range(n)):
                right = [True] * n
                if not any(reach):
                    finish_reason = "no_challenger"

        moves_out.append({
            "question": question, "partner": bool(move.get("partner")), "effective": effective,
            "ignored": ignored, "correct": [teams[i] for i in range(n) if correct[i]],
            "king": None if king is None else teams[king]})
        if finish_reason is not None:
            break

    order = sorted(range(n), key=lambda i: (i != king, -step[i], -points[i],
                                            changed_question[i], arrival_key(changed_at[i]), i))
    winner = None
    if finish_reason is not None:
        winner = teams[king] if king is not None else teams[order[0]]
    return {
        "format": "kingofhill",
        "summit": summit,
        "question": question,
        "finished": finish_reason is not None,
        "finish_reason": finish_reason,
        "winner": winner,
        "king": None if king is None else teams[king],
        "king_holds": holds,
        "teams": [{"team": teams[i], "place": place, "step": step[i], "points": points[i],
                   "revolution_right": right[i] and i != king}
                  for place, i in enumerate(order, start=1)],
        "moves": moves_out,
    }


def refusal(kind, question, is_king, step, top, last_failed, has_king, has_right):
    """Why a declaration may not count on ``question`` (the rules page's list), or None."""
    if kind == "jump":
        if question == 1:
            return "jump not allowed on the first question"
        if is_king:
            return "the King cannot jump"
        if step == top:
            return "jump not allowed on the penultimate step"
        if last_failed:
            return "jump not allowed after a failed move"
        return None
    if is_king:
        return "the King cannot declare a revolution"
    if not has_king:
        return "revolution needs a King"
    if step != top:
        return "revolution only from the penultimate step"
    if not has_right:
        return "no revolution right left"
    return None


def moves_to_penultimate(step, top, last_failed):
    """The least number of all-correct moves from ``step`` to S-1 (the rules' ``k``)."""
    if step >= top:
        return 0
    d = top - step
    if last_failed:
        return 1 + d // 2  # 1 + ceil((d - 1) / 2): no jump on the first of them
    return (d + 1) // 2  # ceil(d / 2)


def when(text):
    return None if text is None else datetime.fromisoformat(text)


def arrival_key(at):
    # An answer without a time ranks after every answer with one.
    return (1, 0.0) if at is None else (0, at.timestamp())


def run(path: str) -> bytes:
    """What ``manage.py replay PATH`` prints (without its final newline): the file read, the
    record parsed, replayed, and written as indented UTF-8 JSON with the command's encoder."""
    with open(path, encoding="utf-8") as handle:
        record = json.loads(handle.read())
    return orjson.dumps(replay(record), option=orjson.OPT_INDENT_2)
