"""Parsing the results page's forms into what the services take (shape only: the checks as a
whole are ``rating.services.results_table_set``'s)."""

from __future__ import annotations

from typing import Any


def _number(value: str | None) -> Any:
    value = (value or "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return value  # the service refuses it with its own message


def table_rows(post, team_ids: list[int]) -> list[dict]:
    """The one form of the whole table: per team ``place-<id>``, ``dq-<id>``,
    ``deduction-<id>`` and ``reason-<id>``."""
    rows = []
    for team_id in team_ids:
        deduction = _number(post.get(f"deduction-{team_id}"))
        rows.append({
            "team": team_id,
            "place": _number(post.get(f"place-{team_id}")),
            "disqualified": post.get(f"dq-{team_id}") == "on",
            "deduction": 0 if deduction is None else deduction,
            "reason": post.get(f"reason-{team_id}", ""),
        })
    return rows


def number(value: str | None) -> Any:
    return _number(value)
