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
    "codes_match",
    "is_standard_code",
    "layout_code",
    "level_codes_from_dict",
    "match_attempt",
    "normalize_code",
    "standard_code",
]

#: The longest text a phone may send as a code (a longer level code could never be entered).
CODE_MAX = 200
DEFAULT_MAX_WRONG = 10
DEFAULT_WINDOW_S = 60

# [decision] Cyrillic letters that look like Latin ones count as those letters, so a code typed
# on a Russian layout still matches (rules/gorod.md). Upper case only: the text is upper-cased
# first, which turns the lowercase look-alikes into these.
_LOOKALIKES = str.maketrans({
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y",
})

# The ЙЦУКЕН keys and the QWERTY characters they sit on: a code typed with the Russian layout
# switched on (``G7R11111D`` → ``п7к11111в``) reads back as what was meant. Upper case, like
# _LOOKALIKES; the punctuation keys (Х Ъ Ж Э Б Ю Ё) are mapped too, so a Cyrillic code typed with
# the Latin layout on (``ktc`` for ``ЛЕС``) meets the code's own layout form.
_LAYOUT = str.maketrans(dict(zip(
    "ЙЦУКЕНГШЩЗХЪФЫВАПРОЛДЖЭЯЧСМИТЬБЮЁ",
    "QWERTYUIOP[]ASDFGHJKL;'ZXCVBNM,.`", strict=True)))

_STANDARD = re.compile(r"G(\d+)R(\d+)D")


class CodeSpecError(ValueError):
    """A level's code description that cannot be used (e.g. no personal part for a team)."""


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).upper()
    return "".join(ch for ch in text if not ch.isspace() and unicodedata.category(ch) != "Cf")


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
    return _fold(text).translate(_LOOKALIKES)


def layout_code(text: str) -> str:
    """The keys a text was typed with, read on the QWERTY layout: folded like
    ``normalize_code``, then every Cyrillic letter replaced by the Latin key it sits on
    (п→G, к→R, в→D, …). Latin letters and digits stay, so a Latin text is its own layout form.

    >>> layout_code("п7к11111в")
    'G7R11111D'
    >>> layout_code("лес"), layout_code("ktc")
    ('KTC', 'KTC')
    """
    return _fold(text).translate(_LAYOUT)


def codes_match(typed: str, code: str) -> bool:
    """Whether a typed text matches a code.

    [decision] Two readings are compared and either one matching is enough:

    - the look-alike normalisation (``normalize_code``): the text as typed, Cyrillic look-alikes
      as Latin letters — a code typed right, in either alphabet where the letters look the same;
    - the layout form (``layout_code``) of both sides: the keys that were pressed — a Latin code
      typed with the Russian layout on (``п7к11111в`` for ``G7R11111D``), and a genuinely
      Cyrillic code typed with the Latin layout on (``ktc`` for ``ЛЕС``).

    Texts without Cyrillic letters match exactly as before (both readings are the plain
    normalisation). The price: a Cyrillic letter now stands for two Latin letters (``у`` for a
    look-alike ``Y`` and for the ``E`` key), so ``у1`` matches ``Y1`` and ``E1``; codes differing
    only that way are a set-up warning (duplicate codes) anyway.

    >>> codes_match("п7к11111в", "G7R11111D"), codes_match("орех", "ОРЕХ"), codes_match("ktc", "ЛЕС")
    (True, True, True)
    >>> codes_match("G7R11111E", "G7R11111D")
    False
    """
    return normalize_code(typed) == normalize_code(code) or layout_code(typed) == layout_code(code)


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
    #: the layout forms (``layout_code``) of ``codes`` and ``personal``, kept beside them
    layout_codes: tuple[str, ...] = field(init=False, repr=False, compare=False, default=())
    layout_personal: Mapping[str, str] = field(init=False, repr=False, compare=False,
                                               default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in ("common", "personal", "personal_digit"):
            raise CodeSpecError(f"sector {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "common" and not self.codes:
            raise CodeSpecError(f"sector {self.name!r}: no code")
        # Normalise once here, not on every attempt: a level is matched thousands of times.
        # The layout forms come from the texts as written: "ОРЕХ" normalises to "OPEX", whose
        # keys are no longer the ones a team types for it.
        object.__setattr__(self, "layout_codes", tuple(layout_code(c) for c in self.codes))
        object.__setattr__(self, "layout_personal",
                           {team: layout_code(str(part)) for team, part in self.personal.items()})
        object.__setattr__(self, "codes", tuple(normalize_code(c) for c in self.codes))
        object.__setattr__(self, "personal",
                           {team: normalize_code(str(part)) for team, part in self.personal.items()})
        if any(not c for c in self.codes):
            raise CodeSpecError(f"sector {self.name!r}: an empty code never matches")
        if any(not p for p in self.personal.values()):
            raise CodeSpecError(f"sector {self.name!r}: an empty personal part never matches")

    def accepted(self, team: str) -> tuple[str, ...]:
        """The normalised texts that close this sector for ``team``.

        >>> Sector("code", "personal", ("r7d",), {"Alpha": "g1a"}).accepted("Alpha")
        ('G1AR7D',)
        >>> Sector("code", "personal_digit", ("G2R1D",), {"Alpha": 4}).accepted("Alpha")
        ('G2R1D4',)
        """
        return self._combine(team, self.codes, self.personal)

    def accepted_layout(self, team: str) -> tuple[str, ...]:
        """The layout forms (``layout_code``) of what ``accepted`` gives.

        >>> Sector("code", codes=("ЛЕС",)).accepted_layout("Alpha")
        ('KTC',)
        """
        return self._combine(team, self.layout_codes, self.layout_personal)

    def _combine(self, team: str, codes: tuple[str, ...], personal: Mapping[str, str]
                 ) -> tuple[str, ...]:
        if self.kind == "common":
            return codes
        part = personal.get(team)
        if part is None:
            raise CodeSpecError(f"sector {self.name!r}: no personal "
                                f"{'part' if self.kind == 'personal' else 'digit'} for team {team!r}")
        commons = codes or ("",)
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
            return LevelCodes.single(_code_text(data["code"], "code"))
        sectors = data["sectors"]
        if not isinstance(sectors, list):
            raise CodeSpecError("sectors: expected a list")
        return LevelCodes(tuple(_sector(s, i) for i, s in enumerate(sectors)))
    except (KeyError, TypeError, AttributeError) as exc:
        raise CodeSpecError(f"bad level code description: {exc}") from None


def _code_text(value, where: str) -> str:
    # [decision] A code is a text or a whole number (YAML reads 12345 as one); anything else —
    # a null that str() would turn into the code "None", a list, a boolean — is refused.
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise CodeSpecError(f"{where}: expected a text, got {value!r}")
    return str(value)


def _sector(data, index: int) -> Sector:
    if not isinstance(data, Mapping):
        raise CodeSpecError(f"sectors[{index}]: expected a mapping")
    where = f"sectors[{index}]"
    name = _code_text(data["name"], f"{where}.name")
    codes = data.get("codes", ())
    if not isinstance(codes, list | tuple):
        raise CodeSpecError(f"{where}.codes: expected a list")
    personal = data.get("personal") or {}
    if not isinstance(personal, Mapping):
        raise CodeSpecError(f"{where}.personal: expected a mapping team → part")
    return Sector(name, _code_text(data.get("kind", "common"), f"{where}.kind"),
                  tuple(_code_text(c, f"{where}.codes[{j}]") for j, c in enumerate(codes)),
                  {_code_text(team, f"{where}.personal"): _code_text(part, f"{where}.personal.{team}")
                   for team, part in personal.items()})


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

    A text matching (``codes_match``: as typed, or typed with the other keyboard layout on) a
    sector not yet found is ``accepted``; one matching only sectors already
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
    typed, typed_keys = normalize_code(text), layout_code(text)
    repeat = None
    if typed:
        for sector in sectors:
            # codes_match, against the forms the sector computed once
            if typed in sector.accepted(team) or typed_keys in sector.accepted_layout(team):
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


# --- the codes text an organizer types (the set-up page, scenario files) ----------------------


#: Why a codes text cannot be read (``CodesTextError.reason``), with its English message; pages
#: show them in the reader's language (``gorod.forms.CODES_TEXT_MESSAGES``).
CODES_TEXT_ERRORS = {
    "unknown_kind": "Line %(n)d: unknown kind “%(kind)s” (personal or digit).",
    "empty_name": "Line %(n)d: the sector name before “:” is empty.",
    "no_code": "Line %(n)d: no code after “%(name)s:”.",
    "empty_alternative": "Line %(n)d: an empty alternative between “|”.",
    "repeated_sector": "Line %(n)d: the sector “%(name)s” is already named above.",
    "empty": "Type at least one code.",
}


class CodesTextError(ValueError):
    """The codes text cannot be read; ``reason`` and ``params`` say which line and why."""

    def __init__(self, reason: str, **params) -> None:
        self.reason, self.params = reason, params
        super().__init__(CODES_TEXT_ERRORS[reason] % params)


#: the kinds a sector line may name in brackets: ``gate (personal): R7D``
KIND_WORDS = {"personal": "personal", "личный": "personal", "личная": "personal",
              "digit": "personal_digit", "цифра": "personal_digit"}
#: how the codes text writes each kind back
KIND_NAMES = {"personal": "personal", "personal_digit": "digit"}
_KIND = re.compile(r"^(?P<name>.*?)\s*\((?P<kind>[^()]+)\)$")


def parse_codes_text(text: str) -> dict:
    """The codes of a level typed one per line → the spec ``level_codes_from_dict`` takes.

    - ``CODE`` — one required code (its sector is named by its place: ``1``, ``2``, …);
    - ``sector name: CODE1 | CODE2`` — a named required sector, any of the alternatives closes it;
    - ``sector name (personal): COMMON`` — a personal code (3.24): each team's part, then the
      common part (which may be empty); ``sector name (digit): COMMON`` — the common code with
      the team's personal digit appended (3.25). The teams' parts are typed in the table of
      personal codes on the set-up page (``personal_parts``);
    - blank lines are skipped.

    A single plain code gives the short form ``{"code": ...}``; anything else gives
    ``{"sectors": [...]}``. [decision] The first ``:`` of a line starts its codes, so a plain
    code cannot contain ``:``; ``A | B`` without a name is one sector with alternatives.

    >>> parse_codes_text("G1R1D")
    {'code': 'G1R1D'}
    >>> parse_codes_text("north: G1R11D | G1R12D\\nG1R2D")["sectors"][0]
    {'name': 'north', 'codes': ['G1R11D', 'G1R12D']}
    >>> parse_codes_text("tower (digit): G1R5D")
    {'sectors': [{'name': 'tower', 'kind': 'personal_digit', 'codes': ['G1R5D'], 'personal': {}}]}
    """
    sectors: list[dict] = []
    for number, raw in enumerate(str(text).splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        name, colon, rest = line.partition(":")
        kind = "common"
        if colon:
            name = name.strip()
            marked = _KIND.match(name)
            if marked:
                kind = KIND_WORDS.get(marked["kind"].strip().casefold())
                if kind is None:
                    raise CodesTextError("unknown_kind", n=number, kind=marked["kind"].strip())
                name = marked["name"].strip()
            if not name:
                raise CodesTextError("empty_name", n=number)
        else:
            name, rest = str(len(sectors) + 1), line
        codes = [code.strip() for code in rest.split("|")]
        if kind == "personal" and codes == [""]:
            codes = []  # 3.24: the personal part alone may be the code
        elif not any(codes):
            raise CodesTextError("no_code", n=number, name=name)
        elif not all(codes):
            raise CodesTextError("empty_alternative", n=number)
        if any(s["name"] == name for s in sectors):
            raise CodesTextError("repeated_sector", n=number, name=name)
        sector = {"name": name, "codes": codes}
        if kind != "common":
            sector = {"name": name, "kind": kind, "codes": codes, "personal": {}}
        sectors.append(sector)
    if not sectors:
        raise CodesTextError("empty")
    if (len(sectors) == 1 and sectors[0]["name"] == "1" and len(sectors[0]["codes"]) == 1
            and "kind" not in sectors[0]):
        return {"code": sectors[0]["codes"][0]}
    return {"sectors": sectors}


def codes_to_text(spec: dict, words: dict[str, str] = KIND_NAMES) -> str:
    """A level's stored codes as the text ``parse_codes_text`` reads (the edit form);
    ``words`` names the kinds (the page passes its language's words, which the parser reads).

    >>> codes_to_text({"sectors": [{"name": "1", "codes": ["A"]}, {"name": "t", "kind": "personal_digit", "codes": ["B"]}]})
    '1: A\\nt (digit): B'
    """
    if not isinstance(spec, dict):
        return ""
    if "code" in spec:
        return str(spec["code"])
    lines = []
    for sector in spec.get("sectors") or ():
        kind = sector.get("kind", "common")
        name = sector.get("name")
        if kind != "common":
            name = f"{name} ({words.get(kind, kind)})"
        lines.append(f"{name}: {' | '.join(str(c) for c in sector.get('codes') or ())}".rstrip())
    return "\n".join(lines)


def keep_personal(new: dict, old: dict) -> dict:
    """Edited codes keep the teams' personal parts of the sectors that stay personal under the
    same name (they are typed in their own table, not in the codes text).

    >>> keep_personal({"sectors": [{"name": "t", "kind": "personal_digit", "codes": ["B"], "personal": {}}]},
    ...               {"sectors": [{"name": "t", "kind": "personal_digit", "codes": ["A"], "personal": {"X": "1"}}]})["sectors"][0]["personal"]
    {'X': '1'}
    """
    before = {(s.get("name"), s.get("kind", "common")): s.get("personal") or {}
              for s in (old or {}).get("sectors") or ()}
    for sector in new.get("sectors") or ():
        if sector.get("kind", "common") != "common" and not sector.get("personal"):
            sector["personal"] = dict(before.get((sector["name"], sector["kind"]), {}))
    return new


def codes_as_text(spec: dict, words: dict[str, str] = KIND_NAMES) -> str:
    """A level's stored codes shown back in one line (the list of levels on the set-up page);
    ``words`` names the kinds as in ``codes_to_text``.

    >>> codes_as_text({"sectors": [{"name": "north", "codes": ["A", "B"]}, {"name": "2", "codes": ["C"]}]})
    'north: A | B; 2: C'
    """
    if not isinstance(spec, dict):
        return ""
    if "code" in spec:
        return str(spec["code"])
    parts = []
    for sector in spec.get("sectors") or ():
        codes = " | ".join(str(c) for c in sector.get("codes") or ())
        kind = sector.get("kind", "common")
        if kind != "common":
            codes = f"{codes} ({words.get(kind, kind)})"
        parts.append(f"{sector.get('name')}: {codes}")
    return "; ".join(parts)


def personal_sectors(spec: dict) -> list[tuple[int, dict]]:
    """The sectors of a level's codes that need a part or digit per team, with their index."""
    if not isinstance(spec, dict):
        return []
    return [(i, sector) for i, sector in enumerate(spec.get("sectors") or ())
            if sector.get("kind", "common") != "common"]
