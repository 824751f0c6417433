"""GoRoD reads: the game and its set-up, the contract record built from the rows, the engine's
results at a moment (the whole game's ``Snapshot``, or one team's timeline from its own rows),
the rows the states show, and the stored states the screens are served. Nothing here writes:
settling the game is ``gorod.settle``'s, rendering the states ``gorod.states``'."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _

from core import engine_messages
from core.errors import DomainError
from core.records import RecordError
from gorod import reads, rules
from gorod.codes import CodeSpecError, level_codes_from_dict
from gorod.models import (
    PHOTO_SECTOR,
    CodeAttempt,
    GorodGame,
    Level,
    Message,
    Pause,
    PhotoProof,
    Ruling,
    TimeoutRequest,
)
from live.messages import Stored, team_audience
from live.store import stored_one
from live.versioned import VersionedCache
from teams.models import Application

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
    levels in order, their codes parsed, the team names; and the bonus hints sent so far, by
    level id (label), which a team's phones show once on that level (``gorod.messages``
    moves the set-up version on when it sends one). Shared between threads: read only."""

    levels: list[Level]
    names: dict[int, str]
    codes: dict[int, Any]  # level id -> ``LevelCodes`` (or the ``CodeSpecError`` it raised)
    bonus: dict[str, tuple[reads.MessageRow, ...]] = field(default_factory=dict)

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
    bonus: dict[str, list[reads.MessageRow]] = {}
    if gg.started_at is not None:  # none is sent before the start
        for row in reads.messages(gg.pk, kind=Message.Kind.BONUS_HINT):
            bonus.setdefault(row.level, []).append(row)
    return Setup(level_rows, team_names(gg), codes,
                 {label: tuple(rows) for label, rows in bonus.items()})


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
    events += [ruling_event(ruling, names, labels) for ruling in standing
               if ruling.application_id in names]
    # The ended pauses of the whole game: every team's timeline stops at them.
    events.extend({"type": "pause", "at": p["at"], "minutes": p["minutes"]}
                  for p in gg.pauses)
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


def ruling_event(ruling, names: dict[int, str], labels: dict[int, str]) -> dict:
    """A ruling (a ``Ruling`` row, or one of ``reads.rulings``) as the record's event."""
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
    return event


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


def engine_moment(gg: GorodGame, now: datetime) -> datetime:
    """The moment the engine computes a started game at for ``now``: a finished game's results
    are those at its end, whatever a (skewed) clock says; while the whole game is paused, those
    at the pause's start (every team's clock stands: nothing shown moves until the resume)."""
    moment = max(now, gg.ended_at or gg.started_at)
    return moment if gg.paused_at is None else min(moment, gg.paused_at)


def load_snapshot(gg: GorodGame, now: datetime | None = None, *,
                  end: datetime | None = None) -> Snapshot:
    """The engine's view at ``now``; raises ``RecordError`` if the stored rows are impossible
    (the services check this before committing)."""
    now = now or timezone.now()
    snap = Snapshot(gorod=gg, now=now, entries=entries(gg), levels=levels(gg))
    if gg.started_at is not None:
        snap.record = build_record(gg, end=end, teams=snap.entries, level_rows=snap.levels)
        moment = engine_moment(gg, now)
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
    moment = engine_moment(gg, now)
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
            gg.max_duration_h, tuple((p["at"], p["minutes"]) for p in gg.pauses),
            tuple((a.level_id, a.at) for a in closing),
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


def forget_kept() -> None:
    """Drop the set-ups and team timelines this process keeps: it then holds what a process
    that has seen no game yet holds (a new worker; a test whose rolled-back game's id the next
    test's game reuses on SQLite)."""
    _SETUPS.clear()
    _TIMELINES.clear()


def photo_closed(gorod_id: int, levels: Iterable[Level],
                 whose: Collection[int] | None = None) -> set[tuple[int, str]]:
    """``(application id, level label)`` of the levels these teams (None: all) closed by an
    accepted photo: the record has a code event there, the team's screens say «photo». A game
    without photo levels asks nothing (a code's write reads only what it needs)."""
    if not any(level.photo_proof for level in levels):
        return set()

    rows = CodeAttempt.objects.filter(gorod_id=gorod_id, closes_level=True, sector=PHOTO_SECTOR)
    if whose is not None:
        rows = rows.filter(application_id__in=list(whose))
    return set(rows.values_list("application_id", "level__label"))


def last_attempts(gg: GorodGame) -> dict[int, CodeAttempt]:
    """Each team's latest attempt, in one query."""
    latest = CodeAttempt.objects.filter(gorod=gg).annotate(
        rank=Window(RowNumber(), partition_by=[F("application_id")],
                    order_by=[F("at").desc(), F("pk").desc()])).filter(rank=1)
    return {a.application_id: a for a in latest}


def attempt_log(gg: GorodGame):
    """The organizer's attempt log: the game's latest attempts, the newest first."""
    return CodeAttempt.objects.filter(gorod=gg).order_by("-at", "-pk")[:ATTEMPTS_LOG]


def all_rulings(gg: GorodGame):
    """Every ruling of the game (undone ones too), the latest first."""
    return Ruling.objects.filter(gorod=gg).select_related("by").order_by("-created_at", "-pk")


def all_pauses(gg: GorodGame):
    """The pauses of the whole game, the latest first: none without a query when the game's
    row says it was never paused (most nights; the organizer's state is built at every
    ruling)."""
    if not gg.pauses and gg.paused_at is None:
        return []
    return Pause.objects.filter(gorod=gg).select_related("started_by", "ended_by").order_by(
        "-started_at", "-pk")


def all_timeout_requests(gg: GorodGame):
    return TimeoutRequest.objects.filter(gorod=gg).select_related("decided_by").order_by(
        "-asked_at", "-pk")


def all_photos(gg: GorodGame):
    """The game's photos without their bytes, the latest first."""
    return PhotoProof.objects.filter(gorod=gg).defer("data").select_related(
        "decided_by").order_by("-uploaded_at", "-pk")


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
        return one_team_data(team_rows)
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


def one_team_data(team_rows: reads.TeamRows) -> TeamData:
    """``team_data`` of one team from the rows its code read (the timeout requests and photos
    read here, in one constant query)."""
    pk = team_rows.application_id
    asked, sent = reads.team_extras(pk)
    photos: dict[tuple[int, int], list] = {}
    for proof in sent:
        photos.setdefault((proof.application_id, proof.level_id), []).append(proof)
    return TeamData(found=team_rows.found_all(), recent={pk: team_rows.recent()},
                    timeout_requests={pk: asked[-1]} if asked else {}, photos=photos)


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


def joined(snaps: list[Snapshot], now: datetime) -> Snapshot:
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


def joined_data(found: list[TeamData]) -> TeamData:
    """``team_data`` of several teams read apart, as one."""
    if len(found) == 1:
        return found[0]
    together = TeamData(found={}, recent={})
    for data in found:
        together.found.update(data.found)
        together.recent.update(data.recent)
        together.timeout_requests.update(data.timeout_requests)
        together.photos.update(data.photos)
    return together


def averages_in_force(gg: GorodGame, team_rows: reads.TeamRows | None = None) -> bool:
    """An average-time ruling stands: it credits its team from every team's times on its level
    (section 12), which one team's timeline does not hold. A code's rows already say it."""
    if team_rows is not None:
        return team_rows.averages
    return Ruling.objects.filter(gorod=gg, type=Ruling.Type.AVERAGE_TIME,
                                 undone_at__isnull=True).exists()


def read_state(gg: GorodGame, *, kind: str, application_id: int | None = None) -> dict | None:
    """``{"version", "state", "server_time"}`` of one screen, served from the stored state (no
    recomputation); None when the team does not play in the game."""
    stored = read_stored(gg, kind=kind, application_id=application_id)
    if stored is None:
        return None
    return {**stored.data(), "server_time": timezone.now().isoformat()}


def read_stored(gg: GorodGame, *, kind: str, application_id: int | None = None) -> Stored | None:
    """The stored state of one screen (``Stored.response`` answers it as it is); None when the
    team does not play in the game. The live core's read (``LiveGame.read``), without the
    adapter: reads sit below the writes that store what they serve."""
    return stored_one(gg.pk, audience(kind, application_id))


def team_level_labels(gg: GorodGame, application_id: int) -> set[str]:
    """The levels a team has received (its current one and those it closed), from its stored
    state: what its phone may see the images of."""
    stored = read_state(gg, kind="team", application_id=application_id)
    me = (stored or {}).get("state", {}).get("me") or {}
    labels = {h["level"] for h in me.get("history") or []}
    if me.get("level"):
        labels.add(me["level"]["label"])
    return labels
