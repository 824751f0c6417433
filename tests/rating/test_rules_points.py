"""Points per place (``docs/rules/rating.md``, 3.18): the scales and places past their end."""


import pytest

from core.records import RecordError
from rating.rules import (
    GOROD_SCALE,
    KOTH_BAND_SCALE,
    Scale,
    points_for_place,
    scale_from_data,
)

# --- points per place -------------------------------------------------------------------------

GOROD_TABLE = {1: 100, 2: 96, 3: 92, 4: 88, 5: 84, 6: 81, 7: 78, 8: 75, 9: 72, 10: 69, 11: 66,
               12: 63, 13: 60, 14: 57, 15: 54, 16: 52, 17: 50, 18: 48, 19: 46, 20: 44, 21: 43,
               22: 42, 23: 41, 24: 40, 25: 39, 26: 38, 27: 37, 28: 36, 29: 35, 30: 34}


def test_the_default_scale_is_the_gorod_table_of_the_rules_place_by_place():
    assert {place: points_for_place(place) for place in range(1, 31)} == GOROD_TABLE


@pytest.mark.parametrize("scale, place, points", [
    pytest.param(GOROD_SCALE, 31, 33, id="the place after 30 gets one point less than 30th"),
    pytest.param(GOROD_SCALE, 32, 32, id="each further place gets one point less again"),
    pytest.param(GOROD_SCALE, 63, 1, id="the extension reaches 1 point at place 63"),
    pytest.param(GOROD_SCALE, 200, 1, id="a place far down still gets 1 point, never 0"),
    pytest.param(KOTH_BAND_SCALE, 1, 115, id="the band scale gives 115 for first"),
    pytest.param(KOTH_BAND_SCALE, 2, 110, id="the band scale gives 110 for second"),
    pytest.param(KOTH_BAND_SCALE, 3, 105, id="the band scale gives 105 for third"),
    pytest.param(KOTH_BAND_SCALE, 4, 100, id="the band scale gives 100 for fourth"),
    pytest.param(KOTH_BAND_SCALE, 5, 100, id="the band scale gives 100 for fifth"),
    pytest.param(KOTH_BAND_SCALE, 6, 90, id="the band scale gives 90 from sixth"),
    pytest.param(KOTH_BAND_SCALE, 10, 90, id="the band scale gives 90 up to tenth"),
    pytest.param(KOTH_BAND_SCALE, 11, 70, id="the band scale gives 70 from eleventh"),
    pytest.param(KOTH_BAND_SCALE, 15, 70, id="the band scale gives 70 up to fifteenth"),
    pytest.param(KOTH_BAND_SCALE, 16, 50, id="the band scale gives 50 from sixteenth"),
    pytest.param(KOTH_BAND_SCALE, 19, 50, id="the band scale gives 50 up to nineteenth"),
    pytest.param(KOTH_BAND_SCALE, 20, 30, id="the band scale gives 30 for twentieth"),
    pytest.param(KOTH_BAND_SCALE, 64, 30, id="the band scale gives 30 for any place below 20"),
    pytest.param(Scale((10, 8, 7)), 3, 7, id="a short scale gives its own value inside it"),
    pytest.param(Scale((10, 8, 7)), 4, 6, id="a short scale extends one point less per place"),
    pytest.param(Scale((10, 8, 7)), 10, 1, id="a short scale's extension stops at 1"),
    pytest.param(Scale((10, 8, 7)), 40, 1, id="a short scale's extension never goes below 1"),
    pytest.param(Scale((5, 0)), 3, 0, id="a short scale already at 0 stays at 0"),
    pytest.param(Scale((20, 10), "repeat"), 9, 10, id="a repeat scale keeps its last value"),
])
def test_points_for_a_place(scale, place, points):
    assert points_for_place(place, scale) == points


@pytest.mark.parametrize("data, place, points", [
    pytest.param(None, 31, 33, id="no scale in the record means the GoRoD table"),
    pytest.param([100, 96, 92], 4, 91, id="a list scale shorter than the field extends by one"),
    pytest.param("gorod", 2, 96, id="the name gorod is the default table"),
    pytest.param("kingofhill", 25, 30, id="the name kingofhill is the band scale"),
    pytest.param({"points": [9, 9]}, 3, 8, id="an object scale extends by one by default"),
    pytest.param({"points": [9, 5], "beyond": "repeat"}, 7, 5,
                 id="an object scale may repeat its last value"),
])
def test_a_scale_is_read_from_the_record(data, place, points):
    assert scale_from_data(data).points_for(place) == points


@pytest.mark.parametrize("data, message", [
    pytest.param([], "scale: a scale needs points", id="an empty scale is refused"),
    pytest.param([100, -1], "scale[1]: points may not be negative, got -1",
                 id="a negative scale value is refused"),
    pytest.param([90, 100], "scale[1]: 100 is more than the place before",
                 id="a scale giving a lower place more points is refused"),
    pytest.param([100, 95.5], "scale[1]: expected a whole number, got 95.5",
                 id="a fractional scale value"),
    pytest.param([True], "scale[0]: expected a whole number, got true",
                 id="a boolean scale value"),
    pytest.param("chess", "scale: expected a list of points or one of", id="an unknown scale name"),
    pytest.param({"points": [1], "beyond": "up"}, "scale.beyond: expected one of",
                 id="an unknown way of extending a scale"),
    pytest.param({"beyond": "repeat"}, "scale.points: missing", id="an object scale without points"),
    pytest.param(7, "scale: expected a list", id="a number is not a scale"),
])
def test_a_bad_scale_is_a_record_error(data, message):
    with pytest.raises(RecordError) as exc:
        scale_from_data(data)
    assert str(exc.value).startswith(message)


@pytest.mark.parametrize("place", [0, -3, 1.5, True, "1"], ids=lambda p: f"place {p!r}")
def test_a_place_that_is_not_a_positive_whole_number_is_a_record_error(place):
    with pytest.raises(RecordError, match=r"^place: "):
        points_for_place(place)
