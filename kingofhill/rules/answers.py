"""Answers: the form in which two answers are "the same", and matching one against the answer
key and its accepted variants.

Pure, like the whole package (see ``kingofhill.rules``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
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
