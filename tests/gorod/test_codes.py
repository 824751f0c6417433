"""Code matching (3.2, 3.24–3.25, 4.1.6) and the brute-force limiter."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gorod.codes import (
    CodeSpecError,
    LevelCodes,
    Sector,
    check_attempt_limit,
    codes_match,
    is_standard_code,
    level_codes_from_dict,
    match_attempt,
    normalize_code,
    standard_code,
)
from tests.properties import examples

T0 = datetime(2026, 12, 5, 19, 0, tzinfo=UTC)


@pytest.mark.parametrize(("typed", "expected"), [
    pytest.param("g1r12345d", "G1R12345D", id="lower case is upper-cased"),
    pytest.param("  G1R12345D\n", "G1R12345D", id="surrounding white space is dropped"),
    pytest.param("G1 R123\t45 D", "G1R12345D", id="inner white space is dropped"),
    pytest.param("G1R12345D\u00a0", "G1R12345D", id="a no-break space is white space too"),
    pytest.param("G1R1\u200b2345D", "G1R12345D", id="a zero-width space pasted from a chat is dropped"),
    pytest.param("АВЕКМНОРСТХУ", "ABEKMHOPCTXY", id="every Cyrillic capital look-alike becomes Latin"),
    pytest.param("авекмнорстху", "ABEKMHOPCTXY", id="every Cyrillic lowercase look-alike becomes Latin"),
    pytest.param("ДЖЗ", "ДЖЗ", id="Cyrillic letters without a Latin twin stay"),
    pytest.param("Ｇ１Ｒ２Ｄ", "G1R2D", id="full-width characters fold to plain ones"),
])
def test_normalisation(typed, expected):
    assert normalize_code(typed) == expected


def test_a_code_typed_on_a_russian_layout_matches_its_latin_original():
    spec = LevelCodes.single("TOPCEKPET")
    assert match_attempt(spec, "A", "торсекрет").verdict == "accepted"


def test_standard_codes_are_recognised_and_generated_for_a_game():
    assert is_standard_code("G12R0042D")
    assert is_standard_code("g 3 r 1 d", game=3)
    assert not is_standard_code("G3R1D", game=4)
    assert not is_standard_code("G!R@#$D")
    code = standard_code(7, digits=6, rng=random.Random(1))
    assert is_standard_code(code, game=7) and len(code) == len("G7R") + 6 + 1
    assert standard_code(7, rng=random.Random(1)) == standard_code(7, rng=random.Random(1))
    assert is_standard_code(standard_code(2))


@pytest.mark.parametrize("bad", [-1, "1", True])
def test_a_standard_code_needs_a_game_number(bad):
    with pytest.raises(ValueError):
        standard_code(bad)


def test_a_free_text_code_matches_whatever_its_form():
    spec = LevelCodes.single("G!R@#$D")
    assert match_attempt(spec, "A", "g!r@#$d").closed
    assert match_attempt(spec, "A", "G!R@#D").verdict == "wrong"


def test_a_wrong_code_leaves_the_level_open():
    result = match_attempt(LevelCodes.single("G1R1D"), "A", "G1R2D")
    assert (result.verdict, result.sector, result.closed, result.is_wrong) == ("wrong", None, False, True)


def test_an_empty_attempt_is_wrong():
    assert match_attempt(LevelCodes.single("G1R1D"), "A", "   ").verdict == "wrong"


SECTORS = LevelCodes((Sector("north", codes=("G1R11D",)), Sector("south", codes=("G1R22D",)),
                      Sector("bridge", codes=("G1R33D", "МОСТ"))))


def test_sectors_close_in_any_order_each_reported_as_found():
    found: set[str] = set()
    for typed, sector in [("G1R33D", "bridge"), ("g1r11d", "north"), ("G1R22D", "south")]:
        result = match_attempt(SECTORS, "A", typed, found)
        assert (result.verdict, result.sector) == ("accepted", sector)
        found = set(result.found)
    assert result.closed and result.remaining == 0


def test_a_sector_may_accept_alternative_texts():
    assert match_attempt(SECTORS, "A", "мост").sector == "bridge"


def test_a_level_with_sectors_stays_open_until_all_are_found():
    result = match_attempt(SECTORS, "A", "G1R11D", {"south"})
    assert not result.closed and result.remaining == 1 and result.found == {"north", "south"}


def test_a_sector_found_again_is_a_repeat_not_a_wrong_attempt():
    result = match_attempt(SECTORS, "A", "G1R11D", {"north"})
    assert (result.verdict, result.sector, result.is_wrong) == ("repeat", "north", False)


def test_already_found_must_name_known_sectors():
    with pytest.raises(CodeSpecError):
        match_attempt(SECTORS, "A", "x", {"east"})


def test_two_sectors_with_the_same_text_are_found_one_after_the_other():
    spec = LevelCodes((Sector("a", codes=("X1",)), Sector("b", codes=("X1",))))
    first = match_attempt(spec, "T", "x1")
    second = match_attempt(spec, "T", "x1", first.found)
    assert (first.sector, second.sector, second.closed) == ("a", "b", True)


PERSONAL = LevelCodes((Sector("code", "personal", ("R777D",), {"Alpha": "G1A", "Beta": "G1B"}),))


def test_a_personal_code_is_the_teams_part_followed_by_the_common_part():
    assert match_attempt(PERSONAL, "Alpha", "g1a r777d").closed
    assert match_attempt(PERSONAL, "Beta", "G1BR777D").closed


def test_another_teams_personal_code_is_wrong():
    assert match_attempt(PERSONAL, "Alpha", "G1BR777D").verdict == "wrong"


def test_the_common_part_alone_is_not_a_personal_code():
    assert match_attempt(PERSONAL, "Alpha", "R777D").verdict == "wrong"


def test_a_team_without_a_personal_part_is_a_spec_error_found_before_the_game():
    assert PERSONAL.missing_for(["Alpha", "Gamma"]) == ["Gamma"]
    with pytest.raises(CodeSpecError, match="Gamma"):
        match_attempt(PERSONAL, "Gamma", "G1GR777D")


DIGIT = LevelCodes((Sector("code", "personal_digit", ("G2R123D",), {"Alpha": "4", "Beta": 7}),))


def test_the_personal_digit_is_appended_to_the_common_code():
    assert match_attempt(DIGIT, "Alpha", "G2R123D4").closed
    assert match_attempt(DIGIT, "Beta", "g2r123d 7").closed
    assert match_attempt(DIGIT, "Alpha", "G2R123D7").verdict == "wrong"
    assert match_attempt(DIGIT, "Alpha", "G2R123D").verdict == "wrong"


def test_sectors_of_different_kinds_combine_on_one_level():
    spec = LevelCodes((Sector("agent", codes=("ПАРОЛЬ",)),
                       Sector("place", "personal_digit", ("G1R5D",), {"A": "1"})))
    first = match_attempt(spec, "A", "G1R5D1")
    assert first.sector == "place" and not first.closed
    assert match_attempt(spec, "A", "пароль", first.found).closed


def test_code_descriptions_load_from_their_stored_json():
    assert level_codes_from_dict({"code": "G1R1D"}) == LevelCodes.single("G1R1D")
    spec = level_codes_from_dict({"sectors": [
        {"name": "one", "codes": ["A1"]},
        {"name": "two", "kind": "personal", "codes": ["Z"], "personal": {"T": "P"}}]})
    assert match_attempt(spec, "T", "pz").sector == "two"
    with pytest.raises(CodeSpecError):
        level_codes_from_dict({"sectors": [{"codes": ["A1"]}]})


@pytest.mark.parametrize("build", [
    pytest.param(lambda: LevelCodes(()), id="a level without codes"),
    pytest.param(lambda: LevelCodes((Sector("a", codes=("1",)), Sector("a", codes=("2",)))),
                 id="two sectors with one name"),
    pytest.param(lambda: Sector("a", "secret", ("1",)), id="an unknown sector kind"),
    pytest.param(lambda: Sector("a", codes=("  ",)), id="a code that is only white space"),
    pytest.param(lambda: Sector("a"), id="a common sector without a code"),
])
def test_unusable_code_descriptions_are_refused(build):
    with pytest.raises(CodeSpecError):
        build()


# ---- brute-force limiter --------------------------------------------------------------------


def seconds(*offsets: float) -> list[datetime]:
    return [T0 + timedelta(seconds=s) for s in offsets]


def test_nine_wrong_attempts_in_a_minute_still_allow_another():
    limit = check_attempt_limit(seconds(*range(9)), T0 + timedelta(seconds=10))
    assert limit.allowed and limit.wait_s == 0 and limit.wrong_in_window == 9


def test_ten_wrong_attempts_in_a_minute_make_the_team_wait_until_the_minute_has_passed():
    limit = check_attempt_limit(seconds(*range(10)), T0 + timedelta(seconds=15))
    assert not limit.allowed and limit.wait_s == 45
    assert limit.message() == "Too many wrong codes: wait 45 s."


def test_the_wait_counts_down_and_ends_when_the_oldest_attempt_leaves_the_window():
    times = seconds(*range(10))
    assert check_attempt_limit(times, T0 + timedelta(seconds=59.5)).wait_s == 1
    assert check_attempt_limit(times, T0 + timedelta(seconds=60)).allowed


def test_the_wait_is_rounded_up_to_whole_seconds():
    assert check_attempt_limit(seconds(*range(10)), T0 + timedelta(seconds=20.2)).wait_s == 40


def test_with_more_attempts_than_the_limit_the_wait_follows_the_newest_ten():
    times = seconds(0, 1, 2, 30, 31, 32, 33, 34, 35, 36, 37, 38)
    # 12 in the window: the team may try again once only 9 are left, i.e. after the 3rd leaves.
    assert check_attempt_limit(times, T0 + timedelta(seconds=40)).wait_s == 22


def test_old_wrong_attempts_do_not_count():
    assert check_attempt_limit(seconds(*range(10)), T0 + timedelta(minutes=5)).allowed


def test_the_limit_and_the_window_are_configurable():
    times = seconds(0, 1, 2)
    assert not check_attempt_limit(times, T0 + timedelta(seconds=3), max_wrong=3).allowed
    limit = check_attempt_limit(times, T0 + timedelta(seconds=3), max_wrong=3, window_s=10)
    assert limit.wait_s == 7
    assert check_attempt_limit(seconds(*range(10)), T0 + timedelta(seconds=31), window_s=30).allowed


@pytest.mark.parametrize(("max_wrong", "window_s"), [(0, 60), (10, 0)])
def test_a_limit_that_makes_no_sense_is_refused(max_wrong, window_s):
    with pytest.raises(ValueError):
        check_attempt_limit([], T0, max_wrong=max_wrong, window_s=window_s)


def test_the_worked_examples_in_the_code_docstrings_hold():
    import doctest

    import gorod.codes

    assert doctest.testmod(gorod.codes).failed == 0


# ---- properties -----------------------------------------------------------------------------

CODE_TEXT = st.text(alphabet="ABCEHKMOPTXYZ0123456789!#-", min_size=1, max_size=12)
TO_CYRILLIC = str.maketrans("ABEKMHOPCTXY", "АВЕКМНОРСТХУ")


@settings(max_examples=examples(200), deadline=None)
@given(CODE_TEXT, st.data())
def test_a_code_matches_in_any_case_spacing_or_russian_layout(code, data):
    typed = "".join(
        data.draw(st.sampled_from([ch, ch.lower(), ch.translate(TO_CYRILLIC),
                                   ch.lower().translate(TO_CYRILLIC).lower()]))
        + data.draw(st.sampled_from(["", " ", "\t", "\u00a0"]))
        for ch in code)
    assert normalize_code(normalize_code(typed)) == normalize_code(typed) == normalize_code(code)
    assert match_attempt(LevelCodes.single(code), "A", typed).closed


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(0, 120), max_size=25), st.integers(0, 180),
       st.integers(1, 12), st.integers(1, 90))
def test_the_limiter_refuses_exactly_when_the_window_holds_the_limit_and_the_wait_ends_it(
        offsets, now_s, max_wrong, window_s):
    offsets = [s for s in offsets if s <= now_s]  # attempts already made
    times, now = seconds(*offsets), T0 + timedelta(seconds=now_s)
    limit = check_attempt_limit(times, now, max_wrong=max_wrong, window_s=window_s)
    in_window = sum(0 <= now_s - s < window_s for s in offsets)
    assert limit.allowed == (in_window < max_wrong)
    if not limit.allowed:
        assert 1 <= limit.wait_s <= window_s
        later = now + timedelta(seconds=limit.wait_s)
        assert check_attempt_limit(times, later, max_wrong=max_wrong, window_s=window_s).allowed
        if limit.wait_s > 1:
            sooner = later - timedelta(seconds=1)
            assert not check_attempt_limit(times, sooner, max_wrong=max_wrong,
                                           window_s=window_s).allowed


# --- the Russian keyboard layout ----------------------------------------------------------------

QWERTY = "QWERTYUIOP[]ASDFGHJKL;'ZXCVBNM,.`"
JCUKEN = "ЙЦУКЕНГШЩЗХЪФЫВАПРОЛДЖЭЯЧСМИТЬБЮЁ"
TO_RUSSIAN_KEYS = str.maketrans(QWERTY + QWERTY.lower(), JCUKEN + JCUKEN.lower())
TO_LATIN_KEYS = str.maketrans(JCUKEN + JCUKEN.lower(), QWERTY + QWERTY.lower())


@pytest.mark.parametrize(("typed", "code"), [
    pytest.param("п7к11111в", "G7R11111D", id="the issue's example: G7R11111D typed on ЙЦУКЕН"),
    pytest.param("П7К11111В", "G7R11111D", id="with caps lock on"),
    pytest.param("п1 к12 345 в", "G1R12345D", id="with spaces"),
    pytest.param("G7к11111D", "G7R11111D", id="the layout switched half-way"),
    pytest.param("йцукенгшщзфывапролдячсмить", "QWERTYUIOPASDFGHJKLZXCVBNM",
                 id="every letter key of the Russian layout"),
    pytest.param("хъжэбю", "[];',.", id="the punctuation keys of the Russian layout"),
    pytest.param("орех", "ОРЕХ", id="a Cyrillic code typed right"),
    pytest.param("ОРЕХ", "opex", id="a Cyrillic look-alike code typed in Latin letters"),
    pytest.param("ktc", "ЛЕС", id="a Cyrillic code typed with the Latin layout on"),
    pytest.param("gfhjkm", "пароль", id="a Cyrillic word typed with the Latin layout on"),
    pytest.param("пароль", "ПАРОЛЬ", id="a Cyrillic word typed right"),
])
def test_a_code_typed_in_either_keyboard_layout_matches(typed, code):
    assert codes_match(typed, code)
    assert match_attempt(LevelCodes.single(code), "A", typed).closed


@pytest.mark.parametrize(("typed", "code"), [
    pytest.param("п7к11111а", "G7R11111D", id="one key off on the Russian layout"),
    pytest.param("G7R11111", "G7R11111D", id="a letter short"),
    pytest.param("лес", "KTD", id="the keys of another code"),
    pytest.param("jhtx", "ОРЕХ", id="х sits on [, not on x"),
    pytest.param("пароли", "ПАРОЛЬ", id="another Cyrillic word"),
    pytest.param("", "G1R1D", id="nothing"),
])
def test_a_wrong_code_stays_wrong_in_either_layout(typed, code):
    assert not match_attempt(LevelCodes.single(code), "A", typed).closed


def test_personal_codes_and_digits_match_when_typed_on_the_russian_layout():
    spec = LevelCodes((Sector("gate", "personal", ("R7D",), {"A": "G1A"}),
                       Sector("box", "personal_digit", ("ЛЕС",), {"A": "4"})))
    first = match_attempt(spec, "A", "п1фк7в")  # G1A R7D on ЙЦУКЕН
    assert first.sector == "gate"
    assert match_attempt(spec, "A", "ktc4", first.found).closed  # ЛЕС4 on QWERTY


def test_a_null_code_is_refused_rather_than_becoming_the_text_none():
    for bad in ({"code": None}, {"sectors": [{"name": "a", "codes": [None]}]},
                {"sectors": [{"name": "a", "codes": "G1R1D"}]}, {"code": True},
                {"sectors": [{"name": "a", "kind": "personal", "personal": {"T": None}}]}):
        with pytest.raises(CodeSpecError):
            level_codes_from_dict(bad)
    assert level_codes_from_dict({"code": 12345}) == LevelCodes.single("12345")


LATIN_CODE = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                     min_size=1, max_size=12)
CYRILLIC_CODE = st.text(alphabet=JCUKEN.replace("Ё", "") + "0123456789", min_size=1, max_size=12)


@given(LATIN_CODE)
def test_a_latin_code_typed_on_the_russian_layout_always_matches(code):
    typed = code.translate(TO_RUSSIAN_KEYS)
    assert codes_match(typed, code)
    assert match_attempt(LevelCodes.single(code), "A", typed).closed


@given(CYRILLIC_CODE, st.booleans())
def test_a_cyrillic_code_keeps_matching_typed_right_or_on_the_latin_layout(code, lower):
    typed_right = code.lower() if lower else code
    assert codes_match(typed_right, code)
    assert match_attempt(LevelCodes.single(code), "A", code.translate(TO_LATIN_KEYS)).closed


@given(LATIN_CODE, LATIN_CODE)
def test_between_latin_texts_the_layout_changes_nothing(typed, code):
    # Wrong codes stay wrong: without Cyrillic letters only the plain normalisation decides.
    assert codes_match(typed, code) == (normalize_code(typed) == normalize_code(code))


@given(LATIN_CODE, LATIN_CODE)
def test_a_wrong_latin_code_stays_wrong_typed_on_the_russian_layout(typed, code):
    russian = typed.translate(TO_RUSSIAN_KEYS)
    # What was typed may itself look like the code ("N" on the Russian layout is "Т", the
    # look-alike of "T"): that reading is accepted by decision; the layout reading never is.
    if typed.upper() != code.upper() and normalize_code(russian) != normalize_code(code):
        assert not codes_match(russian, code)
