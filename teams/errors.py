"""The teams' refusals: a broken rule or a refused write, with a message fit for the user (the
API answers it with 400 ``{"detail": ...}``, or 429 for too many attempts; pages show it as a
message)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core.errors import DomainError
from teams import rules


class TeamsError(DomainError):
    """A domain error with a message fit for the user."""


class TooManyAttempts(TeamsError):
    """A limit on wrong attempts is reached (the API answers 429)."""

    status_code = 429


def rule_error(exc: rules.RuleViolation) -> TeamsError:
    return TeamsError(_(exc.template).format(**exc.params))
