"""Dates a game, a ban or a ruling can carry: years 2000..2100.

[decision] Year 1 (or 9999) is a typo, and past the edges the time-zone conversion overflows
(``datetime`` cannot shift 0001-01-01 00:00 Moscow time to UTC) and databases disagree on the
range; a clear 400 is better.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

YEAR_MIN, YEAR_MAX = 2000, 2100


def validate_plausible_datetime(value) -> None:
    if value is not None and not YEAR_MIN <= value.year <= YEAR_MAX:
        raise ValidationError(
            _("Give a date between the years %(low)d and %(high)d."),
            code="implausible_date",
            params={"low": YEAR_MIN, "high": YEAR_MAX},
        )
