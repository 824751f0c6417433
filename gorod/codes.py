"""GoRoD code matching and the brute-force limiter (rules 3.2, 3.24–3.25, 4.1.6).

Pure: this module must not import Django and must not read the clock; ``now`` and the team's
recent wrong attempts are arguments. The live app stores every attempt and asks these
functions for the verdict.

Level codes are described by ``LevelCodes``: one or more required **sectors** (closed in any
order), each of one kind:

- ``common``: the same code for every team; a standard ``G<game>R<digits>D`` code or any free
  text (non-standard, virtual, combined codes are just texts); alternatives allowed;
- ``personal`` (3.24): the team's personal part followed by the common part;
- ``personal_digit`` (3.25): the common code with the team's personal digit appended.
"""

from __future__ import annotations

import math
import random
import re
import secrets
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

__all__ = [
    "AttemptLimit",
    "CodeSpecError",
    "LevelCodes",
    "MatchResult",
    "Sector",
    "check_attempt_limit",
    "is_standard_code",
    "level_codes_from_dict",
    "match_attempt",
    "normalize_code",
    "standard_code",
]

DEFAULT_MAX_WRONG = 10
DEFAULT_WINDOW_S = 60

# [decision] Cyrillic letters that look like Latin ones count as those letters, so a code typed
# on a Russian layout still matches (rules/gorod.md). Upper case only: the text is upper-cased
# first, which turns the lowercase look-alikes into these.
_LOOKALIKES = str.maketrans({
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y",
})

_STANDARD = re.compile(r"G(\d+)R(\d+)D")


class CodeSpecError(ValueError):
    """A level's code description that cannot be used (e.g. no personal part for a team)."""


def normalize_code(text: str) -> str:
    """The form codes are compared in: compatibility forms folded (full-width letters), upper
    case, no white space anywhere (nor invisible format characters such as a zero-width space
    pasted from a messenger), Cyrillic look-alikes as Latin letters.

    >>> normalize_code("  g1 r123 45d ")
    'G1R12345D'
    >>> normalize_code("С1Р2Д")  # Cyrillic С and Р; Д has no Latin twin and stays
    'C1P2Д'
    >>> normalize_code("ор\\u200bех")
    'OPEX'
    """
    text = unicodedata.normalize("NFKC", text).upper()
    text = "".join(ch for ch in text if not ch.isspace() and unicodedata.category(ch) != "Cf")
    return text.translate(_LOOKALIKES)


def is_standard_code(text: str, game: int | None = None) -> bool:
    """Whether ``text`` is a standard ``G<game>R<digits>D`` code (of that game, if given).

    >>> is_standard_code("g1r12345d"), is_standard_code("G1R12345D", game=2)
    (True, False)
    """
    match = _STANDARD.fullmatch(normalize_code(text))
    return bool(match) and (game is None or int(match.group(1)) == game)


def standard_code(game: int, digits: int = 5, rng: random.Random | None = None) -> str:
    """A fresh standard code for game number ``game``: ``G<game>R<digits random digits>D``.

    Uses the system's secure randomness unless a seeded ``rng`` is given (tests, previews).

    >>> standard_code(1, rng=random.Random(3))
    'G1R39825D'
    """
    if not isinstance(game, int) or isinstance(game, bool) or game < 0:
        raise ValueError("game must be a non-negative integer")
    if not isinstance(digits, int) or isinstance(digits, bool) or digits < 1:
        raise ValueError("digits must be a positive integer")
    choose = rng.choice if rng is not None else secrets.choice
    return f"G{game}R{''.join(choose('0123456789') for _ in range(digits))}D"


@dataclass(frozen=True)
class Sector:
    """One required code of a level. ``name`` is what the team is told when it is found."""

    name: str
    kind: str = "common"  # common | personal | personal_digit
    codes: tuple[str, ...] = ()  # the common part, or its accepted alternatives
    #: team → personal part (``personal``) or personal digit (``personal_digit``)
    personal: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in ("common", "personal", "personal_digit"):
            raise CodeSpecError(f"sector {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "common" and not self.codes:
            raise CodeSpecError(f"sector {self.name!r}: no code")
        # Normalise once here, not on every attempt: a level is matched thousands of times.
        object.__setattr__(self, "codes", tuple(normalize_code(c) for c in self.codes))
        object.__setattr__(self, "personal",
                           {team: normalize_code(str(part)) for team, part in self.personal.items()})
        if any(not c for c in self.codes):
            raise CodeSpecError(f"sector {self.name!r}: an empty code never matches")

    def accepted(self, team: str) -> tuple[str, ...]:
        """The normalised texts that close this sector for ``team``.

        >>> Sector("code", "personal", ("r7d",), {"Alpha": "g1a"}).accepted("Alpha")
        ('G1AR7D',)
        >>> Sector("code", "personal_digit", ("G2R1D",), {"Alpha": 4}).accepted("Alpha")
        ('G2R1D4',)
        """
        if self.kind == "common":
            return self.codes
        part = self.personal.get(team)
        if part is None:
            raise CodeSpecError(f"sector {self.name!r}: no personal "
                                f"{'part' if self.kind == 'personal' else 'digit'} for team {team!r}")
        commons = self.codes or ("",)
        if self.kind == "personal":
            # 3.24: "the personal code of each team and the common code" — in that order.
            return tuple(part + common for common in commons)
        return tuple(common + part for common in commons)


@dataclass(frozen=True)
class LevelCodes:
    sectors: tuple[Sector, ...]

    def __post_init__(self) -> None:
        if not self.sectors:
            raise CodeSpecError("a level needs at least one code")
        names = [s.name for s in self.sectors]
        if len(set(names)) != len(names):
            raise CodeSpecError("sector names must be distinct")

    @classmethod
    def single(cls, code: str) -> LevelCodes:
        """The usual level: one common code.

        >>> LevelCodes.single("g1r12345d").sectors[0].codes
        ('G1R12345D',)
        """
        return cls((Sector("code", "common", (code,)),))

    def missing_for(self, teams: Iterable[str]) -> list[str]:
        """Teams without a personal part or digit for some sector (to check before the game).

        >>> LevelCodes((Sector("c", "personal_digit", ("G1R1D",), {"A": "1"}),)).missing_for(["A", "B"])
        ['B']
        """
        missing = []
        for team in teams:
            for sector in self.sectors:
                if sector.kind != "common" and team not in sector.personal:
                    missing.append(team)
                    break
        return missing


def level_codes_from_dict(data: Mapping) -> LevelCodes:
    """Build from the stored JSON form: ``{"sectors": [{"name": ..., "kind": ..., "codes":
    [...], "personal": {team: part}}]}`` or the short ``{"code": "G1R12345D"}``.

    >>> spec = level_codes_from_dict({"sectors": [{"name": "north", "codes": ["G1R11D"]},
    ...                                           {"name": "south", "codes": ["G1R22D"]}]})
    >>> [s.name for s in spec.sectors]
    ['north', 'south']
    """
    try:
        if "code" in data:
            return LevelCodes.single(str(data["code"]))
        return LevelCodes(tuple(
            Sector(str(s["name"]), str(s.get("kind", "common")),
                   tuple(str(c) for c in s.get("codes", ())), dict(s.get("personal", {})))
            for s in data["sectors"]))
    except (KeyError, TypeError, AttributeError) as exc:
        raise CodeSpecError(f"bad level code description: {exc}") from None


@dataclass(frozen=True)
class MatchResult:
    verdict: str  # accepted | repeat | wrong
    sector: str | None  # the sector the text matched (accepted or repeat)
    found: frozenset[str]  # sectors found after this attempt
    remaining: int  # sectors still to find
    closed: bool  # the level is now closed (all sectors found)

    @property
    def is_wrong(self) -> bool:
        """Only wrong attempts count for the brute-force limiter."""
        return self.verdict == "wrong"


def match_attempt(level_codes_spec: LevelCodes, team: str, text: str,
                  already_found: Collection[str] = ()) -> MatchResult:
    """Check one attempt of ``team`` against a level's codes.

    A text matching a sector not yet found is ``accepted``; one matching only sectors already
    found is a ``repeat`` ([decision] not a wrong attempt, so it does not count for the
    brute-force limiter); anything else is ``wrong``. If two sectors accept the same text, the
    first one not yet found takes it.

    >>> spec = LevelCodes((Sector("north", codes=("G1R11D",)), Sector("south", codes=("G1R22D",))))
    >>> r = match_attempt(spec, "Alpha", "g1r22d")
    >>> r.verdict, r.sector, r.closed
    ('accepted', 'south', False)
    >>> match_attempt(spec, "Alpha", "G1R11D", already_found={"south"}).closed
    True
    """
    found = frozenset(already_found)
    sectors = level_codes_spec.sectors
    unknown = found - {s.name for s in sectors}
    if unknown:
        raise CodeSpecError(f"already_found names unknown sectors: {', '.join(sorted(unknown))}")
    typed = normalize_code(text)
    repeat = None
    if typed:
        for sector in sectors:
            if typed in sector.accepted(team):
                if sector.name not in found:
                    now_found = found | {sector.name}
                    remaining = len(sectors) - len(now_found)
                    return MatchResult("accepted", sector.name, now_found, remaining, remaining == 0)
                repeat = repeat or sector.name
    remaining = len(sectors) - len(found)
    verdict = "repeat" if repeat else "wrong"
    return MatchResult(verdict, repeat, found, remaining, remaining == 0)


@dataclass(frozen=True)
class AttemptLimit:
    allowed: bool
    wait_s: int  # whole seconds to wait (rounded up); 0 when allowed
    wrong_in_window: int

    def message(self) -> str:
        return "" if self.allowed else f"Too many wrong codes: wait {self.wait_s} s."


def check_attempt_limit(wrong_attempt_times: Sequence[datetime], now: datetime,
                        max_wrong: int = DEFAULT_MAX_WRONG,
                        window_s: float = DEFAULT_WINDOW_S) -> AttemptLimit:
    """Whether a team may try another code on a level, given its recent wrong attempts there.

    [decision] A sliding window: with ``max_wrong`` (10) or more wrong attempts in the last
    ``window_s`` (60) seconds the team waits until enough of them are older than the window;
    an attempt exactly ``window_s`` old no longer counts. Attempts refused by the limiter are
    not checked and must not be passed back in as wrong ones (else a team that keeps typing
    would never get out).

    Worked example: 10 wrong attempts at 22:00:00–22:00:09 (one a second); at 22:00:15 the
    team must wait 45 s (until 22:01:00, when the first one leaves the window).

    >>> from datetime import timedelta, timezone
    >>> t0 = datetime(2026, 12, 5, 22, 0, tzinfo=timezone.utc)
    >>> times = [t0 + timedelta(seconds=i) for i in range(10)]
    >>> check_attempt_limit(times, t0 + timedelta(seconds=15)).wait_s
    45
    >>> check_attempt_limit(times, t0 + timedelta(seconds=60)).allowed
    True
    """
    if max_wrong < 1 or window_s <= 0:
        raise ValueError("max_wrong must be at least 1 and window_s positive")
    recent = sorted(t for t in wrong_attempt_times if 0 <= (now - t).total_seconds() < window_s)
    if len(recent) < max_wrong:
        return AttemptLimit(True, 0, len(recent))
    # The attempt whose leaving the window brings the count below the limit.
    key = recent[len(recent) - max_wrong]
    wait = window_s - (now - key).total_seconds()
    return AttemptLimit(False, max(1, math.ceil(wait - 1e-9)), len(recent))
