"""GoRoD reads: the game record built from the rows, the engine's results at a moment, and the
three audiences' states (public, organizer, team). Everything shown is computed here from
``(record, now)`` with the pure ``gorod.rules``, so a reload always shows the right thing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from gorod import rules
from gorod.codes import CodeSpecError, level_codes_from_dict
from gorod.models import CodeAttempt, GorodGame, Level, Route, Ruling
from teams.models import Application

ATTEMPTS_LOG = 100
TEAM_ATTEMPTS = 20
# Ruling types that take effect at a moment of the game; the others are about totals.
TIMED_RULINGS = ("sliv", "force_majeure", "timeout")


def gorod_game(game_id: int) -> GorodGame:
    """``GorodGame.DoesNotExist`` when there is none."""
    return GorodGame.objects.select_related("game").get(pk=game_id)


def iso(value: datetime | None) -> str | None:
    return None if value is None else timezone.localtime(value).isoformat()


def entries(gg: GorodGame) -> list[Application]:
    """The playing teams: the frozen order once started, else the approved applications."""
    if gg.team_order:
        by_pk = {a.pk: a for a in Application.objects.select_related("team")
                 .filter(pk__in=gg.team_order)}
        return [by_pk[pk] for pk in gg.team_order if pk in by_pk]
    return list(Application.objects.select_related("team")
                .filter(game_id=gg.pk, status=Application.Status.APPROVED)
                .order_by("created_at", "pk"))


def levels(gg: GorodGame) -> list[Level]:
    return list(Level.objects.filter(gorod=gg).order_by("order"))


def build_record(gg: GorodGame, *, now: datetime | None = None,
                 end: datetime | None = None) -> dict:
    """The contract record (``spec/record-format.md``) of a started game. ``end`` overrides the
    stored end (the service checking an end before storing it)."""
    teams = entries(gg)
    names = {a.pk: a.team.name for a in teams}
    level_rows = levels(gg)
    labels = {lv.pk: lv.label for lv in level_rows}
    events: list[dict] = []
    closing = CodeAttempt.objects.filter(gorod=gg, closes_level=True,
                                         application_id__in=names).order_by("at", "pk")
    for attempt in closing:
        events.append({"team": names[attempt.application_id], "type": "code",
                       "level": labels[attempt.level_id], "at": iso(attempt.at)})
    for ruling in Ruling.objects.filter(gorod=gg, application_id__in=names).select_related("by"):
        event: dict[str, Any] = {"team": names[ruling.application_id], "type": ruling.type}
        if ruling.type in TIMED_RULINGS:
            event["at"] = iso(ruling.at)
        if ruling.type in ("sliv", "force_majeure", "average_time"):
            event["level"] = labels.get(ruling.level_id)
        if ruling.minutes is not None:
            event["minutes"] = ruling.minutes
        if ruling.reason:
            event["reason"] = ruling.reason
        if ruling.by is not None:
            event["by"] = ruling.by.get_username()
        events.append(event)
    record: dict[str, Any] = {
        "format": "gorod",
        "start": iso(gg.started_at),
        "levels": [{"id": lv.label, "duration_min": lv.duration_min} for lv in level_rows],
        "teams": [names[a.pk] for a in teams],
        "events": events,
        "hint_offsets_min": list(gg.hint_offsets_min),
        "sliv_penalty_min": gg.sliv_penalty_min,
        "max_duration_h": gg.max_duration_h,
    }
    routes = {names[r.application_id]: list(r.levels)
              for r in Route.objects.filter(gorod=gg, application_id__in=names)}
    if routes:
        record["routes"] = routes
    end = end or gg.ended_at
    if end is not None:
        record["end"] = iso(end)
    if now is not None:
        record["now"] = iso(now)
    return record


@dataclass
class Snapshot:
    gorod: GorodGame
    now: datetime
    entries: list[Application]
    levels: list[Level]
    record: dict | None = None
    results: rules.Results | None = None
    by_name: dict[str, rules.TeamResult] = field(default_factory=dict)

    @property
    def names(self) -> dict[int, str]:
        return {a.pk: a.team.name for a in self.entries}

    def level(self, label: str | None) -> Level | None:
        return next((lv for lv in self.levels if lv.label == label), None)


def load_snapshot(gg: GorodGame, now: datetime | None = None, *,
                  end: datetime | None = None) -> Snapshot:
    """The engine's view at ``now``; raises ``RecordError`` if the stored rows are impossible
    (the services check this before committing)."""
    now = now or timezone.now()
    snap = Snapshot(gorod=gg, now=now, entries=entries(gg), levels=levels(gg))
    if gg.started_at is not None:
        snap.record = build_record(gg, end=end)
        snap.results = rules.compute(rules.parse_record(snap.record), max(now, gg.started_at))
        snap.by_name = {t.team: t for t in snap.results.teams}
    return snap


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, rules.Ruling):
        return {"type": value.type, "minutes": value.minutes, "level": value.level,
                "at": iso(value.at), "reason": value.reason, "by": value.by}
    return value


def statistics(snap: Snapshot) -> dict | None:
    if snap.results is None:
        return None
    table = _plain(rules.statistics_table(snap.results))
    ids = {name: pk for pk, name in snap.names.items()}
    for row in table["rows"]:
        row["application"] = ids.get(row["team"])
    return table


def game_info(snap: Snapshot) -> dict:
    gg = snap.gorod
    results = snap.results
    return {
        "id": gg.pk, "title": gg.game.title, "status": gg.status,
        "started_at": iso(gg.started_at), "ended_at": iso(gg.ended_at),
        "levels": len(snap.levels), "teams": len(snap.entries),
        "finished_share": results.finished_share if results else 0.0,
        "now": iso(snap.now),
    }


def public_state(snap: Snapshot) -> dict:
    over = snap.gorod.status == GorodGame.Status.FINISHED
    return {"game": game_info(snap), "statistics": statistics(snap) if over else None}


def _attempt(a: CodeAttempt, names: dict[int, str], labels: dict[int, str]) -> dict:
    return {"id": a.pk, "team": names.get(a.application_id), "application": a.application_id,
            "level": labels.get(a.level_id), "text": a.text, "at": iso(a.at),
            "verdict": a.verdict, "sector": a.sector or None, "closed": a.closes_level}


def organizer_state(snap: Snapshot) -> dict:
    gg = snap.gorod
    names = snap.names
    labels = {lv.pk: lv.label for lv in snap.levels}
    log = CodeAttempt.objects.filter(gorod=gg).order_by("-at", "-pk")[:ATTEMPTS_LOG]
    rulings = Ruling.objects.filter(gorod=gg).select_related("by").order_by("-created_at", "-pk")
    return {
        **public_state(snap),
        "statistics": statistics(snap),
        "next_deadline": iso(rules.next_deadline(snap.results)) if snap.results else None,
        "settings": {"hint_offsets_min": gg.hint_offsets_min,
                     "sliv_penalty_min": gg.sliv_penalty_min,
                     "max_duration_h": gg.max_duration_h, "max_wrong": gg.max_wrong,
                     "wrong_window_s": gg.wrong_window_s},
        "teams": [{"application": a.pk, "name": a.team.name,
                   "current_level": (snap.by_name[a.team.name].current_level
                                     if a.team.name in snap.by_name else None)}
                  for a in snap.entries],
        "level_list": [{"label": lv.label, "order": lv.order, "duration_min": lv.duration_min}
                       for lv in snap.levels],
        "attempts": [_attempt(a, names, labels) for a in log],
        "rulings": [{"id": r.pk, "team": names.get(r.application_id), "type": r.type,
                     "minutes": r.minutes, "level": labels.get(r.level_id), "at": iso(r.at),
                     "reason": r.reason, "by": r.by.get_username() if r.by else None,
                     "created_at": iso(r.created_at)} for r in rulings],
    }


def sectors(level: Level, team: str, found: set[str]) -> list[dict]:
    try:
        spec = level_codes_from_dict(level.codes)
    except CodeSpecError:  # pragma: no cover - checked when the level is stored
        return []
    return [{"name": s.name, "found": s.name in found} for s in spec.sectors]


def found_sectors(application_id: int, level: Level) -> set[str]:
    return set(CodeAttempt.objects.filter(
        application_id=application_id, level=level,
        verdict=CodeAttempt.Verdict.ACCEPTED).values_list("sector", flat=True))


def team_state(snap: Snapshot, application_id: int) -> dict:
    """What one team's phones see: its level, hints, deadlines and its own attempts only."""
    name = snap.names.get(application_id)
    state = public_state(snap)
    me: dict[str, Any] = {"application": application_id, "team": name, "status": None,
                          "level": None, "history": [], "attempts": []}
    state["me"] = me
    result = snap.by_name.get(name) if name else None
    if result is None:
        return state
    labels = {lv.pk: lv.label for lv in snap.levels}
    over = snap.results.game_over
    me.update(status=result.status, levels_closed=result.levels_closed,
              finished_at=iso(result.finished_at),
              place=result.place if over else None, total_s=result.total_s if over else None)
    for number, lr in enumerate(result.levels, start=1):
        if lr.closed_at is not None:
            me["history"].append({"number": number, "level": lr.level,
                                  "received_at": iso(lr.received_at),
                                  "closed_at": iso(lr.closed_at), "outcome": lr.outcome,
                                  "how": lr.how, "duration_s": lr.duration_s,
                                  "hints_shown": lr.hints_shown})
    if result.current_level is not None:
        lr = result.levels[-1]
        level = snap.level(result.current_level)
        shown = lr.hints_shown
        upcoming = [h for h in lr.hints_at[shown:] if h < lr.fail_at]
        timeout_until = None
        if result.timeout_at is not None:
            end = result.timeout_at + timedelta(seconds=result.timeout_s)
            if result.timeout_at <= snap.now < end:
                timeout_until = iso(end)
        me["level"] = {
            "number": len(result.levels), "of": len(snap.levels), "label": lr.level,
            "task": level.task, "received_at": iso(lr.received_at),
            "hints": [{"n": i + 1, "text": level.hint_text(i), "at": iso(lr.hints_at[i])}
                      for i in range(shown)],
            "next_hint_at": iso(upcoming[0]) if upcoming else None,
            "fail_at": iso(lr.fail_at), "timeout_until": timeout_until,
            "sectors": sectors(level, name, found_sectors(application_id, level)),
        }
    mine = CodeAttempt.objects.filter(gorod=snap.gorod, application_id=application_id) \
        .order_by("-at", "-pk")[:TEAM_ATTEMPTS]
    me["attempts"] = [{k: v for k, v in _attempt(a, snap.names, labels).items()
                       if k not in ("team", "application")} for a in mine]
    return state


def team_version(gg: GorodGame, application_id: int | None) -> int:
    return int((gg.team_versions or {}).get(str(application_id), 0))


def read_state(gg: GorodGame, *, kind: str, application_id: int | None = None,
               now: datetime | None = None) -> dict:
    """``{"version", "state"}`` for a resync; the version is read before the state."""
    version = team_version(gg, application_id) if kind == "team" else gg.version
    snap = load_snapshot(gg, now)
    if kind == "organizer":
        state = organizer_state(snap)
    elif kind == "team":
        state = team_state(snap, application_id)
    else:
        state = public_state(snap)
    return {"version": version, "state": state}
