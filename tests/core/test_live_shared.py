"""``core.live.shared``: a large stored text's values, parsed once and found again by the text."""

from __future__ import annotations

import pytest

from core import live
from core.live import SHARED_MIN, decode, encode, remember, shared


@pytest.fixture(autouse=True)
def empty():
    live.forget_shared()
    yield
    live.forget_shared()


def big(n: int) -> str:
    return encode({"rows": [{"application": i, "place": i} for i in range(n)]})


def test_an_equal_large_text_gives_the_same_values_without_parsing_again():
    text = big(2000)
    assert len(text) >= SHARED_MIN
    first = shared(text)
    again = shared("".join(text))  # an equal text that is another object, as read again
    assert again is first and first == decode(text)


def test_a_different_text_never_gets_another_texts_values():
    one, other = big(2000), big(2001)
    assert shared(one) is not shared(other)
    assert shared(other) == decode(other)


def test_a_small_text_is_parsed_every_time():
    text = encode({"a": 1})
    assert shared(text) is not shared(text)


def test_a_written_value_is_what_the_next_read_of_its_text_gets():
    value = {"rows": [{"application": i} for i in range(2000)]}
    text = encode(value)
    remember(text, value)
    assert shared(text) is value
