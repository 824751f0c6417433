"""Account writes: sign-up with e-mail verification, the profile, staff role grants."""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlencode, urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from core import rights
from core.accounts.tokens import verification_token
from core.errors import DomainError, NotAllowed
from core.models import RoleChange
from core.roles import is_organizer

log = logging.getLogger(__name__)


class AccountError(DomainError):
    pass


def email_taken(email: str, *, except_user: User | None = None) -> bool:
    others = User.objects.filter(email__iexact=email.strip())
    if except_user is not None:
        others = others.exclude(pk=except_user.pk)
    return others.exists()


def _send_verification(user: User, site_url: str, next_path: str = "") -> None:
    path = reverse("accounts:verify", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": verification_token.make_token(user)})
    if next_path:  # where the link logs the player in to: the invitation that sent them
        path += "?" + urlencode({"next": next_path})
    context = {"user": user, "url": site_url.rstrip("/") + path, "SITE_NAME": settings.SITE_NAME}
    try:
        send_mail(render_to_string("registration/verify_email_subject.txt", context).strip(),
                  render_to_string("registration/verify_email.txt", context), None, [user.email])
    except OSError:  # smtplib's errors included: the account exists, the mail server is down
        log.exception("could not send the verification e-mail to user %s", user.pk)


@transaction.atomic
def account_signup(*, username: str, email: str, password: str, site_url: str,
                   next_path: str = "") -> User:
    """Create an inactive account and mail its verification link (``site_url`` + the path,
    carrying ``next_path``, a local path the caller checked, to go to once verified).

    The account can log in once the link is opened: an address nobody reads never captains.
    """
    if User.objects.filter(username__iexact=username).exists():
        raise AccountError(_("A user with that username already exists."))
    if email_taken(email):
        raise AccountError(_("An account with this e-mail already exists. Reset its password "
                             "if you forgot it."))
    user = User.objects.create_user(username=username, email=email.strip(), password=password,
                                    is_active=False)
    transaction.on_commit(lambda: _send_verification(user, site_url, next_path))
    return user


def unconfirmed_login(*, username: str, password: str, site_url: str) -> User | None:
    """The account these credentials would open if its e-mail were confirmed, or None.

    Such an account gets a fresh confirmation link, so the log-in page can say "confirm your
    e-mail: a new link is on its way" instead of "wrong password" (the first link may be lost
    or expired, and signing up again is refused: the name is taken). [decision] Only an
    account that never logged in counts: one an organizer switched off in the admin stays
    shut and gets the usual answer.
    """
    user = User.objects.filter(username=username, is_active=False, last_login=None).first()
    if user is None or not user.email or not user.check_password(password):
        return None
    _send_verification(user, site_url)
    return user


@transaction.atomic
def account_verify(*, uidb64: str, token: str) -> User:
    """Activate the account the link names; a wrong, used or expired link is refused."""
    try:
        pk = int(urlsafe_base64_decode(uidb64).decode())
        user = User.objects.select_for_update().get(pk=pk)
    except (ValueError, TypeError, OverflowError, UnicodeDecodeError, User.DoesNotExist):
        user = None
    if user is None or not verification_token.check_token(user, token):
        raise AccountError(_("This verification link is wrong, used or expired. Log in if you "
                             "already opened it, or sign up again."))
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user


@transaction.atomic
def profile_update(*, user: User, first_name: str, last_name: str, email: str) -> User:
    """The name the King of the Hill players' rating shows (rules 2.6) and the e-mail."""
    if email_taken(email, except_user=user):
        raise AccountError(_("An account with this e-mail already exists."))
    user.first_name, user.last_name, user.email = first_name.strip(), last_name.strip(), email.strip()
    user.save(update_fields=["first_name", "last_name", "email"])
    return user


def _role_label(role: str) -> str:
    return str(RoleChange.Role(role).label)


@transaction.atomic
def role_set(*, actor: User, user: User, role: str, granted: bool) -> RoleChange:
    """Grant (``granted=True``) or revoke a staff role, and record who did it.

    Only organizers may; an organizer cannot revoke their own organizer role (the site would
    be left without anybody who can give it back).
    """
    if not is_organizer(actor):
        raise NotAllowed(_("Only organizers may do this."))
    if role not in RoleChange.Role.values:
        raise AccountError(_("Unknown role."))
    if not user.is_active:
        raise AccountError(_("This account is not active (its e-mail is not verified)."))
    if not granted and role == RoleChange.Role.ORGANIZER and user.pk == actor.pk:
        raise AccountError(_("You cannot revoke your own organizer role."))
    group = Group.objects.get(name=role)
    has = user.groups.filter(pk=group.pk).exists()
    if granted == has:
        message = (_("%(user)s already has the %(role)s role.") if granted
                   else _("%(user)s does not have the %(role)s role."))
        raise AccountError(message % {"user": user.get_username(), "role": _role_label(role)})
    if granted:
        user.groups.add(group)
    else:
        user.groups.remove(group)
        rights.recheck_user(user.pk)  # its open staff sockets check their right again
    return RoleChange.objects.create(user=user, role=role, granted=granted, changed_by=actor)
