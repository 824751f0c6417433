"""The rows a GoRoD write reads, as constant SQL (``core.sql``) answering light rows.

A code is checked against its team's timeline, which the record's events give (the team's
closing codes, its standing rulings, its route), and against the team's recent attempts (the
sectors it found, the brute-force window, a retried submission); its team's phones are then
shown their recent attempts. All of that is one team's rows, read here in three queries of
bounded size (``team_rows``), rather than in fifteen ORM queries. ``closing_codes``, ``rulings``
and ``routes`` serve the whole record too (``selectors.build_record``).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Max

from core import sql
from gorod.models import (
    CheckIn,
    CodeAttempt,
    Message,
    PhotoProof,
    Route,
    Ruling,
    TimeoutRequest,
)

RECENT = 20  # the attempts a team's phones list (``selectors.TEAM_ATTEMPTS``)


@dataclass(frozen=True)
class Attempt:
    """What the states read of a ``CodeAttempt`` (the same attribute names)."""

    pk: int
    application_id: int
    level_id: int
    text: str
    at: datetime
    verdict: str
    sector: str
    closes_level: bool


@dataclass(frozen=True)
class RulingRow:
    """What the record reads of a standing ``Ruling``; ``by`` is the organizer's user name."""

    application_id: int
    type: str
    at: datetime | None
    level_id: int | None
    minutes: float | None
    reason: str
    by: str | None


@dataclass
class TeamRows:
    """One team's rows as a code finds them (``team_rows``); ``add`` puts the write's new
    attempt in, so the states built after it see it without reading again."""

    application_id: int
    attempts: list[Attempt]  # closing, accepted, recent wrong, the latest RECENT, the retried
    rulings: list[RulingRow]  # the team's standing rulings, in the order they were made
    route: list[str] | None
    averages: bool  # an average-time ruling stands in the game (any team's)
    seen_pk: int | None = None  # the stored attempt of the submission's client id

    def closing(self) -> list[Attempt]:
        return sorted((a for a in self.attempts if a.closes_level), key=lambda a: (a.at, a.pk))

    def found(self, level_id: int) -> set[str]:
        return {a.sector for a in self.attempts
                if a.level_id == level_id and a.verdict == CodeAttempt.Verdict.ACCEPTED}

    def found_all(self) -> dict[tuple[int, int], set[str]]:
        found: dict[tuple[int, int], set[str]] = {}
        for a in self.attempts:
            if a.verdict == CodeAttempt.Verdict.ACCEPTED:
                found.setdefault((a.application_id, a.level_id), set()).add(a.sector)
        return found

    def wrong_between(self, level_id: int, since: datetime, now: datetime) -> list[datetime]:
        return sorted(a.at for a in self.attempts if a.level_id == level_id
                      and a.verdict == CodeAttempt.Verdict.WRONG and since < a.at <= now)

    def recent(self) -> list[Attempt]:
        return sorted(self.attempts, key=lambda a: (a.at, a.pk), reverse=True)[:RECENT]

    def add(self, attempt: CodeAttempt) -> None:
        self.attempts.append(Attempt(
            attempt.pk, attempt.application_id, attempt.level_id, attempt.text, attempt.at,
            attempt.verdict, attempt.sector, attempt.closes_level))


def team_rows(gorod_id: int, application_id: int, *, since: datetime,
              client_id=None) -> TeamRows:
    """One team's rows for a code: its attempts that matter (every closing code and accepted
    sector, its wrong codes after ``since``, its latest ``RECENT``, the one of ``client_id``),
    its standing rulings and its route. The sizes are bounded by the game's levels and sectors,
    the brute-force limit and ``RECENT``, not by the night's attempts."""
    params: list[Any] = [application_id, CodeAttempt.Verdict.ACCEPTED, CodeAttempt.Verdict.WRONG,
                         sql.param(CodeAttempt, "at", since)]
    if client_id is not None:
        params.append(sql.param(CodeAttempt, "client_id", client_id))
    params.append(application_id)
    attempts, seen = [], None
    for row in sql.rows(_attempts_sql(client_id is not None), params):
        attempts.append(Attempt(row[0], row[1], row[2], row[3], sql.moment(row[4]), row[5],
                                row[6], bool(row[7])))
        if client_id is not None and row[8] is not None and _same_uuid(row[8], client_id):
            seen = row[0]
    standing = rulings(gorod_id, [application_id], with_averages=True)
    mine = [r for r in standing if r.application_id == application_id]
    found = routes(gorod_id, [application_id])
    return TeamRows(application_id, attempts, mine, found.get(application_id),
                    averages=any(r.type == Ruling.Type.AVERAGE_TIME for r in standing),
                    seen_pk=seen)


def _same_uuid(stored: Any, wanted) -> bool:
    return str(stored).replace("-", "") == str(wanted).replace("-", "")


@functools.cache
def _attempts_sql(by_client: bool) -> str:
    t, c = sql.table(CodeAttempt), functools.partial(sql.column, CodeAttempt)
    columns = ", ".join(c(f) for f in ("id", "application", "level", "text", "at", "verdict",
                                       "sector", "closes_level", "client_id"))
    client = f" OR {c('client_id')} = %s" if by_client else ""
    return (f"SELECT {columns} FROM {t} WHERE {c('application')} = %s AND ({c('closes_level')} "
            f"OR {c('verdict')} = %s OR ({c('verdict')} = %s AND {c('at')} > %s){client} "
            f"OR {c('id')} IN (SELECT {c('id')} FROM {t} WHERE {c('application')} = %s "
            f"ORDER BY {c('at')} DESC, {c('id')} DESC LIMIT {RECENT}))")


def _whose(column: str, whose: Collection[int] | None) -> tuple[str, list]:
    if whose is None:
        return "", []
    whose = list(whose)
    return f" AND {column} IN ({sql.marks(len(whose))})", whose


def closing_codes(gorod_id: int, whose: Collection[int] | None) -> list[tuple[int, int, datetime]]:
    """``(application id, level id, at)`` of the closing codes of these teams (None: all), in
    the order they came."""
    c = functools.partial(sql.column, CodeAttempt)
    where, params = _whose(c("application"), whose)
    found = sql.rows(
        f"SELECT {c('application')}, {c('level')}, {c('at')} FROM {sql.table(CodeAttempt)} "
        f"WHERE {c('gorod')} = %s AND {c('closes_level')}{where} ORDER BY {c('at')}, {c('id')}",
        [gorod_id, *params])
    return [(app, level, sql.moment(at)) for app, level, at in found]


def rulings(gorod_id: int, whose: Collection[int] | None, *,
            with_averages: bool = False) -> list[RulingRow]:
    """The standing (not undone) rulings of these teams (None: all) in the order they were
    made; ``with_averages`` adds every team's standing average-time ruling."""
    whose = None if whose is None else list(whose)
    params: list[Any] = [gorod_id, *(whose or [])]
    averages = with_averages and whose is not None
    if averages:
        params.append(Ruling.Type.AVERAGE_TIME)
    found = sql.rows(_rulings_sql(None if whose is None else len(whose), averages), params)
    return [RulingRow(app, kind, sql.moment(at), level, minutes, reason, by)
            for app, kind, at, level, minutes, reason, by in found]


@functools.cache
def _rulings_sql(teams: int | None, averages: bool) -> str:
    """The SQL of ``rulings`` for that many teams (None: all): built once per shape, as
    every code reads its team's rulings (naming the user model's columns cost a sixth of
    reading the team's rows)."""
    c = functools.partial(sql.column, Ruling)
    user = get_user_model()
    where = "" if teams is None else f" AND r.{c('application')} IN ({sql.marks(teams)})"
    if averages and where:
        where = f" AND ({where[5:]} OR r.{c('type')} = %s)"
    return (f"SELECT r.{c('application')}, r.{c('type')}, r.{c('at')}, r.{c('level')}, "
            f"r.{c('minutes')}, r.{c('reason')}, u.{sql.column(user, user.USERNAME_FIELD)} "
            f"FROM {sql.table(Ruling)} r LEFT OUTER JOIN {sql.table(user)} u "
            f"ON u.{sql.column(user, 'pk')} = r.{c('by')} "
            f"WHERE r.{c('gorod')} = %s AND r.{c('undone_at')} IS NULL{where} "
            f"ORDER BY r.{c('created_at')}, r.{c('id')}")


def routes(gorod_id: int, whose: Collection[int] | None) -> dict[int, list[str]]:
    """``{application id: its level ids in order}`` of the teams (None: all) that have one."""
    whose = None if whose is None else list(whose)
    found = sql.rows(_routes_sql(None if whose is None else len(whose)),
                     [gorod_id, *(whose or [])])
    return {app: list(sql.loaded(levels)) for app, levels in found}


@functools.cache
def _routes_sql(teams: int | None) -> str:
    c = functools.partial(sql.column, Route)
    where = "" if teams is None else f" AND {c('application')} IN ({sql.marks(teams)})"
    return (f"SELECT {c('application')}, {c('levels')} FROM {sql.table(Route)} "
            f"WHERE {c('gorod')} = %s{where}")


@dataclass(frozen=True)
class TimeoutAsked:
    """What a team's phones see of its timeout request."""

    application_id: int
    minutes: float
    reason: str
    status: str
    asked_at: datetime
    answer: str


@dataclass(frozen=True)
class PhotoSent:
    """What a team's phones see of a photo it sent."""

    application_id: int
    level_id: int
    status: str
    uploaded_at: datetime
    answer: str


def team_extras(application_id: int) -> tuple[list[TimeoutAsked], list[PhotoSent]]:
    """The team's timeout requests (the earliest first) and photo proofs (not their images;
    the latest first), in one query: a code reads them for its team's phones' state."""
    timeouts: list[tuple] = []
    sent: list[tuple] = []
    for kind, pk, app, minutes, level, reason, status, at, answer in sql.rows(
            _extras_sql(), [application_id, application_id]):
        if kind == "t":
            timeouts.append((sql.moment(at), pk, TimeoutAsked(app, minutes, reason, status,
                                                              sql.moment(at), answer)))
        else:
            sent.append((sql.moment(at), pk, PhotoSent(app, level, status, sql.moment(at),
                                                       answer)))
    timeouts.sort(key=lambda row: row[:2])
    sent.sort(key=lambda row: row[:2], reverse=True)
    return [row[2] for row in timeouts], [row[2] for row in sent]


@functools.cache
def _extras_sql() -> str:
    t, p = (functools.partial(sql.column, model) for model in (TimeoutRequest, PhotoProof))
    return (f"SELECT 't', {t('pk')}, {t('application')}, {t('minutes')}, NULL, {t('reason')}, "
            f"{t('status')}, {t('asked_at')}, {t('answer')} FROM {sql.table(TimeoutRequest)} "
            f"WHERE {t('application')} = %s UNION ALL "
            f"SELECT 'p', {p('pk')}, {p('application')}, NULL, {p('level')}, NULL, "
            f"{p('status')}, {p('uploaded_at')}, {p('answer')} FROM {sql.table(PhotoProof)} "
            f"WHERE {p('application')} = %s")


@dataclass(frozen=True)
class MessageRow:
    """A message or bonus hint as the states show it: ``receipts`` maps each team it reached
    (application id) to the moment its phone showed it (None: not yet)."""

    pk: int
    kind: str
    audience: str
    text: str
    level: str | None  # the level's id in the record (label)
    application_id: int | None
    later: bool
    sent_at: datetime
    by: str | None
    receipts: dict[int, datetime | None]

    @property
    def bonus(self) -> bool:
        return self.kind == Message.Kind.BONUS_HINT


def messages(gorod_id: int, *, kind: str | None = None) -> list[MessageRow]:
    """The game's messages (or those of one ``kind``), the earliest first, with their
    receipts: one query (the receipts joined, a message without any still listed)."""
    rows = Message.objects.filter(gorod_id=gorod_id)
    if kind is not None:
        rows = rows.filter(kind=kind)
    user = get_user_model().USERNAME_FIELD
    found: dict[int, MessageRow] = {}
    for (pk, kind_, audience, text, level, app, later, sent_at, by, team,
         seen_at) in rows.order_by("sent_at", "pk", "receipts__pk").values_list(
            "pk", "kind", "audience", "text", "level__label", "application_id", "later",
            "sent_at", f"sent_by__{user}", "receipts__application_id", "receipts__seen_at"):
        row = found.get(pk)
        if row is None:
            row = found[pk] = MessageRow(pk, kind_, audience, text, level, app, later, sent_at,
                                         by, {})
        if team is not None:
            row.receipts[team] = seen_at
    return list(found.values())


def last_checkins(gorod_id: int) -> dict[tuple[int, int], datetime]:
    """Each team's latest check-in (or acknowledged alarm) on each level, by (application id,
    level id), in one query: what ``rules.checkin_due`` counts the next one from."""
    latest = (CheckIn.objects.filter(gorod_id=gorod_id).values("application_id", "level_id")
              .annotate(last=Max("at")))
    return {(row["application_id"], row["level_id"]): row["last"] for row in latest}
