"""Answers: the form in which two answers are "the same", and matching one against the answer
key and its accepted variants.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# --- answers ----------------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """The form in which two answers are "the same": NFKC, case-folded, ё → е, punctuation
    dropped, spaces collapsed. Hosts judge groups of equal forms at once, and an answer whose
    form equals the key's (or a variant's) is pre-marked correct.

    >>> normalize_answer("  Ёжик,  в ТУМАНЕ! ")
    'ежик в тумане'
    """
    text = unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")
    kept = "".join(c if unicodedata.category(c)[0] in "LN" else " " for c in text)
    return " ".join(kept.split())


def answer_keys(answer_key: str, variants: Iterable[Any] = ()) -> set[str]:
    """The normalised forms that count as the right answer (the key and every text variant).

    >>> sorted(answer_keys("Пушкин", ["А. С. Пушкин", 7]))
    ['а с пушкин', 'пушкин']
    """
    keys = {normalize_answer(answer_key)} if answer_key else set()
    keys |= {normalize_answer(v) for v in variants or () if isinstance(v, str)}
    keys.discard("")
    return keys


def matches_key(normalized: str, answer_key: str, variants: Iterable[Any] = ()) -> bool:
    """Whether an answer's normalised form is the key or a variant.

    >>> matches_key("пушкин", "ПУШКИН!", [])
    True
    """
    return normalized in answer_keys(answer_key, variants)


# --- the host's merged groups -----------------------------------------------------------------
# ``merged`` maps a normalised answer to the key of the group the host merged it into (a
# question's ``merged``); a form not in it is its own group.


def group_of(merged: Mapping[str, str], normalized: str) -> str:
    """The key of the group an answer of this normalised form is judged in.

    >>> group_of({"ломоносав": "ломоносов"}, "ломоносав")
    'ломоносов'
    """
    return merged.get(normalized, normalized)


def group_forms(merged: Mapping[str, str], key: str) -> set[str]:
    """Every normalised form judged in the group ``key``.

    >>> sorted(group_forms({"ломоносав": "ломоносов", "lomonosov": "ломоносов"}, "ломоносов"))
    ['lomonosov', 'ломоносав', 'ломоносов']
    """
    return {key, *(form for form, into in merged.items() if into == key)}


def merge_groups(merged: Mapping[str, str], keys: Sequence[str]) -> dict[str, str]:
    """The merges once the groups ``keys`` are one group under the first key.

    >>> merge_groups({"ломоносав": "ломоносов"}, ["lomonosov", "ломоносов"])
    {'ломоносав': 'lomonosov', 'ломоносов': 'lomonosov'}
    """
    into, others = keys[0], set(keys[1:]) - {keys[0]}
    result = {form: into if key in others else key for form, key in merged.items()}
    result.update({key: into for key in others})
    return result


def split_group(merged: Mapping[str, str], key: str) -> dict[str, str]:
    """The merges once the group ``key`` is split back into its forms.

    >>> split_group({"ломоносав": "ломоносов", "пушкин а": "пушкин"}, "ломоносов")
    {'пушкин а': 'пушкин'}
    """
    return {form: into for form, into in merged.items() if into != key}
