"""GoRoD reads: the game record built from the rows, the engine's results at a moment, and the
audiences' states (public, organizer, each team). Everything shown is computed here from
``(record, now)`` with the pure ``gorod.rules``; ``build_states`` is the live core's build
(``live``), which stores the states that reads then serve. No state carries the current
time, so a state changes only at an event or at a deadline of the engine's."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from core import engine_messages, sql
from core.errors import DomainError
from core.records import RecordError
from gorod import changes, reads, realtime, rules
from gorod.codes import CodeSpecError, level_codes_from_dict
from gorod.models import CodeAttempt, GorodGame, Level, PhotoProof, Ruling, TimeoutRequest
from live import delta
from live.codec import encode
from live.messages import PUBLIC, Stored, team_audience
from live.rows import Rows
from live.store import Parts, stored_texts, streams_stored
from live.versioned import VersionedCache
from live.write import Write
from teams.models import Application, Game

ATTEMPTS_LOG = 200
TEAM_ATTEMPTS = 20


def gorod_game(game_id: int) -> GorodGame:
    """``GorodGame.DoesNotExist`` when there is none."""
    return GorodGame.objects.select_related("game").get(pk=game_id)


def iso(value: datetime | None) -> str | None:
    """A moment as the club's local ISO time: ``2026-12-05T22:00:00+03:00``. The site's zone
    (``TIME_ZONE``) is never switched per request, so it is the default zone's (cached), not
    ``timezone.localtime``'s per-call lookup of the request's.

    Remembered per moment: a write re-renders the same received, closed, hint and fail times
    of its teams on every state it builds (a closing code ~200 of them), and a conversion
    costs some 25 times a lookup. Equal instants in other zones are equal keys, and give the
    same answer: it is the default zone's either way."""
    if value is None:
        return None
    zone = timezone.get_default_timezone()
    if _ISO[0] is not zone or len(_ISO[1]) > _ISO_MOST:
        _ISO[:] = [zone, {}]  # a zone changed (settings in tests) or the memo is full
    known = _ISO[1]
    found = known.get(value)
    if found is None:
        found = known[value] = value.astimezone(zone).isoformat()
    return found


_ISO_MOST = 50_000  # ~a night's distinct moments of a 200-team game; ~8 MB at most
_ISO: list = [None, {}]


def entries(gg: GorodGame) -> list[Application]:
    """The playing teams: the frozen order once started, else the approved applications."""
    if gg.team_order:
        by_pk = {a.pk: a for a in Application.objects.select_related("team")
                 .filter(pk__in=gg.team_order)}
        return [by_pk[pk] for pk in gg.team_order if pk in by_pk]
    return list(Application.objects.select_related("team")
                .filter(game_id=gg.pk, status=Application.Status.APPROVED)
                .order_by("created_at", "pk"))


def team_names(gg: GorodGame) -> dict[int, str]:
    """``{application id: team name}`` of a started game in its frozen order, without loading
    the rows (what one team's timeline needs of the others: their names)."""
    found = dict(Application.objects.filter(pk__in=gg.team_order).values_list("pk", "team__name"))
    return {pk: found[pk] for pk in gg.team_order if pk in found}


def levels(gg: GorodGame) -> list[Level]:
    return list(Level.objects.filter(gorod=gg).order_by("order"))


@dataclass(frozen=True)
class Setup:
    """What every code of a started game is checked against besides its team's rows: the
    levels in order, their codes parsed, the team names. Shared between threads: read only."""

    levels: list[Level]
    names: dict[int, str]
    codes: dict[int, Any]  # level id -> ``LevelCodes`` (or the ``CodeSpecError`` it raised)

    def spec(self, level: Level):
        found = self.codes[level.pk]
        if isinstance(found, CodeSpecError):
            raise found
        return found


_SETUPS = VersionedCache(size=32)


def setup(gg: GorodGame) -> Setup:
    """The game's ``Setup``, from the process's cache while the game's set-up version stands
    (``gorod.signals``). Only for a started game: before the start a write may change a level
    and read the levels again in the same transaction, under the number it locked."""
    if gg.started_at is None:
        return _load_setup(gg)
    version = (gg.setup_version, gg.started_at, tuple(gg.team_order))
    return _SETUPS.get((connection.alias, connection.settings_dict["NAME"], gg.pk), version,
                       lambda: _load_setup(gg))


def _load_setup(gg: GorodGame) -> Setup:
    level_rows = levels(gg)
    codes: dict[int, Any] = {}
    for lv in level_rows:
        try:
            codes[lv.pk] = level_codes_from_dict(lv.codes)
        except CodeSpecError as exc:  # pragma: no cover - checked when the level is stored
            codes[lv.pk] = exc
    return Setup(level_rows, team_names(gg), codes)


def build_record(gg: GorodGame, *, now: datetime | None = None, end: datetime | None = None,
                 teams: list[Application] | None = None,
                 level_rows: list[Level] | None = None,
                 only: int | Collection[int] | None = None,
                 names: dict[int, str] | None = None,
                 team_rows: reads.TeamRows | None = None) -> dict:
    """The contract record (``docs/spec/record-format.md``) of a started game. ``end`` overrides the
    stored end (the service checking an end before storing it); ``teams`` and ``level_rows``
    spare the queries when the caller has them (or ``names``, ``team_names``). With ``only`` (an
    application id, or several) the record names every team but carries only those teams'
    events and routes: what their timelines need (``rules.team_result``), read without the other
    teams' rows; ``team_rows``, the one team's rows a code already read (``reads.team_rows``)."""
    if names is None:
        teams = entries(gg) if teams is None else teams
        names = {a.pk: a.team.name for a in teams}
    level_rows = levels(gg) if level_rows is None else level_rows
    labels = {lv.pk: lv.label for lv in level_rows}
    whose = None if only is None else [only] if isinstance(only, int) else list(only)
    if team_rows is not None:
        closing = [(a.application_id, a.level_id, a.at) for a in team_rows.closing()]
        standing = team_rows.rulings
        routes = {} if team_rows.route is None else {team_rows.application_id: team_rows.route}
    else:
        closing = reads.closing_codes(gg.pk, whose)
        standing = reads.rulings(gg.pk, whose)
        routes = reads.routes(gg.pk, whose)
    events: list[dict] = [{"team": names[app], "type": "code", "level": labels[level],
                           "at": iso(at)} for app, level, at in closing if app in names]
    for ruling in standing:
        if ruling.application_id not in names:
            continue
        event: dict[str, Any] = {"team": names[ruling.application_id], "type": ruling.type}
        if ruling.type in rules.TIMED_RULINGS:
            event["at"] = iso(ruling.at)
        if ruling.type in rules.LEVEL_RULINGS:
            event["level"] = labels.get(ruling.level_id)
        if ruling.minutes is not None:
            event["minutes"] = ruling.minutes
        if ruling.reason:
            event["reason"] = ruling.reason
        if ruling.by is not None:
            event["by"] = ruling.by
        events.append(event)
    record: dict[str, Any] = {
        "format": "gorod",
        "start": iso(gg.started_at),
        "levels": [{"id": lv.label, "duration_min": lv.duration_min} for lv in level_rows],
        "teams": list(names.values()),
        "events": events,
        "hint_offsets_min": list(gg.hint_offsets_min),
        "sliv_penalty_min": gg.sliv_penalty_min,
        "max_duration_h": gg.max_duration_h,
    }
    routes = {names[app]: levels for app, levels in routes.items() if app in names}
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

    known_names: dict[int, str] | None = None  # given instead of ``entries`` (team_snapshot)

    @property
    def names(self) -> dict[int, str]:
        if self.known_names is None:
            self.known_names = {a.pk: a.team.name for a in self.entries}
        return self.known_names

    def level(self, label: str | None) -> Level | None:
        return next((lv for lv in self.levels if lv.label == label), None)


def load_snapshot(gg: GorodGame, now: datetime | None = None, *,
                  end: datetime | None = None) -> Snapshot:
    """The engine's view at ``now``; raises ``RecordError`` if the stored rows are impossible
    (the services check this before committing)."""
    now = now or timezone.now()
    snap = Snapshot(gorod=gg, now=now, entries=entries(gg), levels=levels(gg))
    if gg.started_at is not None:
        snap.record = build_record(gg, end=end, teams=snap.entries, level_rows=snap.levels)
        # A finished game's results are those at its end, whatever a (skewed) clock says.
        moment = max(now, gg.ended_at or gg.started_at)
        snap.results = rules.compute(rules.parse_record(snap.record), moment)
        snap.by_name = {t.team: t for t in snap.results.teams}
    return snap


def team_snapshot(gg: GorodGame, application_id: int | Collection[int], now: datetime, *,
                  like: Snapshot | None = None, team_rows: reads.TeamRows | None = None
                  ) -> Snapshot:
    """The engine's view of one team (or of several) at ``now`` from its own rows alone
    (``rules.team_result``): its level, status and timeout, what a code is checked against.
    ``results`` holds those teams only and carries no place; ``game_over`` is the clock's (a
    game every team has finished is already stored as finished). Refuses an impossible record
    like ``snapshot_or_refusal``. ``like``: an earlier one of the same write, whose levels and
    names are reused; ``team_rows``: the one team's rows, already read (``reads.team_rows``)."""
    ids = [application_id] if isinstance(application_id, int) else list(application_id)
    if like is not None:
        known_levels, known_names = like.levels, like.names
    else:
        found = setup(gg)
        known_levels, known_names = found.levels, found.names
    snap = Snapshot(gorod=gg, now=now, entries=[], levels=known_levels, known_names=known_names)
    if team_rows is not None and ids != [team_rows.application_id]:
        team_rows = None  # several teams: each one's rows are read with the record
    moment = max(now, gg.ended_at or gg.started_at)
    key = None if team_rows is None else _timeline_key(gg, team_rows, known_levels, known_names)
    known = None if key is None else _TIMELINES.get(key)
    advanced = None
    if key is not None and known is None:
        advanced = _advanced(gg, team_rows, snap, moment)
    if known is not None and known.levels is known_levels and known.names is known_names and (
            known.moment <= moment < known.result.next_deadline):
        record, results = known.record, (known.result,)
    elif advanced is not None:
        record, results = advanced
        if results[0].next_deadline is not None:
            _remember_timeline(key, _Timeline(known_levels, known_names, moment, record,
                                              results[0]))
    else:
        snap_record = build_record(gg, names=snap.names, level_rows=snap.levels, only=ids,
                                   team_rows=team_rows)
        try:
            record = rules.parse_record(snap_record)
            results = tuple(rules.team_result(record, snap.names[pk], moment) for pk in ids)
        except RecordError as exc:
            raise DomainError(_("The game engine refuses this: %(why)s")
                              % {"why": engine_messages.translate(exc)}) from None
        if key is not None and results[0].next_deadline is not None:
            _remember_timeline(key, _Timeline(known_levels, known_names, moment, record,
                                              results[0]))
    snap.results = rules.Results(
        start=record.start, now=moment, game_over=rules.clock_over(record, moment),
        ended_at=None, end_reason=None, level_ids=tuple(lv.id for lv in record.levels),
        teams=results, cap=record.cap)
    snap.by_name = {result.team: result for result in results}
    return snap


@dataclass(frozen=True)
class _Timeline:
    """A team's result as ``team_snapshot`` computed it at ``moment``, and the record it came
    from. The result holds until the team's next deadline while its rows stand: a team's
    timeline changes only at its own events and deadlines (``rules.team_result``)."""

    levels: list[Level]  # the set-up it was computed with (held: identity is checked)
    names: dict[int, str]
    moment: datetime
    record: rules.GameRecord
    result: rules.TeamResult


def _timeline_key(gg: GorodGame, rows: reads.TeamRows, levels: list[Level],
                  names: dict[int, str], closing: list | None = None) -> tuple:
    """Everything a team's timeline is computed from but the set-up (held by the entry) and
    the moment: a wrong code, most of a night's, then reuses its team's last result instead of
    building and replaying the team's record (a sixth of a code's time, ``make bench``).
    ``closing``: the team's closing codes if not all of ``rows`` (``_advanced``)."""
    closing = rows.closing() if closing is None else closing
    return (connection.settings_dict["NAME"], gg.pk, rows.application_id, id(levels), id(names),
            gg.started_at, gg.ended_at, tuple(gg.hint_offsets_min), gg.sliv_penalty_min,
            gg.max_duration_h, tuple((a.level_id, a.at) for a in closing),
            tuple(rows.rulings), None if rows.route is None else tuple(rows.route))


def _advanced(gg: GorodGame, rows: reads.TeamRows, snap: Snapshot, moment: datetime
              ) -> tuple[rules.GameRecord, tuple[rules.TeamResult]] | None:
    """The team's record and result after its latest closing code, from the timeline kept
    before that code (the code's own check left it): the record parsed then, with the code's
    one event added (``rules.with_event``, equal to parsing the whole record again) and the
    team's timeline replayed on it. None when no such timeline is kept, or the engine refuses
    (then the record is built and parsed whole, and refused in its words)."""
    closing = rows.closing()  # in the order they came: the latest last
    if not closing:
        return None
    before = _TIMELINES.get(_timeline_key(gg, rows, snap.levels, snap.names, closing[:-1]))
    if before is None or before.levels is not snap.levels or before.names is not snap.names:
        return None
    last, name = closing[-1], snap.names[rows.application_id]
    label = next((lv.label for lv in snap.levels if lv.pk == last.level_id), None)
    if label is None:
        return None
    try:
        record = rules.with_event(before.record, {"team": name, "type": "code", "level": label,
                                                  "at": iso(last.at)})
        return record, (rules.team_result(record, name, moment),)
    except RecordError:
        return None


def _remember_timeline(key: tuple, timeline: _Timeline) -> None:
    if len(_TIMELINES) >= _TIMELINES_MOST:
        _TIMELINES.clear()
    _TIMELINES[key] = timeline


_TIMELINES: dict[tuple, _Timeline] = {}
_TIMELINES_MOST = 4096  # teams; one night's few hundred, several games at once


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


def photo_closed(gorod_id: int, levels: Iterable[Level],
                 whose: Collection[int] | None = None) -> set[tuple[int, str]]:
    """``(application id, level label)`` of the levels these teams (None: all) closed by an
    accepted photo: the record has a code event there, the team's screens say «photo». A game
    without photo levels asks nothing (a code's write reads only what it needs)."""
    from gorod.services import PHOTO_SECTOR  # services import this module

    if not any(level.photo_proof for level in levels):
        return set()

    rows = CodeAttempt.objects.filter(gorod_id=gorod_id, closes_level=True, sector=PHOTO_SECTOR)
    if whose is not None:
        rows = rows.filter(application_id__in=list(whose))
    return set(rows.values_list("application_id", "level__label"))


def mark_photos(row: dict, level_ids, application: int | None,
                photos: set[tuple[int, str]]) -> dict:
    """A statistics row (``rules.statistics_row``, plain; its cells in ``level_ids`` order)
    with its photo-closed levels' outcome "photo" instead of "code"."""
    for label, cell in zip(level_ids, row["cells"], strict=True):
        if cell and cell["outcome"] == "code" and (application, label) in photos:
            cell["outcome"] = cell["how"] = "photo"
    return row


def statistics(snap: Snapshot) -> dict | None:
    if snap.results is None:
        return None
    table = _plain(rules.statistics_table(snap.results))
    ids = {name: pk for pk, name in snap.names.items()}
    photos = photo_closed(snap.gorod.pk, snap.levels)
    for row in table["rows"]:
        row["application"] = ids.get(row["team"])
        mark_photos(row, snap.results.level_ids, row["application"], photos)
    table["rows"] = Rows(table["rows"], by="application")
    return table


def game_info(snap: Snapshot) -> dict:
    gg = snap.gorod
    results = snap.results
    return {
        "id": gg.pk, "title": gg.game.title, "status": gg.status,
        "started_at": iso(gg.started_at), "ended_at": iso(gg.ended_at),
        "levels": len(snap.levels), "teams": len(snap.entries),
        "finished_share": results.finished_share if results else 0.0,
    }


def leaderboard(snap: Snapshot) -> list[dict] | None:
    """The live public standings when the organizer switched them on: per team its place, the
    levels it closed and its time so far (the engine's total, which moves only at an event of
    its own), never a code."""
    if not snap.gorod.leaderboard_public or snap.results is None:
        return None
    return [{"place": t.place, "team": t.team, "levels_closed": t.levels_closed,
             "time_s": t.total_s, "status": t.status} for t in snap.results.teams]


def public_state(snap: Snapshot) -> dict:
    over = snap.gorod.status == GorodGame.Status.FINISHED
    return {"game": game_info(snap), "statistics": statistics(snap) if over else None,
            "leaderboard": leaderboard(snap)}


def _attempt(a: CodeAttempt, names: dict[int, str], labels: dict[int, str]) -> dict:
    """An attempt on the organizer's log."""
    return {"id": a.pk, "team": names.get(a.application_id), "application": a.application_id,
            **_attempt_fields(a, labels)}


def _attempt_fields(a: CodeAttempt, labels: dict[int, str]) -> dict:
    """An attempt's own fields (a team's phones list them after its id)."""
    return {"level": labels.get(a.level_id), "text": a.text, "at": iso(a.at),
            "verdict": a.verdict, "sector": a.sector or None, "closed": a.closes_level}


def _team_row(snap: Snapshot, application_id: int, last: CodeAttempt | None,
              labels: dict[int, str]) -> dict:
    """A team on the organizer's list: its level, since when, its next deadline, its last
    attempt (the screen counts the time on the level from ``received_at``)."""
    name = snap.names.get(application_id)
    result = snap.by_name.get(name)
    open_level = result.levels[-1] if result and result.current_level is not None else None
    return {
        "application": application_id, "name": name,
        "status": result.status if result else None,
        "current_level": result.current_level if result else None,
        "level_number": len(result.levels) if open_level else None,
        "received_at": iso(open_level.received_at) if open_level else None,
        "next_deadline": iso(result.next_deadline) if open_level else None,
        "levels_closed": result.levels_closed if result else 0,
        "last_attempt": None if last is None else {
            "at": iso(last.at), "text": last.text, "verdict": last.verdict,
            "level": labels.get(last.level_id)},
    }


def _last_attempts(gg: GorodGame) -> dict[int, CodeAttempt]:
    """Each team's latest attempt, in one query."""
    latest = CodeAttempt.objects.filter(gorod=gg).annotate(
        rank=Window(RowNumber(), partition_by=[F("application_id")],
                    order_by=[F("at").desc(), F("pk").desc()])).filter(rank=1)
    return {a.application_id: a for a in latest}


def _organizer_live(snap: Snapshot) -> dict:
    """The organizer's fields every code changes: the moment and the attempt log (the code's
    team's row on the team list is replaced by ``_attempt_states``)."""
    gg = snap.gorod
    labels = {lv.pk: lv.label for lv in snap.levels}
    log = CodeAttempt.objects.filter(gorod=gg).order_by("-at", "-pk")[:ATTEMPTS_LOG]
    return {
        # The moment the live statistics hold for (the last write or deadline; a finished
        # game's are final as of its end): the organizer's state changes at every write
        # anyway, the public and team states never carry the time.
        "as_of": iso(gg.ended_at if gg.status == GorodGame.Status.FINISHED else snap.now),
        "attempts": Rows([_attempt(a, snap.names, labels) for a in log], by="id"),
    }


def organizer_state(snap: Snapshot) -> dict:
    gg = snap.gorod
    names = snap.names
    labels = {lv.pk: lv.label for lv in snap.levels}
    rulings = Ruling.objects.filter(gorod=gg).select_related("by").order_by("-created_at", "-pk")
    live = _organizer_live(snap)
    last = _last_attempts(gg)
    return {
        **public_state(snap),
        "statistics": statistics(snap),
        "as_of": live["as_of"],
        "next_deadline": iso(rules.next_deadline(snap.results)) if snap.results else None,
        "settings": {"hint_offsets_min": gg.hint_offsets_min,
                     "sliv_penalty_min": gg.sliv_penalty_min,
                     "max_duration_h": gg.max_duration_h, "max_wrong": gg.max_wrong,
                     "wrong_window_s": gg.wrong_window_s},
        "teams": Rows([_team_row(snap, a.pk, last.get(a.pk), labels) for a in snap.entries],
                      by="application"),
        "end_rule": {"share": rules.END_SHARE,
                     "allowed": bool(snap.results and snap.results.end_allowed)},
        "level_list": [{"label": lv.label, "order": lv.order, "duration_min": lv.duration_min}
                       for lv in snap.levels],
        "attempts": live["attempts"],
        "rulings": [{"id": r.pk, "team": names.get(r.application_id), "type": r.type,
                     "minutes": r.minutes, "level": labels.get(r.level_id), "at": iso(r.at),
                     "reason": r.reason, "by": r.by.get_username() if r.by else None,
                     "created_at": iso(r.created_at), "application": r.application_id,
                     "undone_at": iso(r.undone_at), "history": r.history or []}
                    for r in rulings],
        "timeout_requests": [_timeout_request(t, names) for t in TimeoutRequest.objects.filter(
            gorod=gg).select_related("decided_by").order_by("-asked_at", "-pk")],
        "photos": [_photo(p, names, labels) for p in PhotoProof.objects.filter(gorod=gg).defer(
            "data").select_related("decided_by").order_by("-uploaded_at", "-pk")],
    }


def _timeout_request(t: TimeoutRequest, names: dict[int, str]) -> dict:
    return {"id": t.pk, "team": names.get(t.application_id), "application": t.application_id,
            "minutes": t.minutes, "reason": t.reason, "asked_at": iso(t.asked_at),
            "status": t.status, "decided_at": iso(t.decided_at), "answer": t.answer,
            "by": t.decided_by.get_username() if t.decided_by else None}


def _photo(p: PhotoProof, names: dict[int, str], labels: dict[int, str]) -> dict:
    return {"id": p.pk, "team": names.get(p.application_id), "application": p.application_id,
            "level": labels.get(p.level_id), "uploaded_at": iso(p.uploaded_at),
            "status": p.status, "answer": p.answer, "decided_at": iso(p.decided_at),
            "by": p.decided_by.get_username() if p.decided_by else None,
            "url": reverse("gorod:photo", args=[p.gorod_id, p.pk])}


def sectors(level: Level, found: set[str], known: Setup) -> list[dict]:
    try:
        spec = known.spec(level)
    except CodeSpecError:  # pragma: no cover - checked when the level is stored
        return []
    return [{"name": s.name, "found": s.name in found} for s in spec.sectors]


@dataclass
class TeamData:
    """What the team states need beyond the engine's results, read for all teams at once:
    the sectors each team found per level and each team's latest attempts."""

    found: dict[tuple[int, int], set[str]]
    recent: dict[int, list[CodeAttempt]]
    # each team's latest timeout request and its photos per level (the latest first)
    timeout_requests: dict[int, TimeoutRequest] = field(default_factory=dict)
    photos: dict[tuple[int, int], list[PhotoProof]] = field(default_factory=dict)


def team_data(gg: GorodGame, only: int | Collection[int] | None = None, *,
              team_rows: reads.TeamRows | None = None) -> TeamData:
    """For every team, or for the team ``only`` (an application id, or several) a write
    touched; ``team_rows``: that one team's rows, already read by its code."""
    if team_rows is not None and only == team_rows.application_id:
        return _one_team_data(team_rows)
    # A team's rows are found by the team alone (its application is of this game), so the
    # team's index serves them rather than the game's.
    mine = ({"gorod": gg} if only is None else {"application_id": only}
            if isinstance(only, int) else {"application_id__in": list(only)})
    found: dict[tuple[int, int], set[str]] = {}
    for app_id, level_id, sector in CodeAttempt.objects.filter(
            verdict=CodeAttempt.Verdict.ACCEPTED, **mine).values_list(
            "application_id", "level_id", "sector"):
        found.setdefault((app_id, level_id), set()).add(sector)
    recent: dict[int, list[CodeAttempt]] = {}
    if isinstance(only, int):  # one team (a code): its newest rows off the team's index
        latest = CodeAttempt.objects.filter(application_id=only).order_by(
            "-at", "-pk")[:TEAM_ATTEMPTS]
    else:
        latest = CodeAttempt.objects.filter(**mine).annotate(
            rank=Window(RowNumber(), partition_by=[F("application_id")],
                        order_by=[F("at").desc(), F("pk").desc()])).filter(
            rank__lte=TEAM_ATTEMPTS).order_by("application_id", "-at", "-pk")
    for attempt in latest:
        recent.setdefault(attempt.application_id, []).append(attempt)
    requests = {t.application_id: t for t in TimeoutRequest.objects.filter(**mine)
                .order_by("asked_at", "pk")}
    photos: dict[tuple[int, int], list[PhotoProof]] = {}
    for proof in PhotoProof.objects.filter(**mine).defer("data").order_by(
            "-uploaded_at", "-pk"):
        photos.setdefault((proof.application_id, proof.level_id), []).append(proof)
    return TeamData(found=found, recent=recent, timeout_requests=requests, photos=photos)


def _one_team_data(team_rows: reads.TeamRows) -> TeamData:
    """``team_data`` of one team from the rows its code read (the timeout requests and photos
    read here, in one constant query)."""
    pk = team_rows.application_id
    asked, sent = reads.team_extras(pk)
    photos: dict[tuple[int, int], list] = {}
    for proof in sent:
        photos.setdefault((proof.application_id, proof.level_id), []).append(proof)
    return TeamData(found=team_rows.found_all(), recent={pk: team_rows.recent()},
                    timeout_requests={pk: asked[-1]} if asked else {}, photos=photos)


def team_state(snap: Snapshot, application_id: int, data: TeamData | None = None,
               public: dict | None = None) -> dict:
    """What one team's phones see: its level, hints, deadlines and its own attempts only."""
    state = dict(public or public_state(snap))
    state["me"] = team_me(snap, application_id, data)
    return state


def team_me(snap: Snapshot, application_id: int, data: TeamData | None = None) -> dict:
    """The team's own part of its phones' state (``me``): the rest is the public state."""
    data = data or team_data(snap.gorod)
    name = snap.names.get(application_id)
    me: dict[str, Any] = {"application": application_id, "team": name, "status": None,
                          "level": None, "history": [], "attempts": []}
    result = snap.by_name.get(name) if name else None
    if result is None:
        return me
    labels = {lv.pk: lv.label for lv in snap.levels}
    over = snap.results.game_over
    done = over or result.status == "finished"
    # [decision] The team's own penalties, bonuses and failed levels are shown live (they change
    # only at an event of its own); its total once it is fixed (its finish or the end); its
    # place only at the end: before, it depends on teams still playing.
    me.update(status=result.status, levels_closed=result.levels_closed,
              finished_at=iso(result.finished_at),
              failed_levels=result.slivs,
              failed_penalty_s=result.slivs * snap.gorod.sliv_penalty_min * 60.0,
              penalty_s=result.penalty_s, bonus_s=result.bonus_s,
              timeout_s=result.timeout_s, average_adjust_s=result.average_adjust_s,
              place=result.place if over else None, total_s=result.total_s if done else None,
              teams=len(snap.entries) if over else None)
    asked = data.timeout_requests.get(application_id)
    me["timeout_request"] = None if asked is None else {
        "minutes": asked.minutes, "reason": asked.reason, "status": asked.status,
        "asked_at": iso(asked.asked_at), "answer": asked.answer}
    me["timeout_taken"] = result.timeout_at is not None
    photos = photo_closed(snap.gorod.pk, snap.levels, [application_id])
    for number, lr in enumerate(result.levels, start=1):
        if lr.closed_at is not None:
            photo = lr.outcome == "code" and (application_id, lr.level) in photos
            me["history"].append({"number": number, "level": lr.level,
                                  "received_at": iso(lr.received_at),
                                  "closed_at": iso(lr.closed_at),
                                  "outcome": "photo" if photo else lr.outcome,
                                  "how": lr.how, "duration_s": lr.duration_s,
                                  "hints_shown": lr.hints_shown})
    if result.current_level is not None:
        lr = result.levels[-1]
        level = snap.level(result.current_level)
        shown = lr.hints_shown
        upcoming = [h for h in lr.hints_at[shown:] if h < lr.fail_at]
        timeout_until = iso(rules.timeout_until(result, snap.now))
        me["level"] = {
            "number": len(result.levels), "of": len(snap.levels), "label": lr.level,
            "task": level.task, "received_at": iso(lr.received_at),
            "hints": [{"n": i + 1, "text": level.hint_text(i), "at": iso(lr.hints_at[i])}
                      for i in range(shown)],
            "next_hint_at": iso(upcoming[0]) if upcoming else None,
            "fail_at": iso(lr.fail_at), "timeout_until": timeout_until,
            "sectors": sectors(level, data.found.get((application_id, level.pk), set()),
                               setup(snap.gorod)),
            "danger": level.danger, "danger_text": level.get_danger_display() if level.danger else None,
            "images": [reverse("gorod:team_image", args=[snap.gorod.pk, level.label, name])
                       for name in level.images or []],
            "photo_proof": level.photo_proof,
            "photos": [{"status": p.status, "uploaded_at": iso(p.uploaded_at), "answer": p.answer}
                       for p in data.photos.get((application_id, level.pk), [])[:3]],
        }
    me["attempts"] = [{"id": a.pk, **_attempt_fields(a, labels)}
                      for a in data.recent.get(application_id, [])]
    return me


def audience(kind: str, application_id: int | None = None) -> str:
    """The live audience of a screen: ``public``, ``organizer``, or one team's."""
    return team_audience(application_id) if kind == "team" else kind


def snapshot_or_refusal(gg: GorodGame, now: datetime, *, end: datetime | None = None) -> Snapshot:
    """``load_snapshot``, with an impossible record (a write the engine refuses) turned into the
    user's refusal: nothing of the write is stored."""
    try:
        return load_snapshot(gg, now, end=end)
    except RecordError as exc:
        raise DomainError(_("The game engine refuses this: %(why)s")
                              % {"why": engine_messages.translate(exc)}) from None


def build_states(w: Write, settled: None = None) -> dict[str, dict]:
    """The live core's build for GoRoD: settle the game at ``w.now`` (it finishes when the
    engine says it is over; the next deadline is stored for the clock), then the states of the
    audiences the write can change, by what the action says it changed (``gorod.changes``).
    Reuses the action's snapshot (``Computed``, ``RulingAdded``): it already includes the
    action's event.

    A write about one team (a ruling: ``RulingAdded``) changes the organizer's view and that
    team's own; the other teams' views are the public state plus their own results, which a
    write about another team cannot change while the game runs (places and totals are shown
    only once it is over) — so they are rebuilt only when the public state changed. A code that
    closes no level (``CodeChecked``) changes no result at all: with no deadline due, its
    team's view is rebuilt from that team's rows and the organizer's gets the new attempt on
    its stored statistics, with no recomputation of the game. A code that closes a level
    (``LevelClosed``), a code past a deadline and the clock's tick (``Tick``) move on only the
    teams they concern (``_advance_states``). A change this build does not know is refused."""
    gg = w.game
    calm = _nothing_due(gg, w.now)
    team_id, snap, states = None, None, None
    match w.change:
        case None:
            pass
        case changes.Computed(snapshot=snap):
            pass
        case changes.RulingAdded(team=team_id, snapshot=snap):
            pass
        case changes.CodeChecked() as code:
            team_id = code.team
            if calm:
                states = _attempt_states(w, [code])
            if states is None:
                states = _advance_states(w, {code.team}, team_rows=code.rows,
                                         like=code.snapshot,
                                         rows_of=_rows_of(code), attempts=[code.attempt])
        case changes.LevelClosed() as code:
            team_id = code.team
            states = _advance_states(w, {code.team}, team_rows=code.rows, like=code.before,
                                     rows_of=_rows_of(code), attempts=[code.attempt])
        case changes.Tick():
            states = _advance_states(w, set())
        case changes.CodesApplied(codes=codes):
            states = _batch_states(w, codes, calm)
        case _:
            raise TypeError(f"GoRoD builds no {type(w.change).__name__}: {w.change!r}")
    if states is not None:
        return states
    # Another team's view changes by the time alone at a deadline: past one, build them all.
    return _built_states(w, team_id if calm else None, snap)


def _built_states(w: Write, team_id: int | None, snap: Snapshot | None) -> dict[str, dict]:
    """Every audience's state from a computation of the game (``snap``, or a new one), the
    game settled; with ``team_id`` (a write about that team, nothing due) the other teams'
    views only when the public state changed."""
    gg = w.game
    snap = snap or snapshot_or_refusal(gg, w.now)
    fields = ["next_deadline", "clock_failures"]
    results = snap.results
    if gg.status == GorodGame.Status.RUNNING and results is not None and results.game_over:
        gg.status = GorodGame.Status.FINISHED
        gg.ended_at = gg.ended_at or results.ended_at
        fields += ["status", "ended_at"]
        Game.objects.filter(pk=gg.pk, status=Game.Status.RUNNING).update(
            status=Game.Status.FINISHED)
        snap = snapshot_or_refusal(gg, w.now)  # the record now carries the end
    running = gg.status == GorodGame.Status.RUNNING and snap.results is not None
    gg.next_deadline = rules.next_deadline(snap.results) if running else None
    gg.clock_failures = 0
    gg.save(update_fields=fields)
    public = public_state(snap)
    states = {PUBLIC: public, realtime.ORGANIZER: organizer_state(snap)}
    teams = [entry.pk for entry in snap.entries]
    # An average-time ruling credits its team from the others' times: then every view moves.
    if team_id is not None and running and not _averages_in_force(gg):
        stored = stored_texts(gg.pk, [PUBLIC])
        if stored.get(PUBLIC) == encode(public):
            teams = [team_id]
    data = team_data(gg, only=team_id if teams == [team_id] else None)
    for pk in teams:
        states[team_audience(pk)] = team_state(snap, pk, data, public)
    return states


def _nothing_due(gg: GorodGame, now: datetime) -> bool:
    """No deadline of the engine's has passed since the stored states were built (and the clock
    has not claimed one it has yet to apply): the stored results still hold at ``now``."""
    return (gg.status == GorodGame.Status.RUNNING and gg.clock_failures == 0
            and gg.next_deadline is not None and now < gg.next_deadline)


def merged(writes: list[Write]) -> Write:
    """Several codes applied in one batch (``live.batch``) as the one write ``build_states``
    takes: the latest moment, and the codes in the order they were applied. Only codes batch
    (``services.code_submit``): anything else is refused, and the live core then applies each
    write alone."""
    last = writes[-1]
    if not all(isinstance(x.change, changes.Code) for x in writes):
        raise ValueError("only codes are merged")
    return Write(game=last.game, now=last.now,
                 change=changes.CodesApplied(tuple(x.change for x in writes)))


def _batch_states(w: Write, codes: tuple[changes.Code, ...], calm: bool
                  ) -> dict[str, dict] | None:
    """The states a batch of codes changes: what applying them one by one would leave. Codes
    that closed no level with nothing due change their teams' own parts, rows and the log
    (``_attempt_states``); otherwise every team of the batch moves on at once
    (``_advance_states``, each team's timeline at the batch's latest moment, which is where one
    by one the last of them would have left it). None: everything is built."""
    if calm and all(isinstance(x, changes.CodeChecked) for x in codes):
        states = _attempt_states(w, codes)
        if states is not None:
            return states
    latest = {x.team: x for x in codes}  # each team's last code saw its earlier ones
    last = codes[-1]
    # A team whose last code closed no level keeps that code's view while none of its own
    # deadlines passed since (its results change only at its events and deadlines).
    snapshots = {}
    for pk, x in latest.items():
        if not isinstance(x, changes.CodeChecked):
            continue
        snap = x.snapshot
        result = snap.by_name.get(snap.names.get(pk))
        if result is not None and result.next_deadline is not None and (
                result.next_deadline > w.now):
            snapshots[pk] = snap
    return _advance_states(
        w, set(latest), attempts=[x.attempt for x in codes],
        like=last.before if isinstance(last, changes.LevelClosed) else last.snapshot,
        rows_of={pk: x.rows for pk, x in latest.items()}, given=snapshots)


def _attempt_states(w: Write, codes: Sequence[changes.CodeChecked]) -> dict[str, dict] | None:
    """The states codes that closed no level change (one code, or a batch's): each code's
    team's own part and the organizer's attempt log (the new attempts on top) and those teams'
    rows on the team list (``Parts``: the statistics and the rest are not read). None when a
    stored state is missing (then everything is built)."""
    if any(_averages_in_force(w.game, x.rows) for x in codes):
        return None  # the team's own timeline alone does not give its average-time credit
    latest = {x.team: x for x in codes}  # each team's last code saw its earlier ones
    keys = ["attempts", "teams"]
    # ``as_of`` too: every key the write returns is read here, for the comparison.
    stored = w.read_values({realtime.ORGANIZER: [*keys, "as_of"],
                            **{team_audience(pk): ["me"] for pk in latest}})
    organizer = stored.get(realtime.ORGANIZER, {})
    if not set(keys) <= set(organizer) or any(
            "me" not in stored.get(team_audience(pk), {}) for pk in latest):
        return None
    snap: Snapshot = codes[-1].snapshot
    labels = {lv.pk: lv.label for lv in snap.levels}
    rows, mine = {}, {}
    for pk, x in latest.items():
        data = team_data(w.game, only=pk, team_rows=x.rows)
        recent = data.recent.get(pk) or []
        rows[pk] = _team_row(x.snapshot, pk, recent[0] if recent else None, labels)
        mine[team_audience(pk)] = Parts(me=team_me(x.snapshot, pk, data))
    attempts = [x.attempt for x in codes]
    log = organizer["attempts"]
    for attempt in attempts:
        log = _with_attempt(log, attempt, snap, labels)
    teams = Rows([rows.get(t["application"], t) for t in organizer["teams"]], by="application")
    parts = {"as_of": iso(w.now), "attempts": Rows(log, by="id"), "teams": teams}
    # The pushes of the two lists, known here: the log's new order and its new lines, the team
    # list's changed rows (``live.delta``'s row patches), rather than diffs of both.
    patches = {"teams": {"k": "application", "o": [t["application"] for t in teams],
                         "c": _row_changes({t["application"]: t for t in organizer["teams"]},
                                           rows.values())}}
    if attempts:
        patches["attempts"] = _log_patch(parts["attempts"], attempts)
    return {realtime.ORGANIZER: Parts(parts, patches=patches), **mine}


def _row_changes(before: dict[int, dict], rows) -> dict[str, dict]:
    """A row patch's changes (``live.delta``): each of ``rows`` as what changed since the
    stored row of its team in ``before`` (the whole row for a new one; nothing if none)."""
    changes = {}
    for row in rows:
        old = before.get(row["application"])
        change = {"=": row} if old is None else delta.diff(old, row)
        if change is not None:
            changes[str(row["application"])] = change
    return changes


def _log_patch(log: list[dict], attempts: list[CodeAttempt]) -> dict:
    """The attempt log's push: its new order and the new lines (those still on it)."""
    new = {attempt.pk for attempt in attempts}
    return {"k": "id", "o": [a["id"] for a in log],
            "c": {str(a["id"]): {"=": a} for a in log if a["id"] in new}}


def _advance_states(w: Write, teams: set[int], *, team_rows: reads.TeamRows | None = None,
                    rows_of: dict[int, reads.TeamRows] | None = None,
                    like: Snapshot | None = None, given: dict[int, Snapshot] | None = None,
                    attempts: Sequence[CodeAttempt] = ()) -> dict[str, dict] | None:
    """The states a write changes that moves on only some teams' timelines — a code that closed
    a level (its team), a deadline that passed (the teams whose stored next deadline it is), the
    clock's tick (those alone) — rebuilt from those teams' own rows (``rules.team_result``) and
    the stored statistics re-ranked (``rules.standing_key``), with no recomputation of the game:
    the organizer's statistics, team rows, attempt log and next deadline, and those teams' own
    part. The public state and the other teams' views stand: while the game runs they show no
    places, and nothing is due for the other teams.

    None (then everything is built) when it cannot be exact that way: such a team finished or
    left play (the finished share, the end), the clock ended the game, the leaderboard is public
    (it shows places), an average-time ruling is in force (``_averages_in_force``), or a stored
    state is missing.

    What the write's codes read comes along: ``team_rows``, a lone code's team rows (they say
    whether an average-time ruling stands); ``rows_of``, by team, the rows each team's last
    code read; ``like``, a team snapshot the new ones take their shape from; ``given``, the
    teams whose last code's view still holds; ``attempts``, the new lines of the log."""
    gg = w.game
    if (gg.status != GorodGame.Status.RUNNING or gg.leaderboard_public or gg.started_at is None
            or gg.started_at > w.now or _averages_in_force(gg, team_rows)):
        return None
    keys = ["statistics", "teams", "attempts"]
    # The write's own teams' streams are asked with the organizer's parts (one query); a team
    # that only a deadline made due is checked after.
    stored = w.read_values({realtime.ORGANIZER: [*keys, "as_of", "next_deadline"],
                           **{team_audience(pk): ["me"] for pk in teams}})
    organizer = stored.get(realtime.ORGANIZER, {})
    if not set(keys) <= set(organizer):
        return None
    rows = organizer["teams"]  # read only, like every value ``read_values`` gives
    # Once the game has started a team has a deadline exactly when it is on a level, and its
    # row on the team list shows it: the rows say who is due.
    due = teams | {row["application"] for row in rows if row["next_deadline"] is not None
                   and datetime.fromisoformat(row["next_deadline"]) <= w.now}
    if not due:
        # A tick with nothing due (a write already moved the teams on): only the moment and
        # the next deadline are stored.
        _store_deadline(gg, rows)
        return {realtime.ORGANIZER: Parts(as_of=iso(w.now), next_deadline=iso(gg.next_deadline))}
    unknown = [team_audience(pk) for pk in due if team_audience(pk) not in stored]
    if unknown and not streams_stored(gg.pk, unknown):
        return None
    # The write's own teams from the rows their codes read; a team only a deadline made due
    # (or a tick's) from its rows read now, all such teams at once.
    rows_of = rows_of or {}
    given = given or {}
    snaps = [given[pk] if pk in given else team_snapshot(gg, pk, w.now, like=like,
                                                         team_rows=rows_of[pk])
             for pk in sorted(due) if pk in rows_of or pk in given]
    rest = sorted(due - rows_of.keys() - given.keys())
    if rest:
        snaps.append(team_snapshot(gg, rest, w.now, like=like))
    snap = _joined(snaps, w.now)
    if snap.results.game_over or any(
            r.status != "playing" or r.finished_at is not None for r in snap.results.teams):
        return None
    data = _joined_data([_one_team_data(rows_of[pk]) for pk in sorted(due) if pk in rows_of]
                        + ([team_data(gg, only=rest[0] if len(rest) == 1 else rest)]
                           if rest else []))
    labels = {lv.pk: lv.label for lv in snap.levels}
    fresh = {}
    for pk in due:
        recent = data.recent.get(pk) or []
        fresh[pk] = _team_row(snap, pk, recent[0] if recent else None, labels)
    rows = [fresh.get(row["application"], row) for row in rows]
    table = organizer["statistics"]
    new_rows = {}
    photos = photo_closed(gg.pk, snap.levels, due)
    for pk in due:
        row = _plain(rules.statistics_row(snap.by_name[snap.names[pk]], snap.results.level_ids))
        row["application"] = pk
        mark_photos(row, snap.results.level_ids, pk, photos)
        new_rows[pk] = row
    before = {row["application"]: row for row in table["rows"]}
    table = {**table, "rows": Rows(_reranked([new_rows.get(r["application"], r)
                                              for r in table["rows"]], gg.team_order),
                                   by="application")}
    # The push of the table: its new order, what changed in the moved-on teams' rows and the
    # others' new places (``live.delta``'s row patch), built here rather than by diffing two
    # 400-KiB tables: a batch of closing codes stays a small push.
    changed_rows = _row_changes(before, [row for row in table["rows"]
                                         if row["application"] in new_rows])
    changed_rows.update({str(row["application"]): {"d": {"place": {"=": row["place"]}}}
                         for row in table["rows"] if row["application"] not in new_rows
                         and before[row["application"]]["place"] != row["place"]})
    statistics_patch = {"d": {"rows": {"k": "application",
                                       "o": [row["application"] for row in table["rows"]],
                                       "c": changed_rows}}}
    _store_deadline(gg, rows)
    parts = {"as_of": iso(w.now), "statistics": table, "teams": Rows(rows, by="application"),
             "next_deadline": iso(gg.next_deadline)}
    # The team list's and the log's pushes are known here too: the moved-on teams' rows, the
    # new lines on top.
    patches = {"statistics": statistics_patch,
               "teams": {"k": "application", "o": [row["application"] for row in rows],
                         "c": _row_changes({row["application"]: row
                                            for row in organizer["teams"]}, fresh.values())}}
    if attempts:
        log = organizer["attempts"]
        for attempt in attempts:
            log = _with_attempt(log, attempt, snap, labels)
        parts["attempts"] = log
        patches["attempts"] = _log_patch(log, attempts)
    states: dict[str, dict] = {realtime.ORGANIZER: Parts(parts, patches=patches)}
    for pk in due:
        states[team_audience(pk)] = Parts(me=team_me(snap, pk, data))
    return states


def _rows_of(code: changes.Code) -> dict[int, reads.TeamRows]:
    """The team rows a lone code read, by its team."""
    return {code.rows.application_id: code.rows}


def _joined(snaps: list[Snapshot], now: datetime) -> Snapshot:
    """Several teams' snapshots (``team_snapshot``, each of some teams) as one, at ``now``."""
    if len(snaps) == 1:
        return snaps[0]
    first = snaps[0]
    teams = tuple(result for snap in snaps for result in snap.results.teams)
    snap = Snapshot(gorod=first.gorod, now=now, entries=[], levels=first.levels,
                    known_names=first.names)
    snap.results = dataclasses.replace(
        first.results, now=max(s.results.now for s in snaps), teams=teams,
        game_over=any(s.results.game_over for s in snaps))
    snap.by_name = {result.team: result for result in teams}
    return snap


def _joined_data(found: list[TeamData]) -> TeamData:
    """``team_data`` of several teams read apart, as one."""
    if len(found) == 1:
        return found[0]
    joined = TeamData(found={}, recent={})
    for data in found:
        joined.found.update(data.found)
        joined.recent.update(data.recent)
        joined.timeout_requests.update(data.timeout_requests)
        joined.photos.update(data.photos)
    return joined


_STORE_DEADLINE = (f"UPDATE {sql.table(GorodGame)} SET {sql.column(GorodGame, 'next_deadline')} "
                   f"= %s, {sql.column(GorodGame, 'clock_failures')} = 0 "
                   f"WHERE {sql.column(GorodGame, 'pk')} = %s")


def _store_deadline(gg: GorodGame, rows: list[dict]) -> None:
    """``rules.next_deadline`` from the team rows: the earliest of the teams' own, for the
    clock (and no failed tick pending)."""
    deadlines = [datetime.fromisoformat(row["next_deadline"]) for row in rows
                 if row["next_deadline"] is not None]
    deadline = min(deadlines) if deadlines else None
    if deadline == gg.next_deadline and gg.clock_failures == 0:
        return  # the locked row already says so
    gg.next_deadline = deadline
    gg.clock_failures = 0
    # Constant SQL: the ORM's save built its query for every closing code.
    sql.execute(_STORE_DEADLINE, [sql.param(GorodGame, "next_deadline", deadline), gg.pk])


def _averages_in_force(gg: GorodGame, team_rows: reads.TeamRows | None = None) -> bool:
    """An average-time ruling stands: it credits its team from every team's times on its level
    (section 12), which one team's timeline does not hold. A code's rows already say it."""
    if team_rows is not None:
        return team_rows.averages
    return Ruling.objects.filter(gorod=gg, type=Ruling.Type.AVERAGE_TIME,
                                 undone_at__isnull=True).exists()


def _with_attempt(log: list[dict], attempt: CodeAttempt, snap: Snapshot,
                  labels: dict[int, str]) -> list[dict]:
    """The organizer's attempt log with a new attempt on top (it is the newest: its moment was
    taken under the game's lock)."""
    return Rows([_attempt(attempt, snap.names, labels), *log][:ATTEMPTS_LOG], by="id")


def _reranked(rows: list[dict], team_order: list[int]) -> list[dict]:
    """Stored statistics rows in standings order with their places, as ``rules.rank`` places
    the results they show (registration: the team's index in the game's frozen order)."""
    registration = {pk: i for i, pk in enumerate(team_order)}

    def key(row: dict):
        finished = row["finished_at"]
        return rules.standing_key(row["status"],
                                  datetime.fromisoformat(finished) if finished else None,
                                  row["total_s"], row["levels_closed"],
                                  registration.get(row["application"], len(registration)))

    ordered = rules.placed_in_order(
        rows, key, lambda row: registration.get(row["application"], len(registration)))
    # New rows only where the place moved: the others are the stored (shared) values.
    return [row if row.get("place") == place else {**row, "place": place}
            for row, place in ordered]


def read_state(gg: GorodGame, *, kind: str, application_id: int | None = None) -> dict | None:
    """``{"version", "state", "server_time"}`` of one screen, served from the stored state (no
    recomputation); None when the team does not play in the game."""
    from gorod.live import LIVE

    stored = LIVE.read(gg.pk, audience(kind, application_id))
    if stored is None:
        return None
    return {**stored.data(), "server_time": timezone.now().isoformat()}


def read_stored(gg: GorodGame, *, kind: str, application_id: int | None = None) -> Stored | None:
    """The stored state of one screen (``Stored.response`` answers it as it is); None when the
    team does not play in the game."""
    from gorod.live import LIVE

    return LIVE.read(gg.pk, audience(kind, application_id))


def team_level_labels(gg: GorodGame, application_id: int) -> set[str]:
    """The levels a team has received (its current one and those it closed), from its stored
    state: what its phone may see the images of."""
    stored = read_state(gg, kind="team", application_id=application_id)
    me = (stored or {}).get("state", {}).get("me") or {}
    labels = {h["level"] for h in me.get("history") or []}
    if me.get("level"):
        labels.add(me["level"]["label"])
    return labels
