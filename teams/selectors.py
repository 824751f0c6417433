"""Reads that need care: which team a phone plays for, what a user may see, the fee ledger.

``team_entry_for_session`` is the one way every team-facing page, API call and WebSocket
consumer learns which team a browser plays for. It reads the database, so from async code
(a Channels consumer) call it through ``database_sync_to_async``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from core import limits, sql
from core.errors import DomainError
from core.roles import is_organizer
from teams import rules
from teams.models import Application, Ban, Benefit, Game, Notice, Team

#: where a browser's bindings to teams live in its session (written by ``services``)
JOIN_SESSION_KEY = "teams_join"
# A game's wrong PINs from all addresses together, per hour (setting PIN_GAME_BUDGET_PER_HOUR).
PIN_BUDGET_WINDOW_SECONDS = 3600


def pin_budget_key(game_id: int) -> str:
    return f"teams:pin-budget:{game_id}"


def team_ids_by_name(game: Game | int) -> dict[str, int]:
    """A game's teams by their names now: a game's record is built on request and names teams
    as they are called now, so today's names map back to ids; an application of any status
    keeps its team."""
    return {name: team_id for name, team_id in
            Application.objects.filter(game=game).values_list("team__name", "team_id")}


def session_binding(session, game_id: int) -> dict | None:
    """The raw binding stored in a session for a game, or None. Works with
    ``request.session`` and Channels' ``scope["session"]`` (both are SessionStores)."""
    if session is None:
        return None
    joined = session.get(JOIN_SESSION_KEY) or {}
    binding = joined.get(str(game_id)) if isinstance(joined, dict) else None
    if not isinstance(binding, dict):
        return None
    if not isinstance(binding.get("application"), int) or not isinstance(
        binding.get("join_version"), int
    ):
        return None
    return binding


def team_entry_for_session(session, game: Game | int) -> Application | None:
    """The approved application this session joined for ``game``, if the binding is still
    valid (same ``join_version``: not revoked, not withdrawn or rejected since) and the game is
    not cancelled. The result has ``team`` and ``game`` loaded."""
    game_id = game if isinstance(game, int) else game.pk
    binding = session_binding(session, game_id)
    if binding is None or not (sql.is_key(game_id) and sql.is_key(binding["application"])):
        return None
    # Constant SQL: every code and answer of a night asks this first, and compiling its
    # queryset would be a large share of a wrong code's time in the server.
    found = _ENTRY.load(_ENTRY_WHERE, [binding["application"], game_id, binding["join_version"],
                                       Application.Status.APPROVED, Game.Status.CANCELLED])
    return found[0] if found else None


_ENTRY = sql.Loader(Application, "team", "game")
_ENTRY_WHERE = " AND ".join([
    f"{_ENTRY.pk} = %s", f"t.{sql.column(Application, 'game')} = %s",
    f"t.{sql.column(Application, 'join_version')} = %s",
    f"t.{sql.column(Application, 'status')} = %s",
    f"{sql.q('game')}.{sql.column(Game, 'status')} <> %s"])


def session_entries(session) -> list[Application]:
    """Every still-valid team entry of this session, one per game."""
    joined = (session.get(JOIN_SESSION_KEY) or {}) if session is not None else {}
    entries = []
    for key in joined if isinstance(joined, dict) else []:
        if key.isdigit():
            entry = team_entry_for_session(session, int(key))
            if entry is not None:
                entries.append(entry)
    return entries


def teams_for_user(user) -> QuerySet[Team]:
    """Teams the user manages: all for an organizer, their own for a captain."""
    if not getattr(user, "is_authenticated", False):
        return Team.objects.none()
    qs = Team.objects.select_related("captain")
    return qs if is_organizer(user) else qs.filter(captain=user)


def games_listed() -> QuerySet[Game]:
    """The club's games: every game but the organizers' test runs (``Game.test_of``), which
    no list shows."""
    return Game.objects.filter(test_of__isnull=True)


def games_upcoming(*, now: datetime | None = None) -> QuerySet[Game]:
    now = now or timezone.now()
    return (
        games_listed().filter(starts_at__gt=now - timezone.timedelta(hours=12))
        .exclude(status=Game.Status.CANCELLED)
        .order_by("starts_at")
    )


def games_to_join(named: str | None = None) -> QuerySet[Game]:
    """The games a phone may enter a PIN for: the upcoming ones, and the test run the page
    was opened for (``?game=<id>``, from its join sheet), which no list shows."""
    games = Game.objects.filter(pk__in=games_upcoming().values("pk"))
    if named and str(named).isdigit() and sql.is_key(int(named)):
        games = games | Game.objects.filter(pk=int(named), test_of__isnull=False).exclude(
            status=Game.Status.CANCELLED)
    return games.order_by("starts_at")


def games_open_for_applications(*, now: datetime | None = None) -> list[Game]:
    now = now or timezone.now()
    return [
        g
        for g in games_upcoming(now=now).filter(status=Game.Status.SCHEDULED)
        if now < rules.applications_close_at(g.starts_at)
    ]


def games_with_counts() -> QuerySet[Game]:
    active = Q(applications__status__in=[Application.Status.PENDING, Application.Status.APPROVED])
    return games_listed().annotate(application_count=Count("applications", filter=active))


def game_applications(game: Game) -> QuerySet[Application]:
    return (
        Application.objects.filter(game=game)
        .select_related("team", "team__captain")
        .prefetch_related("members")
        .order_by("created_at")
    )


def game_active_application_count(game: Game) -> int:
    return Application.objects.filter(
        game=game, status__in=[Application.Status.PENDING, Application.Status.APPROVED]
    ).count()


def game_few_applications(game: Game) -> bool:
    """The ≤ 4 applications warning (8.3), for a scheduled game."""
    return game.status == Game.Status.SCHEDULED and rules.few_applications(
        game_active_application_count(game)
    )


def game_approved_applications(game: Game) -> QuerySet[Application]:
    return game_applications(game).filter(status=Application.Status.APPROVED).order_by("team__name")


def team_applications(team: Team) -> QuerySet[Application]:
    return (
        Application.objects.filter(team=team)
        .select_related("game")
        .prefetch_related("members")
        .order_by("-game__starts_at")
    )


def team_notices(team: Team, limit: int = 50) -> list[Notice]:
    return list(Notice.objects.filter(team=team).select_related("game")[:limit])


def team_game_notices(team: Team, game: Game) -> list[Notice]:
    """The team's notices about one game (what its phones show during and after it)."""
    return list(Notice.objects.filter(team=team, game=game).select_related("game"))


def team_active_ban(team: Team, *, now: datetime | None = None) -> Ban | None:
    now = now or timezone.now()
    return Ban.objects.filter(team=team, until__gt=now).order_by("-until").first()


@dataclass(frozen=True)
class LedgerLine:
    game: Game
    fee: int
    percent: int
    benefit_from: Game | None
    due: int
    paid: bool
    application_id: int


@dataclass(frozen=True)
class BenefitLine:
    benefit: Benefit
    used_at: Game | None
    lapsed: bool


@dataclass(frozen=True)
class TeamLedger:
    lines: list[LedgerLine]
    benefits: list[BenefitLine]
    total_due: int


def team_ledger(team: Team, *, now: datetime | None = None) -> TeamLedger:
    """The fee ledger: approved applications in games that are not cancelled, with benefits."""
    now = now or timezone.now()
    applications = list(
        Application.objects.filter(team=team, status=Application.Status.APPROVED)
        .exclude(game__status=Game.Status.CANCELLED)
        .select_related("game")
    )
    benefits = list(Benefit.objects.filter(team=team).select_related("game"))
    formats = {a.game.format for a in applications} | {b.game.format for b in benefits}
    games = {
        g.pk: g
        for g in Game.objects.filter(format__in=formats).exclude(status=Game.Status.CANCELLED)
    }
    ledger = rules.fee_ledger(
        games=[
            rules.LedgerGame(game_id=g.pk, game_format=g.format, starts_at=g.starts_at, fee=g.fee)
            for g in games.values()
        ],
        entries=[rules.Entry(game_id=a.game_id, paid=a.paid) for a in applications],
        prizes=[rules.Prize(game_id=b.game_id, percent=b.percent, place=b.place) for b in benefits],
        now=now,
    )
    by_game = {a.game_id: a for a in applications}
    benefit_by_game = {b.game_id: b for b in benefits}
    lines = [
        LedgerLine(
            game=games[row.game_id],
            fee=row.fee,
            percent=row.percent,
            benefit_from=games.get(row.benefit_from) if row.benefit_from else None,
            due=row.due,
            paid=row.paid,
            application_id=by_game[row.game_id].pk,
        )
        for row in ledger.rows
    ]
    lines.reverse()  # newest first on the page
    benefit_lines = [
        BenefitLine(
            benefit=benefit_by_game[state.prize.game_id],
            used_at=games.get(state.used_at) if state.used_at else None,
            lapsed=state.lapsed,
        )
        for state in ledger.prizes
        if state.prize.game_id in benefit_by_game
    ]
    return TeamLedger(lines=lines, benefits=benefit_lines, total_due=ledger.total_due)


def application_amount_due(application: Application, *, now: datetime | None = None) -> int:
    """What this approved application owes (its line in the team's ledger), else the fee."""
    for line in team_ledger(application.team, now=now).lines:
        if line.application_id == application.pk:
            return line.due
    return application.game.fee


def game_pin_budget(game: Game, *, now: datetime | None = None) -> limits.Count:
    """How much of the game's hourly budget of wrong PINs is used; ``spent`` means PIN joins
    for the game are paused (``services.game_pin_budget_lift`` lifts the pause)."""
    return limits.peek(
        pin_budget_key(game.pk),
        limit=settings.PIN_GAME_BUDGET_PER_HOUR,
        window=PIN_BUDGET_WINDOW_SECONDS,
        now=(now or timezone.now()).timestamp(),
    )


def application_by_join_token(token) -> Application | None:
    """The approved application whose join link carries ``token``, or None."""
    token = token.strip() if isinstance(token, str) else ""
    if not token:
        return None
    return (
        Application.objects.select_related("team", "game")
        .filter(join_token=token, status=Application.Status.APPROVED)
        .first()
    )


def playing_entry(team_order: list[int] | None, application: Application | int) -> Application:
    """The application of a team that plays in a started game (its id in the game's frozen
    ``team_order``), with its team; ``DomainError`` for any other. The phone's own entry (its
    team already read with it by ``team_entry_for_session``) is used as it is."""
    app_id = application if isinstance(application, int) else application.pk
    if app_id not in (team_order or []):
        raise DomainError(_("This team does not play in this game."))
    if isinstance(application, Application) and Application.team.is_cached(application):
        return application
    return Application.objects.select_related("team").get(pk=app_id)
