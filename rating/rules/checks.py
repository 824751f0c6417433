"""The checks every part of the season record shares: whole numbers, names, and how a bad
value is shown in a "what and where" message.

Pure, like the whole package (see ``rating.rules``).
"""

from __future__ import annotations

from core.records import RecordError, check_type

# typing only names types for readers (annotations are not evaluated here); importing it
# would slow every replay process's start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def check_whole(value: Any, where: str) -> int:
    # check_type would say "expected a number, got a number" for 2.5: points are whole.
    if type(value) is not int:
        raise RecordError(f"{where}: expected a whole number, got {describe(value)}")
    return value


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "an object"
    return repr(value) if isinstance(value, str) else str(value)


def check_name(value: Any, where: str) -> str:
    check_type(value, str, where)
    if not value.strip():
        raise RecordError(f"{where}: a name may not be empty")
    return value
