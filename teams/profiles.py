"""Players' profiles on the roster (King of the Hill rule 2.6): a roster entry (``Member``)
linked to the player's account, and merging a typo's entry into the right one.

A player claims an entry through the captain's invitation link (a signed, expiring token for
that entry) or the captain links an account by its e-mail. One account is at most one entry of
a team (``teams_member_user_once``); an entry is one account. Every link, unlink and merge is
audited (``core.audit``, actions ``teams.profile_link``, ``teams.profile_unlink``,
``teams.member_merge``). Authorization is the caller's (``teams.permissions``): the captain of
the entry's team or an organizer, except the claim, which the invitation itself authorizes.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.core import signing
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core import audit
from teams.errors import TeamsError
from teams.models import Application, Member
from teams.signals import players_changed

INVITE_SALT = "teams.profiles.invite"
# [decision] An invitation works for two weeks: long enough to reach a player before the next
# game, short enough that an old link forwarded around stops working by itself.
INVITE_MAX_AGE = 14 * 24 * 3600


def invite_token(member: Member) -> str:
    """The signed token of the invitation to claim ``member``; it names the entry and its team,
    so it never opens another entry, and expires after ``INVITE_MAX_AGE``."""
    return signing.dumps({"m": member.pk, "t": member.team_id}, salt=INVITE_SALT, compress=True)


def _bad_invite() -> TeamsError:
    return TeamsError(_("This invitation link is wrong or expired. Ask your captain for a new "
                        "one."))


def member_by_invite(token: str) -> Member:
    """The roster entry the invitation names, or ``TeamsError`` when the token is wrong, expired
    or its entry is gone."""
    try:
        value = signing.loads(token, salt=INVITE_SALT, max_age=INVITE_MAX_AGE)
        member = Member.objects.select_related("team", "user").get(pk=value["m"],
                                                                    team_id=value["t"])
    except (signing.BadSignature, TypeError, KeyError, ValueError, Member.DoesNotExist):
        raise _bad_invite() from None
    return member


def _member_value(member: Member) -> dict:
    return {"member": member.pk, "team": member.team_id, "nickname": member.nickname,
            "user": member.user_id,
            "linked_at": member.linked_at.isoformat() if member.linked_at else None}


def _link(*, actor, member: Member, user, now: datetime | None, how: str) -> Member:
    member = Member.objects.select_for_update().select_related("team").get(pk=member.pk)
    if member.user_id == user.pk:
        return member
    if member.user_id is not None:
        raise TeamsError(_("«%(nickname)s» is already linked to another profile. The captain can "
                           "unlink it first.") % {"nickname": member.nickname})
    other = Member.objects.filter(team_id=member.team_id, user=user).first()
    if other is not None:
        raise TeamsError(_("This profile is already «%(other)s» in this team. Merge «%(nickname)s» "
                           "into «%(other)s» instead.")
                         % {"other": other.nickname, "nickname": member.nickname})
    before = _member_value(member)
    member.user, member.linked_at = user, now or timezone.now()
    try:
        with transaction.atomic():
            member.save(update_fields=["user", "linked_at"])
    except IntegrityError:  # the same profile linked to another entry of the team meanwhile
        raise TeamsError(_("This profile is already linked to another entry of this "
                           "team.")) from None
    audit.record(game=None, actor=actor, action="teams.profile_link", before=before,
                 after=_member_value(member), reason=how, at=member.linked_at)
    transaction.on_commit(lambda: players_changed.send(sender=Member, teams=[member.team_id]))
    return member


@transaction.atomic
def member_claim(*, user, token: str, now: datetime | None = None) -> Member:
    """The logged-in ``user`` claims the roster entry the invitation names (idempotent for the
    same user)."""
    return _link(actor=user, member=member_by_invite(token), user=user, now=now, how="invite")


@transaction.atomic
def member_link(*, actor, member: Member, email: str, now: datetime | None = None) -> Member:
    """The captain (or an organizer) links the entry to the active account with ``email``."""
    email = (email or "").strip()
    user = (get_user_model().objects.filter(email__iexact=email, is_active=True).order_by("pk")
            .first() if email else None)
    if user is None:
        raise TeamsError(_("No active account has the e-mail «%(email)s». Send the player the "
                           "invitation link instead.") % {"email": email})
    return _link(actor=actor, member=member, user=user, now=now, how="email")


@transaction.atomic
def member_unlink(*, actor, member: Member) -> Member:
    member = Member.objects.select_for_update().get(pk=member.pk)
    if member.user_id is None:
        raise TeamsError(_("«%(nickname)s» is not linked to a profile.")
                         % {"nickname": member.nickname})
    before = _member_value(member)
    member.user, member.linked_at = None, None
    member.save(update_fields=["user", "linked_at"])
    audit.record(game=None, actor=actor, action="teams.profile_unlink", before=before,
                 after=_member_value(member))
    transaction.on_commit(lambda: players_changed.send(sender=Member, teams=[member.team_id]))
    return member


PRIVATE_FIELDS = ("full_name", "phone", "email")


@transaction.atomic
def member_merge(*, actor, typo: Member, into: Member) -> Member:
    """Merge the entry ``typo`` into ``into`` of the same team: every application that lists
    ``typo`` lists ``into`` instead, ``into`` takes the profile link and the private data it
    lacks, and ``typo`` is deleted. Refused across teams and when the two entries are linked to
    different profiles (two people, not a typo)."""
    if typo.pk == into.pk:
        raise TeamsError(_("Choose another entry to merge into."))
    locked = Member.objects.select_for_update().in_bulk([typo.pk, into.pk])
    if len(locked) != 2:
        raise TeamsError(_("This roster entry no longer exists."))
    typo, into = locked[typo.pk], locked[into.pk]
    if typo.team_id != into.team_id:
        raise TeamsError(_("Only entries of the same team can be merged."))
    if typo.user_id is not None and into.user_id is not None:
        raise TeamsError(_("«%(typo)s» and «%(into)s» are linked to different profiles: they are "
                           "two players, not a typo.") % {"typo": typo.nickname,
                                                          "into": into.nickname})
    before = {"typo": _member_value(typo), "into": _member_value(into)}
    roster = Application.members.through
    typo_apps = set(roster.objects.filter(member_id=typo.pk).values_list("application_id",
                                                                          flat=True))
    into_apps = set(roster.objects.filter(member_id=into.pk).values_list("application_id",
                                                                          flat=True))
    roster.objects.bulk_create([roster(application_id=a, member_id=into.pk)
                                for a in sorted(typo_apps - into_apps)])
    fields = [f for f in PRIVATE_FIELDS if not getattr(into, f) and getattr(typo, f)]
    for field in fields:
        setattr(into, field, getattr(typo, field))
    if typo.user_id is not None:
        into.user_id, into.linked_at = typo.user_id, typo.linked_at
        fields += ["user", "linked_at"]
    typo.delete()  # its roster rows go with it
    if fields:
        into.save(update_fields=fields)
    audit.record(game=None, actor=actor, action="teams.member_merge", before=before,
                 after={**_member_value(into), "applications": sorted(typo_apps)})
    transaction.on_commit(lambda: players_changed.send(sender=Member, teams=[into.team_id]))
    return into
