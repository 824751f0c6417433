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


def _initials(a: list[str], b: list[str]) -> bool:
    """«М. Ломоносов», «Ломоносов М. В.» and «Михаил Ломоносов»: the same full words, and every
    full word one side has over the other stands as an initial on that other side."""
    long_a = Counter(w for w in a if len(w) > 1)
    long_b = Counter(w for w in b if len(w) > 1)
    if not long_a & long_b:
        return False
    short_a = Counter(w for w in a if len(w) == 1)
    short_b = Counter(w for w in b if len(w) == 1)
    if not short_a and not short_b:
        return False
    for extra, initials in ((long_a - long_b, short_b), (long_b - long_a, short_a)):
        for word, count in extra.items():
            initials[word[0]] -= count
            if initials[word[0]] < 0:
                return False
    return True


def _same_form(a: str, b: str) -> Reason | None:
    """The checks on two normalised forms in one alphabet."""
    if a.replace(" ", "") == b.replace(" ", ""):
        return PUNCTUATION
    words_a, words_b = a.split(), b.split()
    if sorted(words_a) == sorted(words_b):
        return WORD_ORDER
    if _initials(words_a, words_b):
        return INITIALS
    letters = min(len(a.replace(" ", "")), len(b.replace(" ", "")))
    budget = _budget(letters)
    if budget and distance(a, b, budget) <= budget:
        return SPELLING
    return None


@lru_cache(maxsize=65536)
def _same(a: str, b: str, form_a: str, form_b: str) -> Reason | None:
    if a == b:
        return SAME
    if form_a == form_b:
        # Only ё/е (and case) apart: the ё reason; anything else is punctuation.
        if a.casefold() != b.casefold() and (
                a.casefold().replace("ё", "е") == b.casefold().replace("ё", "е")):
            return YO
        return PUNCTUATION
    if not form_a or not form_b or _numbers(form_a) != _numbers(form_b):
        return None
    found = _same_form(form_a, form_b)
    if found is not None:
        return found
    cyrillic = _CYRILLIC.search(form_a) or _CYRILLIC.search(form_b)
    latin = _LATIN.search(form_a) or _LATIN.search(form_b)
    if not (cyrillic and latin):
        return None
    latin_a, latin_b = to_latin(form_a), to_latin(form_b)
    if _same_form(latin_a, latin_b) is not None:
        return TRANSLITERATION
    skeleton_a, skeleton_b = _skeleton(latin_a), _skeleton(latin_b)
    if len(skeleton_a) >= 3 and skeleton_a == skeleton_b:
        return TRANSLITERATION
    return None


def same_answer(a: str, b: str) -> Reason | None:
    """Why two answers are probably the same answer (a reason of ``REASONS``), or None.

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
    if b < a:  # one order, so the cache holds each pair once and the answer is symmetric
        a, b = b, a
    return _same(a, b, normalize_answer(a), normalize_answer(b))


# --- the host's groups ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Suggestion:
    """Groups to merge: ``keys[0]`` (the first of them in the host's order) and the others,
    ``reasons[i]`` saying why ``keys[i + 1]`` is the same answer as ``keys[0]``."""

    keys: tuple[str, ...]
    reasons: tuple[Reason, ...]


def pair(a: str, b: str) -> tuple[str, str]:
    """A pair of group keys in one order, as dismissed pairs are kept."""
    return (a, b) if a <= b else (b, a)


def suggestions(groups: Sequence[str], *, dismissed: Iterable[Sequence[str]] = (),
                verdicts: Mapping[str, object] | None = None) -> list[Suggestion]:
    """The merges to offer for ``groups`` (group keys in the host's order, biggest first): each
    group not yet offered, in order, with every later group that is the same answer as it.
    A pair the host dismissed is never offered again, nor two groups judged differently (one
    correct, one incorrect: merging them would be refused).

    >>> suggestions(["ломоносов", "пушкин", "ломоносав", "lomonosov"])
    [Suggestion(keys=('ломоносов', 'ломоносав', 'lomonosov'), reasons=('spelling', \
'transliteration'))]
    """
    apart = {pair(a, b) for a, b in dismissed}
    verdicts = verdicts or {}
    keys = list(dict.fromkeys(groups))[:MAX_GROUPS]
    taken: set[str] = set()
    found = []
    for i, anchor in enumerate(keys):
        if anchor in taken:
            continue
        members, reasons = [anchor], []
        for other in keys[i + 1:]:
            if other in taken or pair(anchor, other) in apart:
                continue
            mine, theirs = verdicts.get(anchor), verdicts.get(other)
            if isinstance(mine, bool) and isinstance(theirs, bool) and mine != theirs:
                continue
            reason = same_answer(anchor, other)
            if reason is not None:
                members.append(other)
                reasons.append(reason)
        if reasons:
            taken.update(members)
            found.append(Suggestion(tuple(members), tuple(reasons)))
    return found
