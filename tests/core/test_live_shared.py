"""``live.caches.shared``: a large stored text's values, parsed once and found again by the text."""

from __future__ import annotations

import pytest

from live import caches
from live.caches import SHARED_MIN, remember, shared
from live.codec import decode, encode


@pytest.fixture(autouse=True)
def empty():
    caches.forget_shared()
    yield
    caches.forget_shared()


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


def test_every_team_part_of_a_night_stays_found_while_a_batch_goes_round_them():
    # 200 teams' own parts (~10 KiB each) read in turn: each is parsed once, not once a round.
    texts = [encode({"me": {"application": i, "history": ["x" * 100] * 90}}) for i in range(200)]
    assert all(len(t) >= SHARED_MIN for t in texts)
    first = [shared(t) for t in texts]
    assert all(shared("".join(t)) is value for t, value in zip(texts, first, strict=True))


def test_the_oldest_texts_are_let_go_past_the_room_in_characters(monkeypatch):
    monkeypatch.setattr(caches, "_SHARED_CHARS", 3 * 10_000)
    texts = [encode({"n": i, "pad": "x" * 10_000}) for i in range(5)]
    values = [shared(t) for t in texts]
    assert len(caches._shared) == 2 and caches._shared_chars[0] <= 3 * 10_000
    assert shared("".join(texts[-1])) is values[-1]  # the newest stays
    assert shared("".join(texts[0])) is not values[0]  # the oldest was let go: parsed again


def test_a_text_larger_than_the_room_is_still_kept_alone(monkeypatch):
    monkeypatch.setattr(caches, "_SHARED_CHARS", 1000)
    text = encode({"pad": "x" * 20_000})
    value = shared(text)
    assert shared("".join(text)) is value and len(caches._shared) == 1
