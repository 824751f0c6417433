"""``live.caches.shared``: a large stored text's values, parsed once and found again by the text."""

from __future__ import annotations

import pytest

from live.caches import SHARED_MIN, forget_shared, remember, shared
from live.codec import decode, encode


@pytest.fixture(autouse=True)
def empty():
    forget_shared()
    yield
    forget_shared()


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


# The room is bounded twice (live.caches): by how many texts (a night's 200 teams' parts fit) and
# by their characters (some megabytes: large parts must not hold much memory).
MiB = 1024 * 1024


def test_past_the_room_in_texts_the_oldest_are_let_go_and_the_newest_stay():
    texts = [encode({"n": i, "pad": "x" * SHARED_MIN}) for i in range(1000)]
    values = [shared(t) for t in texts]
    assert shared("".join(texts[-1])) is values[-1]
    assert shared("".join(texts[0])) is not values[0]  # let go: parsed again
    assert shared(texts[0]) == values[0]


def test_past_the_room_in_characters_the_oldest_are_let_go_and_the_newest_stay():
    texts = [encode({"n": i, "pad": "x" * 5 * MiB}) for i in range(5)]
    values = [shared(t) for t in texts]
    assert shared("".join(texts[-1])) is values[-1]
    assert shared("".join(texts[0])) is not values[0]


def test_a_text_larger_than_the_whole_room_is_still_kept_alone():
    small = encode({"pad": "x" * SHARED_MIN})
    before = shared(small)
    text = encode({"pad": "x" * 20 * MiB})
    value = shared(text)
    assert shared("".join(text)) is value
    assert shared("".join(small)) is not before  # it made room for the large one
