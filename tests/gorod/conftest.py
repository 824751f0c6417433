"""Small builders for GoRoD records: times are minutes after the game's start."""

from __future__ import annotations

from datetime import datetime, timedelta

START = datetime.fromisoformat("2026-12-05T22:00:00+03:00")


def at(minutes: float) -> str:
    """The ISO time ``minutes`` after the start (22:00 +03:00)."""
    return (START + timedelta(minutes=minutes)).isoformat()


def record(levels=(70, 70, 70), teams=("A", "B"), events=(), **extra) -> dict:
    """A GoRoD record: ``levels`` are limits in minutes (ids "1", "2", …)."""
    data = {
        "format": "gorod",
        "start": START.isoformat(),
        "levels": [{"id": str(i), "duration_min": limit} for i, limit in enumerate(levels, 1)],
        "teams": list(teams),
        "events": list(events),
    }
    data.update(extra)
    return data


def code(team: str, level: str, minutes: float) -> dict:
    return {"team": team, "type": "code", "level": level, "at": at(minutes)}


def sliv(team: str, level: str, minutes: float) -> dict:
    return {"team": team, "type": "sliv", "level": level, "at": at(minutes)}


def force_majeure(team: str, level: str, minutes: float) -> dict:
    return {"team": team, "type": "force_majeure", "level": level, "at": at(minutes)}


def timeout(team: str, minutes: float, length: float) -> dict:
    return {"team": team, "type": "timeout", "minutes": length, "at": at(minutes)}


def penalty(team: str, length: float) -> dict:
    return {"team": team, "type": "penalty", "minutes": length, "reason": "test"}


def bonus(team: str, length: float) -> dict:
    return {"team": team, "type": "bonus", "minutes": length}


def average(team: str, level: str) -> dict:
    return {"team": team, "type": "average_time", "level": level}


def disqualify(team: str) -> dict:
    return {"team": team, "type": "disqualify"}
