"""Writes for teams, games, applications, bans and benefits (and, named here from
``teams.joins``, phone joins).

Keyword-only, typed, ``<entity>_<action>``, each in one transaction. Rules come from the pure
``teams.rules``; a broken rule becomes ``TeamsError`` with a translated message (the API answers
it with 400 ``{"detail": ...}``, pages show it as a message). Authorization is the caller's job
(``teams.permissions``); services trust the actor they are given.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit, rights
from core.text import within
from teams import rules
from teams.errors import TeamsError, TooManyAttempts, rule_error  # noqa: F401

# The phone joins' writes live in ``teams.joins``; their callers name them here too.
from teams.joins import (  # noqa: F401
    JOIN_SESSION_KEY,
    PIN_FAILURES_KEY,
    PIN_MAX_FAILURES,
    PIN_MAX_FAILURES_PER_ADDRESS,
    PIN_WINDOW_SECONDS,
    clear_join,
    game_pin_budget_lift,
    issue_join,
    join_by_pin,
    join_by_token,
    join_leave,
)
from teams.models import DEFAULT_FEE, Application, Ban, Benefit, Game, Member, Notice, Team
from teams.signals import games_changed

NAME_MAX = 100


# --- names ---------------------------------------------------------------------------------


def _clean_name(value: Any, *, what: str, max_length: int = NAME_MAX) -> str:
    """Strip; 1..max_length characters; at least one visible character; no control chars."""
    if not isinstance(value, str):
        raise TeamsError(_("%(what)s must be text.") % {"what": what})
    name = unicodedata.normalize("NFC", value).strip()
    if not name or not any(unicodedata.category(c)[0] not in "CZ" for c in name):
        raise TeamsError(_("%(what)s must not be empty.") % {"what": what})
    if len(name) > max_length:
        raise TeamsError(
            _("%(what)s is too long: at most %(max)d characters, got %(len)d.")
            % {"what": what, "max": max_length, "len": len(name)}
        )
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise TeamsError(_("%(what)s must not contain control characters.") % {"what": what})
    return name


def name_key(name: str) -> str:
    """The form in which two names are "the same": NFKC, case-folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())[:NAME_MAX]


def _clean_private(*, full_name: str = "", phone: str = "", email: str = "") -> dict[str, str]:
    full_name = (full_name or "").strip()
    phone = (phone or "").strip()
    email = (email or "").strip()
    if len(full_name) > 200:
        raise TeamsError(_("Full name is too long: at most 200 characters."))
    if len(phone) > 40:
        raise TeamsError(_("Phone is too long: at most 40 characters."))
    if any(unicodedata.category(c) == "Cc" for c in full_name + phone + email):
        raise TeamsError(_("Private data must not contain control characters."))
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise TeamsError(_("Enter a valid e-mail address.")) from None
    return {"full_name": full_name, "phone": phone, "email": email}


def _lock_application(pk: int, *related: str) -> Application:
    """The application row, locked alone: its game and team are read, not locked. A live write
    holds the game row and inserts rows that reference the application (a phone's socket), so
    locking the game here too would let the two wait on each other."""
    return (Application.objects.select_for_update(of=("self",), no_key=True)
            .select_related(*related).get(pk=pk))


# --- teams and members ---------------------------------------------------------------------


@transaction.atomic
def team_create(*, captain, name: str) -> Team:
    clean = _clean_name(name, what=_("Team name"))
    key = name_key(clean)
    if Team.objects.filter(name_key=key).exists():
        raise TeamsError(_("A team named «%(name)s» already exists.") % {"name": clean})
    try:
        with transaction.atomic():
            return Team.objects.create(name=clean, name_key=key, captain=captain)
    except IntegrityError:
        raise TeamsError(_("A team named «%(name)s» already exists.") % {"name": clean}) from None


@transaction.atomic
def team_rename(*, team: Team, name: str) -> Team:
    clean = _clean_name(name, what=_("Team name"))
    key = name_key(clean)
    if Team.objects.filter(name_key=key).exclude(pk=team.pk).exists():
        raise TeamsError(_("A team named «%(name)s» already exists.") % {"name": clean})
    team.name, team.name_key = clean, key
    team.save(update_fields=["name", "name_key"])
    # Live screens show names, never store them as identity: every game of the team shows the
    # new name at once (results keep their rows: they refer to the application).
    games_changed.send(sender=Game,
                       games=Game.objects.filter(applications__team=team).distinct())
    return team


def _check_nickname_free(team: Team, key: str, nickname: str, exclude: int | None = None):
    others = Member.objects.filter(team=team, nickname_key=key)
    if exclude is not None:
        others = others.exclude(pk=exclude)
    if others.exists():
        raise TeamsError(
            _("The team already has a member nicknamed «%(name)s».") % {"name": nickname}
        )


@transaction.atomic
def member_create(
    *, team: Team, nickname: str, full_name: str = "", phone: str = "", email: str = ""
) -> Member:
    clean = _clean_name(nickname, what=_("Nickname"))
    key = name_key(clean)
    _check_nickname_free(team, key, clean)
    private = _clean_private(full_name=full_name, phone=phone, email=email)
    return Member.objects.create(team=team, nickname=clean, nickname_key=key, **private)


@transaction.atomic
def member_update(
    *,
    member: Member,
    nickname: str | None = None,
    full_name: str | None = None,
    phone: str | None = None,
    email: str | None = None,
) -> Member:
    if nickname is not None:
        clean = _clean_name(nickname, what=_("Nickname"))
        key = name_key(clean)
        _check_nickname_free(member.team, key, clean, exclude=member.pk)
        member.nickname, member.nickname_key = clean, key
    private = _clean_private(
        full_name=member.full_name if full_name is None else full_name,
        phone=member.phone if phone is None else phone,
        email=member.email if email is None else email,
    )
    for field, value in private.items():
        setattr(member, field, value)
    member.save()
    return member


@transaction.atomic
def member_delete(*, member: Member) -> None:
    member.delete()


# --- games ---------------------------------------------------------------------------------


@transaction.atomic
def game_create(
    *,
    actor,
    title: str,
    game_format: str,
    starts_at: datetime,
    fee: int = DEFAULT_FEE,
    rated: bool = True,
) -> Game:
    """Publish a game (applications open at once). A start less than 4 days away is allowed;
    ``game_publication_warning`` tells the organizer about it."""
    clean = _clean_name(title, what=_("Title"), max_length=200)
    if game_format not in Game.Format.values:
        raise TeamsError(_("Unknown game format: %(format)s.") % {"format": game_format})
    if timezone.is_naive(starts_at):
        raise TeamsError(_("The start time must carry a time zone."))
    if not isinstance(fee, int) or isinstance(fee, bool) or fee < 0:
        raise TeamsError(_("The fee must be a whole number of roubles, 0 or more."))
    return Game.objects.create(
        title=clean,
        format=game_format,
        starts_at=starts_at,
        fee=fee,
        rated=bool(rated),
        created_by=actor,
    )


def game_publication_warning(*, game: Game) -> str | None:
    if rules.publication_too_late(starts_at=game.starts_at, now=game.created_at):
        return _(
            "The game was published less than 4 days before its start: the rules (8.6) want "
            "applications open for at least 4 days."
        )
    return None


@transaction.atomic
def game_cancel(*, game: Game, actor, reason: str = "") -> Game:
    """Cancel the game; every team that applied (pending or approved) gets a notice."""
    game = Game.objects.select_for_update().get(pk=game.pk)
    if game.status == Game.Status.CANCELLED:
        raise TeamsError(_("The game is already cancelled."))
    if game.status == Game.Status.FINISHED:
        raise TeamsError(_("A finished game cannot be cancelled."))
    game.status = Game.Status.CANCELLED
    game.save(update_fields=["status"])
    note = within((reason or "").strip(), max_length=1000, what=_("Reason"), error=TeamsError)
    applied = Application.objects.filter(
        game=game, status__in=[Application.Status.PENDING, Application.Status.APPROVED]
    ).select_related("team")
    Notice.objects.bulk_create(
        Notice(team=a.team, game=game, kind=Notice.Kind.GAME_CANCELLED, text=note) for a in applied
    )
    return game


@transaction.atomic
def test_team_create(*, game: Game, actor, name: str, now: datetime | None = None) -> Application:
    """A team made for a test run (``Game.test_of``): approved at once, with its join link and
    PIN for the testers' phones. It needs no roster (testers are phones, not players) and
    goes with the test run (``Team.test_game``), never listed with the club's teams."""
    if game.test_of_id is None:
        raise TeamsError(_("Test teams play only in a test run."))
    team = team_create(captain=actor, name=name)
    team.test_game = game
    team.save(update_fields=["test_game"])
    application = Application(game=game, team=team, status=Application.Status.APPROVED,
                              decided_at=_now(now), decided_by=actor)
    application.save()
    issue_join(application)
    application.save()
    return application


# --- applications --------------------------------------------------------------------------


def _now(now: datetime | None) -> datetime:
    return now if now is not None else timezone.now()


def _bans(team: Team) -> list[rules.BanInfo]:
    return [rules.BanInfo(until=b.until, reason=b.reason) for b in team.bans.all()]


@transaction.atomic
def application_submit(
    *, game: Game, team: Team, members: Iterable[Member], now: datetime | None = None
) -> Application:
    """Apply (or change the roster of an existing application) for a game.

    A pending or approved application keeps its status with the new roster; a withdrawn or
    rejected one is submitted again as pending.
    """
    now = _now(now)
    game = Game.objects.select_for_update().get(pk=game.pk)
    roster = list({m.pk: m for m in members}.values())
    if any(m.team_id != team.pk for m in roster):
        raise TeamsError(_("The roster may only list members of the team."))
    try:
        rules.check_application(
            game_format=game.format,
            starts_at=game.starts_at,
            scheduled=game.status == Game.Status.SCHEDULED,
            roster_size=len(roster),
            bans=_bans(team),
            now=now,
            organizes=game.organizing_team_id == team.pk,
        )
    except rules.RuleViolation as exc:
        raise rule_error(exc) from None
    application, created = Application.objects.get_or_create(game=game, team=team)
    if not created and application.status in (
        Application.Status.WITHDRAWN,
        Application.Status.REJECTED,
    ):
        application.status = Application.Status.PENDING
        application.decided_at = None
        application.decided_by = None
        application.save()
    elif not created:
        application.save(update_fields=["updated_at"])
    application.members.set(roster)
    return application


@transaction.atomic
def application_withdraw(*, application: Application, now: datetime | None = None) -> Application:
    now = _now(now)
    application = _lock_application(application.pk, "game")
    if application.status not in (Application.Status.PENDING, Application.Status.APPROVED):
        raise TeamsError(_("Only a pending or approved application can be withdrawn."))
    if application.game.starts_at <= now:
        raise TeamsError(_("The game has started; the application can no longer be withdrawn."))
    application.status = Application.Status.WITHDRAWN
    clear_join(application)
    application.save()
    games_changed.send(sender=Game, games=[application.game])
    return application


def _decide(application: Application, actor, status: str, now: datetime) -> None:
    application.status = status
    application.decided_at = now
    application.decided_by = actor


@transaction.atomic
def application_approve(
    *, application: Application, actor, now: datetime | None = None
) -> Application:
    now = _now(now)
    application = _lock_application(application.pk, "game", "team")
    if application.status != Application.Status.PENDING:
        raise TeamsError(_("Only a pending application can be approved."))
    if application.game.status == Game.Status.CANCELLED:
        raise TeamsError(_("The game is cancelled."))
    size = application.members.count()
    try:
        rules.check_roster_size(game_format=application.game.format, size=size)
        rules.check_not_banned(_bans(application.team), now)
    except rules.RuleViolation as exc:
        raise rule_error(exc) from None
    _decide(application, actor, Application.Status.APPROVED, now)
    issue_join(application)
    application.save()
    # Before the start, the game's team list changed.
    games_changed.send(sender=Game, games=[application.game])
    Notice.objects.create(
        team=application.team, game=application.game, kind=Notice.Kind.APPLICATION_APPROVED
    )
    return application


@transaction.atomic
def application_reject(
    *, application: Application, actor, reason: str = "", now: datetime | None = None
) -> Application:
    reason = within((reason or "").strip(), max_length=1000, what=_("Reason"), error=TeamsError)
    now = _now(now)
    application = _lock_application(application.pk, "game", "team")
    if application.status not in (Application.Status.PENDING, Application.Status.APPROVED):
        raise TeamsError(_("Only a pending or approved application can be rejected."))
    _decide(application, actor, Application.Status.REJECTED, now)
    clear_join(application)
    application.save()
    games_changed.send(sender=Game, games=[application.game])
    Notice.objects.create(
        team=application.team,
        game=application.game,
        kind=Notice.Kind.APPLICATION_REJECTED,
        text=reason,
    )
    return application


@transaction.atomic
def application_mark_paid(
    *, application: Application, paid: bool = True, now: datetime | None = None
) -> Application:
    application = _lock_application(application.pk)
    if application.status != Application.Status.APPROVED:
        raise TeamsError(_("Only an approved application has a fee to pay."))
    application.paid = bool(paid)
    application.paid_at = _now(now) if paid else None
    application.save(update_fields=["paid", "paid_at", "updated_at"])
    return application


@transaction.atomic
def application_revoke_join(*, application: Application) -> Application:
    """Issue a new link and PIN; phones that joined with the old ones are logged out."""
    application = _lock_application(application.pk, "team", "game")
    if application.status != Application.Status.APPROVED:
        raise TeamsError(_("Only an approved application has a join link."))
    issue_join(application)
    application.save()
    rights.recheck_application(application.pk)  # the old phones' open sockets close
    Notice.objects.create(
        team=application.team, game=application.game, kind=Notice.Kind.JOIN_REVOKED
    )
    return application


# --- bans and benefits -----------------------------------------------------------------------


@transaction.atomic
def ban_create(*, team: Team, actor, reason: str, until: datetime) -> Ban:
    reason = (reason or "").strip()
    if not reason:
        raise TeamsError(_("Give the reason for the ban."))
    if timezone.is_naive(until):
        raise TeamsError(_("The end of the ban must carry a time zone."))
    ban = Ban.objects.create(team=team, reason=within(reason, max_length=2000, what=_("Reason"), error=TeamsError),
                             until=until, created_by=actor)
    audit.record(game=None, actor=actor, action="teams.ban", before=None,
                 after=_ban_value(ban), reason=ban.reason)
    Notice.objects.create(team=team, kind=Notice.Kind.BANNED, text=ban.reason)
    return ban


def _ban_value(ban: Ban) -> dict:
    return {"ban": ban.pk, "team": ban.team_id, "team_name": ban.team.name,
            "until": ban.until.isoformat()}


@transaction.atomic
def ban_lift(*, ban: Ban, actor=None) -> None:
    audit.record(game=None, actor=actor, action="teams.ban", before=_ban_value(ban), after=None,
                 reason=ban.reason)
    ban.delete()


@transaction.atomic
def benefits_grant(game: Game, places: Mapping[int, int]) -> list[Benefit]:
    """Record the prize benefits of ``game``'s final results: ``places`` maps team id to place.

    Idempotent: benefits of this game are replaced (results may be re-published after a
    protest). Places other than 1–3 get nothing. Called by the results apps.
    """
    Benefit.objects.filter(game=game).delete()
    Notice.objects.filter(game=game, kind=Notice.Kind.BENEFIT).delete()
    granted = []
    teams = Team.objects.in_bulk(list(places))
    for team_id, place in places.items():
        percent = rules.prize_percent(int(place))
        team = teams.get(team_id)
        if percent is None or team is None:
            continue
        granted.append(Benefit(team=team, game=game, place=int(place), percent=percent))
        Notice.objects.create(team=team, game=game, kind=Notice.Kind.BENEFIT, text="")
    return Benefit.objects.bulk_create(granted)
