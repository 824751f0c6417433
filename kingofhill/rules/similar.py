"""Grouping help: whether two answers are probably the same answer written differently, and
which of the host's groups to offer for merging.

Pure, like the whole package (see ``kingofhill.rules``). A suggestion is never a verdict: the
host accepts or dismisses it. So the rules lean towards missing a merge rather than offering a
wrong one: short words and numbers never merge by spelling («Рим»/«Мир», «1812»/«1821»), and
a consonant swapped in a short word is a different word («Гамбия»/«Замбия»), while a vowel
misheard in a long one is a slip («Ломоносав»).

[decision] The reasons are checked in a fixed order, and the first that holds is the one
shown: punctuation (and case, quotes, hyphens, spaces), ё/е, word order, initials, spelling,
then the same checks again on the Latin spelling of a Cyrillic answer (transliteration).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from kingofhill.rules.answers import normalize_answer

# --- reasons ----------------------------------------------------------------------------------

SAME = "same"
PUNCTUATION = "punctuation"
YO = "yo"
WORD_ORDER = "word_order"
INITIALS = "initials"
SPELLING = "spelling"
TRANSLITERATION = "transliteration"
REASONS = (SAME, PUNCTUATION, YO, WORD_ORDER, INITIALS, SPELLING, TRANSLITERATION)

Reason = str  # one of REASONS

# The host's groups compared pairwise: a bound on the work of one host state (a hall has at
# most 64 teams, so at most 64 groups).
MAX_GROUPS = 80

# --- spelling distance ------------------------------------------------------------------------

VOWELS = frozenset("аеёиоуыэюяйьъaeiouy")
# A vowel for a vowel, or a vowel dropped, is the usual slip of the ear; a consonant for a
# consonant more often another word («Ирландия»/«Исландия»), so it costs twice as much.
VOWEL_EDIT = 0.75
EDIT = 1.0
CONSONANT_SWAP = 1.5
VOWEL_FOR_CONSONANT = 1.25
DOUBLED = 0.5


def _budget(letters: int) -> float:
    """How much spelling difference an answer of ``letters`` letters (the shorter of the two)
    may have: none up to five letters, then a quarter edit per letter, at most three."""
    return min(3.0, max(0.0, (letters - 4) * 0.25))


def _gap(text: str, i: int) -> float:
    """Dropping ``text[i]``: a doubled letter («Магелан») or a vowel is a slip of the ear."""
    c = text[i]
    if i and text[i - 1] == c:
        return DOUBLED
    return VOWEL_EDIT if c in VOWELS else EDIT


def _swap(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a in VOWELS and b in VOWELS:
        return VOWEL_EDIT
    return CONSONANT_SWAP if a not in VOWELS and b not in VOWELS else VOWEL_FOR_CONSONANT


def distance(a: str, b: str, limit: float = float("inf")) -> float:
    """The weighted Damerau–Levenshtein (optimal string alignment) distance: a vowel edited or
    dropped 0.75, another letter dropped or two neighbours swapped 1, a consonant for a
    consonant 1.5, one of a doubled letter 0.5. Above ``limit`` it answers some value above ``limit`` early.

    >>> distance("ломоносов", "ломоносав")
    0.75
    >>> distance("einstein", "einstien")
    1.0
    """
    if a == b:
        return 0.0
    if abs(len(a) - len(b)) * VOWEL_EDIT > limit:
        return limit + 1
    previous = None
    row = [0.0]
    for j in range(len(b)):
        row.append(row[-1] + _gap(b, j))
    for i, ca in enumerate(a, start=1):
        drop = _gap(a, i - 1)
        current = [row[0] + drop]
        for j, cb in enumerate(b, start=1):
            best = min(row[j] + drop, current[j - 1] + _gap(b, j - 1),
                       row[j - 1] + _swap(ca, cb))
            if previous is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                best = min(best, previous[j - 2] + EDIT)
            current.append(best)
        if min(current) > limit:
            return limit + 1
        previous, row = row, current
    return row[-1]


# --- transliteration --------------------------------------------------------------------------

# Russian to Latin as clubs' English answers spell it (the passport and newspaper habit).
CYRILLIC_TO_LATIN = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
    "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh",
    "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
}
_CYRILLIC = re.compile("[а-яё]")
_LATIN = re.compile("[a-z]")
# The sound skeleton of a Latin spelling: the same consonants whatever the spelling habit
# («Shakespeare», «Shekspir»; «Moscow», «Moskva»). Order matters: longer spellings first.
_SKELETON_STEPS = (
    ("tch", "ch"), ("shch", "s"), ("sch", "s"), ("sh", "s"), ("zh", "s"), ("ch", "4"),
    ("kh", "k"), ("ph", "f"), ("th", "t"), ("ck", "k"), ("ts", "z"), ("tz", "z"), ("z", "s"),
    ("c", "k"), ("q", "k"), ("x", "ks"), ("w", "v"), ("j", "y"), ("h", ""),
)


def to_latin(form: str) -> str:
    """A normalised answer with its Cyrillic letters spelled in Latin ones.

    >>> to_latin("лев толстой")
    'lev tolstoy'
    """
    return "".join(CYRILLIC_TO_LATIN.get(c, c) for c in form)


def _skeleton(latin: str) -> str:
    for old, new in _SKELETON_STEPS:
        latin = latin.replace(old, new)
    kept = [c for c in latin if c not in VOWELS and c != " "]
    return "".join(c for i, c in enumerate(kept) if i == 0 or kept[i - 1] != c)


# --- one pair ---------------------------------------------------------------------------------

_ROMAN = re.compile(r"^(?:x{0,3})(?:ix|iv|v?i{0,3})$")


def _numbers(form: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The numbers an answer names: its digits and its Roman numerals («Пётр I»)."""
    words = form.split()
    digits = tuple(sorted(int(w) for w in re.findall(r"\d+", form)))
    roman = tuple(sorted(w for w in words if len(w) > 1 and _ROMAN.match(w)
                         or w == "i" and _CYRILLIC.search(form)))
    return digits, roman


@dataclass(frozen=True, slots=True)
class _Form:
    """What the checks read of one normalised form, computed once per text."""

    form: str
    compact: str  # without spaces
    words: tuple[str, ...]  # sorted
    long: Counter  # the full words
    short: Counter  # the one-letter words: initials


def _parts(form: str) -> _Form:
    words = form.split()
    return _Form(form, "".join(words), tuple(sorted(words)),
                 Counter(w for w in words if len(w) > 1), Counter(w for w in words if len(w) == 1))


@dataclass(frozen=True, slots=True)
class _Answer:
    text: str  # spaces collapsed
    parts: _Form
    numbers: tuple
    cyrillic: bool
    latin: bool
    in_latin: _Form | None  # the form spelled in Latin letters, when it has Cyrillic ones
    skeleton: str


@lru_cache(maxsize=4096)
def _answer(text: str) -> _Answer:
    form = normalize_answer(text)
    cyrillic, latin = bool(_CYRILLIC.search(form)), bool(_LATIN.search(form))
    spelled = to_latin(form) if cyrillic else form
    return _Answer(text, _parts(form), _numbers(form), cyrillic, latin,
                   _parts(spelled) if cyrillic else None, _skeleton(spelled))


def _initials(a: _Form, b: _Form) -> bool:
    """«М. Ломоносов», «Ломоносов М. В.» and «Михаил Ломоносов»: the same full words, and every
    full word one side has over the other stands as an initial on that other side."""
    if not (a.short or b.short) or not a.long & b.long:
        return False
    for extra, initials in ((a.long - b.long, Counter(b.short)),
                            (b.long - a.long, Counter(a.short))):
        for word, count in extra.items():
            initials[word[0]] -= count
            if initials[word[0]] < 0:
                return False
    return True


def _same_form(a: _Form, b: _Form) -> Reason | None:
    """The checks on two normalised forms in one alphabet."""
    if a.compact == b.compact:
        return PUNCTUATION
    if a.words == b.words:
        return WORD_ORDER
    if _initials(a, b):
        return INITIALS
    budget = _budget(min(len(a.compact), len(b.compact)))
    if budget and distance(a.form, b.form, budget) <= budget:
        return SPELLING
    return None


@lru_cache(maxsize=65536)
def _same(text_a: str, text_b: str) -> Reason | None:
    if text_a == text_b:
        return SAME
    a, b = _answer(text_a), _answer(text_b)
    if a.parts.form == b.parts.form:
        # Only ё/е (and case) apart: the ё reason; anything else is punctuation.
        fold_a, fold_b = text_a.casefold(), text_b.casefold()
        if fold_a != fold_b and fold_a.replace("ё", "е") == fold_b.replace("ё", "е"):
            return YO
        return PUNCTUATION
    if not a.parts.form or not b.parts.form or a.numbers != b.numbers:
        return None
    found = _same_form(a.parts, b.parts)
    if found is not None:
        return found
    if not ((a.cyrillic or b.cyrillic) and (a.latin or b.latin)):
        return None
    if _same_form(a.in_latin or a.parts, b.in_latin or b.parts) is not None:
        return TRANSLITERATION
    if len(a.skeleton) >= 3 and a.skeleton == b.skeleton:
        return TRANSLITERATION
    return None


def same_answer(a: str, b: str) -> Reason | None:
    """Why two answers are probably the same answer (a reason of ``REASONS``), or None.
    Memoised: the host's state asks again about the same groups on every answer.

    >>> same_answer("Ломоносов", "Ломоносав")
    'spelling'
    >>> same_answer("М. Ломоносов", "Михаил Ломоносов")
    'initials'
    >>> same_answer("Lomonosov", "Ломоносов")
    'transliteration'
    >>> same_answer("1812", "1821") is None
    True
    """
    a, b = " ".join(a.split()), " ".join(b.split())
    # One order, so the memo holds each pair once and the answer is symmetric.
    return _same(a, b) if a <= b else _same(b, a)


# --- the host's groups ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Groups to merge: ``keys[0]`` (the first of them in the host's order, whose key the
    merged group keeps) and the others, ``reasons[i]`` saying why ``keys[i + 1]`` is the same
    answer as a group before it."""

    keys: tuple[str, ...]
    reasons: tuple[Reason, ...]


def pair(a: str, b: str) -> tuple[str, str]:
    """A pair of group keys in one order, as dismissed pairs are kept."""
    return (a, b) if a <= b else (b, a)


def _related(a: Sequence[str], b: Sequence[str]) -> Reason | None:
    """Why two groups (their forms) are the same answer: the first reason for any two forms."""
    for x in a:
        for y in b:
            reason = _same(x, y) if x <= y else _same(y, x)
            if reason is not None:
                return reason
    return None


def suggestions(groups: Sequence[str], *, dismissed: Iterable[Sequence[str]] = (),
                verdicts: Mapping[str, object] | None = None,
                forms: Mapping[str, Sequence[str]] | None = None) -> list[Suggestion]:
    """The merges to offer for ``groups`` (group keys in the host's order, biggest first): each
    group not yet offered, in order, with every later group that is the same answer as it or
    as one already with it («Ломоносав» ~ «Ломоносов» ~ «М. Ломоносов»). A pair the host
    kept apart is never in one suggestion again, nor two groups judged differently (one
    correct, one incorrect: merging them would be refused). A group the host merged is
    compared by each of its ``forms`` (its key alone when not given).

    >>> suggestions(["ломоносов", "пушкин", "ломоносав", "lomonosov"])
    [Suggestion(keys=('ломоносов', 'ломоносав', 'lomonosov'), reasons=('spelling', \
'transliteration'))]
    """
    apart = {pair(a, b) for a, b in dismissed}
    verdicts = verdicts or {}
    keys = list(dict.fromkeys(" ".join(g.split()) for g in groups))[:MAX_GROUPS]
    spelled = {key: [" ".join(f.split()) for f in (forms or {}).get(key) or (key,)]
               for key in keys}
    taken: set[str] = set()
    found = []
    for i, anchor in enumerate(keys):
        if anchor in taken:
            continue
        members, reasons = [anchor], []
        judged = {verdicts.get(anchor)} & {True, False}
        for base in members:  # grows as groups join
            for other in keys[i + 1:]:
                if other in taken or other in members:
                    continue
                if apart and any(pair(m, other) in apart for m in members):
                    continue
                theirs = verdicts.get(other)
                if isinstance(theirs, bool) and judged - {theirs}:
                    continue
                reason = _related(spelled[base], spelled[other])
                if reason is not None:
                    members.append(other)
                    reasons.append(reason)
                    if isinstance(theirs, bool):
                        judged.add(theirs)
        if reasons:
            taken.update(members)
            found.append(Suggestion(tuple(members), tuple(reasons)))
    return found
