"""The King of the Hill rules engine against ``docs/rules/kingofhill.md``, case by case (the
screens, the properties and changing the past: ``test_rules_screens``,
``test_rules_properties``, ``test_rules_past``).

Records are built with a tiny notation (``tests.kingofhill.rules_cases``): ``mv(ok="AB", jump="A")`` is a question that teams A and
B answer correctly, with A having declared a jump. Summit 4 unless said otherwise, so step 3 is
the penultimate step. ``KING`` is a four-team opening after which A is King (4, 4 points),
B and C wait on step 3 with 3 points and their rights, and D is on step 2 with 2 points.
"""

from __future__ import annotations

import json

import pytest

from core.records import RecordError
from kingofhill import rules
from kingofhill.rules import (
    GameRecord,
    advance,
    compute,
    initial_board,
    parse_record,
    replay,
)
from tests.kingofhill.rules_cases import (
    KING,
    LONE_KING,
    mv,
    rec,
    summary,
    t,
)

CASES = [
    # Ordinary moves and answers
    pytest.param(rec(mv(ok="A")), {"board": {"A": (1, 1), "B": (0, 0)}},
                 id="a correct ordinary answer climbs one step and scores one point"),
    pytest.param(rec(mv(bad="A")), {"board": {"A": (0, 0)}, "correct": ""},
                 id="an incorrect ordinary answer changes nothing"),
    pytest.param(rec(mv(ok="A"), mv(ok="AB", jump="B")),
                 {"board": {"B": (1, 1)}, "ignored": {"B": "jump not allowed after a failed move"}},
                 id="a team missing from the answers answered incorrectly and may not jump next"),
    pytest.param(rec(mv(ok="AC", bad="B")), {"correct": "AC"},
                 id="each move lists the teams that answered correctly in registration order"),
    pytest.param({"format": "kingofhill", "teams": ["A", "B"], "moves": [mv(ok="A")] * 6},
                 {"board": {"A": (6, 6)}, "king": None},
                 id="without a summit setting six correct answers only reach the penultimate step of seven"),
    pytest.param({"format": "kingofhill", "teams": ["A", "B"], "moves": [mv(ok="A")] * 7},
                 {"board": {"A": (7, 7)}, "king": "A"},
                 id="without a summit setting the seventh step is the summit"),
    pytest.param(rec(mv(ok=["T63"]), mv(ok=["T63"], jump=["T63"]), mv(ok=["T63"]),
                     teams=[f"T{i}" for i in range(64)]),
                 {"board": {"T63": (4, 4), "T0": (0, 0)}, "king": "T63", "holds": 0, "finish": None,
                  "rights": "".join(sorted(f"T{i}" for i in range(63)))},
                 id="sixty-four teams play on one board and the last registered can become King"),
    pytest.param(rec({"announced_at": t(0), "answers": {"A": {"correct": True, "at": t(-5)}}}),
                 {"board": {"A": (1, 1)}},
                 id="an answer stamped before the announcement still counts"),
    # Jumps
    pytest.param(rec(mv(ok="A", jump="A")),
                 {"board": {"A": (1, 1)}, "effective": {},
                  "ignored": {"A": "jump not allowed on the first question"}},
                 id="a jump on the first question is ignored and played as an ordinary move"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A")),
                 {"board": {"A": (3, 3)}, "effective": {"A": "jump"}},
                 id="a correct jump climbs two steps and scores two points"),
    pytest.param(rec(mv(ok="A"), mv(jump="A")), {"board": {"A": (0, 1)}},
                 id="an incorrect jump slides one step down to the rim and scores nothing"),
    pytest.param(rec(mv(ok="A"), mv(jump="A"), mv(ok="A", jump="A")),
                 {"board": {"A": (1, 2)}, "ignored": {"A": "jump not allowed after a failed move"}},
                 id="a jump right after a failed jump is ignored"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A"), mv(ok="A", jump="A")),
                 {"board": {"A": (4, 4)}, "king": "A",
                  "ignored": {"A": "jump not allowed on the penultimate step"}},
                 id="a jump from the penultimate step is ignored and the ordinary move still takes an empty summit"),
    pytest.param(rec(*KING, mv(ok="A", jump="A")),
                 {"board": {"A": (4, 5)}, "ignored": {"A": "the King cannot jump"}},
                 id="the King cannot jump"),
    # Declaration timing
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A", late="A")),
                 {"board": {"A": (2, 2)}, "ignored": {"A": "declared after the question was announced"}},
                 id="a declaration that arrives exactly at the announcement is late"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A", announced=True)),
                 {"board": {"A": (3, 3)}, "effective": {"A": "jump"}},
                 id="a declaration one second before the announcement counts"),
    pytest.param(rec(mv(ok="A"), {"announced_at": t(0), "declarations": {"A": {"kind": "jump"}},
                                  "answers": {"A": {"correct": True}}}),
                 {"board": {"A": (3, 3)}},
                 id="a declaration without a time counts even when the announcement is stamped"),
    pytest.param(rec(mv(ok="A"), {"declarations": {"A": {"kind": "jump", "at": t(999)}},
                                  "answers": {"A": {"correct": True}}}),
                 {"board": {"A": (3, 3)}},
                 id="a timed declaration in a move without an announcement time counts"),
    pytest.param(rec(mv(ok="A", jump="A", late="A")),
                 {"ignored": {"A": "jump not allowed on the first question"}},
                 id="a declaration both refused by a rule and late reports the rule"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A", late="A"), mv(ok="A", jump="A")),
                 {"board": {"A": (4, 4)}, "king": "A", "effective": {"A": "jump"}},
                 id="a late jump played as an ordinary move still allows a jump next time"),
    # Partner questions
    pytest.param(rec(mv(ok="A", partner=True)), {"board": {"A": (1, 2)}},
                 id="a partner question adds one point to a correct ordinary answer"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A", partner=True)), {"board": {"A": (3, 4)}},
                 id="a correct jump on a partner question climbs two steps and scores three points"),
    pytest.param(rec(mv(ok="A"), mv(jump="A", partner=True)), {"board": {"A": (0, 1)}},
                 id="an incorrect jump on a partner question slides down and scores nothing"),
    pytest.param(rec(mv(bad="A", partner=True)), {"board": {"A": (0, 0)}},
                 id="a wrong answer on a partner question scores nothing"),
    pytest.param(rec(*KING, mv(ok="A", partner=True)), {"board": {"A": (4, 6)}},
                 id="the King scores two points for a correct answer on a partner question"),
    pytest.param(rec(mv(ok="A"), mv(bad="A", rev="A", partner=True)), {"board": {"A": (1, 1)}},
                 id="an ignored revolution on a partner question answered wrongly scores nothing"),
    pytest.param(rec(*KING, mv(ok="C", rev="B", partner=True)),
                 {"board": {"B": (3, 3), "A": (4, 4)}, "king": "A", "rights": "CD"},
                 id="an incorrect revolution on a partner question scores nothing and uses the right"),
    # The empty summit
    pytest.param(rec(*KING), {"king": "A", "holds": 0, "board": {"A": (4, 4), "B": (3, 3)},
                              "order": "ABCD"},
                 id="the first team to reach the summit becomes King with no holds yet"),
    pytest.param(rec(mv(ok="A"), mv(ok="A", jump="A"), teams="AB", summit=3),
                 {"king": "A", "board": {"A": (3, 3)}},
                 id="a correct jump from two steps below takes an empty summit"),
    pytest.param(rec(mv(ok="AB"), mv(ok="A", partner=True), mv(ok="AB"), mv(ok="AB", jump="B"),
                     mv(ok="AB", at={"A": 5, "B": 1}), teams="AB", summit=5),
                 {"king": "A", "board": {"A": (5, 6), "B": (4, 5)}},
                 id="more points beat an earlier answer when two teams reach the empty summit together"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB"), mv(ok="AB", at={"A": 5, "B": 3}), teams="AB", summit=3),
                 {"king": "B", "board": {"A": (2, 3), "B": (3, 3)}},
                 id="on equal points the earliest correct answer takes the empty summit and the other stays below"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB"), mv(ok="AB", at={"B": 3}), teams="AB", summit=3),
                 {"king": "B"},
                 id="an answer with a time beats an answer without one for the empty summit"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB"), mv(ok="AB"), teams="AB", summit=3),
                 {"king": "A"},
                 id="on equal points and no answer times the first registered team takes the summit"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB"), mv(ok="AB"), teams="BA", summit=3),
                 {"king": "B", "order": "BA"},
                 id="registration order, not the team name, breaks the last summit tie"),
    pytest.param(rec(mv(ok="ABC"), mv(ok="ABC"), mv(ok="ABC", at={"C": 1, "B": 2}), teams="ABC", summit=3),
                 {"king": "C", "board": {"C": (3, 3), "B": (2, 3), "A": (2, 3)}, "order": "CBA"},
                 id="when three teams reach the empty summit together the two who lose the tie stay on the penultimate step"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB"), mv(ok="AB", jump="B", at={"A": 1, "B": 9}), teams="AB", summit=4),
                 {"king": "B", "board": {"B": (4, 4), "A": (3, 3)}},
                 id="a jump from two below beats an earlier ordinary arrival from just below by its extra point"),
    # With a King on the summit
    pytest.param(rec(*KING, mv(ok="ABCD")),
                 {"board": {"A": (4, 5), "B": (3, 4), "D": (3, 3)}, "king": "A", "holds": 1},
                 id="with a King an ordinary correct answer from the penultimate step stays there but scores"),
    pytest.param(rec(*KING, mv(ok="AD", jump="D")), {"board": {"D": (3, 4)}, "king": "A"},
                 id="with a King a correct jump from two below gives one step and two points"),
    pytest.param(rec(*KING, mv(ok="BC")), {"board": {"A": (4, 4)}, "king": "A", "holds": 1},
                 id="the King neither moves down nor scores on a wrong answer"),
    pytest.param(rec(*KING, mv(ok="BC", partner=True)), {"board": {"A": (4, 4)}, "holds": 1},
                 id="the King scores nothing for a wrong answer on a partner question"),
    # Revolutions
    pytest.param(rec(mv(ok="AB"), mv(ok="AB", jump="A"), mv(ok="A", rev="A"), teams="AB"),
                 {"ignored": {"A": "revolution needs a King"}, "king": "A"},
                 id="a revolution before there is a King is ignored"),
    pytest.param(rec(*KING, mv(ok="D", rev="D")),
                 {"ignored": {"D": "revolution only from the penultimate step"}, "board": {"D": (3, 3)},
                  "rights": "BCD"},
                 id="a revolution from below the penultimate step is ignored and keeps the right"),
    pytest.param(rec(*KING, mv(ok="A", rev="A")),
                 {"ignored": {"A": "the King cannot declare a revolution"}},
                 id="the King cannot declare a revolution"),
    pytest.param(rec(*KING, mv(ok="AB", rev="B")),
                 {"king": "A", "holds": 1, "board": {"B": (3, 4)}, "rights": "CD",
                  "effective": {"B": "revolution"}},
                 id="a correct King stays whatever the revolutionaries answer and the right is used up"),
    pytest.param(rec(*KING, mv(rev="B")), {"king": "A", "holds": 1, "board": {"B": (3, 3)}, "rights": "CD"},
                 id="a wrong King with no correct revolutionary stays and the failed revolution still uses the right"),
    pytest.param(rec(*KING, mv(ok="A", rev="B"), mv(ok="B", rev="B")),
                 {"king": "A", "holds": 2, "ignored": {"B": "no revolution right left"}},
                 id="a second revolution without a right is ignored"),
    pytest.param(rec(*KING, mv(ok="B", rev="B")),
                 {"king": "B", "holds": 0, "board": {"B": (4, 4), "A": (3, 4)}, "rights": "ACD",
                  "order": "BACD"},
                 id="a wrong King and a correct revolutionary: it takes the summit and the old King drops to the penultimate step"),
    pytest.param(rec(*KING, mv(ok="C", partner=True), mv(ok="BC", rev="BC", at={"B": 1, "C": 9})),
                 {"king": "C", "board": {"C": (4, 6), "B": (3, 4), "A": (3, 4)}},
                 id="among several correct revolutionaries the one with more points takes the summit"),
    pytest.param(rec(*KING, mv(ok="BC", rev="BC", at={"B": 9, "C": 2})),
                 {"king": "C", "board": {"B": (3, 4)}, "rights": "ABD"},
                 id="among correct revolutionaries on equal points the earliest answer takes the summit"),
    pytest.param(rec(*KING, mv(ok="ABC", rev="BC")),
                 {"king": "A", "effective": {"B": "revolution", "C": "revolution"}, "rights": "D"},
                 id="several teams may revolt in the same move"),
    pytest.param(rec(*KING, mv(ok="AB", rev="B", partner=True)), {"board": {"B": (3, 5), "A": (4, 6)}},
                 id="a correct revolution on a partner question scores two points"),
    pytest.param(rec(*KING, mv(ok="B", rev="B", late="B")),
                 {"king": "A", "rights": "BCD", "board": {"B": (3, 4)},
                  "ignored": {"B": "declared after the question was announced"}},
                 id="a late revolution is ignored and keeps the right"),
    pytest.param(rec(*KING, mv(ok="A", rev="C"), mv(ok="B", rev="B")),
                 {"king": "B", "rights": "ACD"},
                 id="every right is restored when the King changes"),
    pytest.param(rec(*KING, mv(ok="BCD", rev="B", jump="D")),
                 {"king": "B", "board": {"C": (3, 4), "D": (3, 4)}},
                 id="in the move a King is deposed other climbers still stop on the penultimate step"),
    pytest.param(rec(*KING, mv(ok="BC", rev="BC"), teams="ACBD"),
                 {"king": "C", "board": {"B": (3, 4), "A": (3, 4)}, "order": "CABD"},
                 id="among correct revolutionaries on equal points without answer times the first registered takes the summit"),
    pytest.param(rec(*KING, mv(ok="BC", rev="BC", at={"C": 9})),
                 {"king": "C"},
                 id="among correct revolutionaries an answer with a time beats one without"),
    pytest.param(rec(*KING, mv(ok="B", rev="B"), mv(ok="A", rev="A")),
                 {"king": "A", "board": {"A": (4, 5), "B": (3, 4)}, "effective": {"A": "revolution"}},
                 id="the deposed King gets a right back and may win the summit back on the next question"),
    pytest.param(rec(*KING, mv(bad="A", rev="BC")),
                 {"king": "A", "holds": 1, "board": {"B": (3, 3), "C": (3, 3)}, "rights": "D"},
                 id="several revolutionaries all answering wrongly leave a wrong King in place"),
    # The end of the game
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A")),
                 {"finish": "king_held", "winner": "A", "holds": 3},
                 id="the King who holds the summit three moves after taking it wins"),
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A")), {"finish": None, "winner": None, "holds": 2},
                 id="two holds are not enough to win"),
    pytest.param(rec(mv(ok="AB"), mv(ok="B"), teams="AB", main=2),
                 {"finish": "questions_exhausted", "winner": "B", "king": None},
                 id="when the questions run out without a King the first team of the standings wins"),
    pytest.param(rec(*KING, main=3), {"finish": "questions_exhausted", "winner": "A"},
                 id="when the questions run out the King wins even before three holds"),
    pytest.param(rec(mv(ok="A"), mv(ok="A"), teams="AB", main=2, reserve=1), {"finish": None},
                 id="the reserve questions extend the game beyond the main ones"),
    pytest.param(rec(mv(ok="A"), mv(ok="A"), teams="AB", reserve=1), {"finish": None},
                 id="reserve questions without a main count set no limit"),
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"), main=6),
                 {"finish": "king_held"},
                 id="three holds end the game before the questions run out on the same move"),
    pytest.param(rec(*LONE_KING, mv(ok="A"), teams="AB"),
                 {"finish": "no_challenger", "winner": "A", "holds": 1, "rights": "B"},
                 id="the game ends when no team can reach the penultimate step and revolt in time"),
    pytest.param(rec(*LONE_KING, mv(ok="AB"), teams="AB"), {"finish": None, "holds": 1},
                 id="a team one correct jump away from the penultimate step keeps the game going"),
    pytest.param(rec(*LONE_KING, teams="AB"), {"finish": None, "holds": 0},
                 id="a failed last move costs one move in the reach count but three moves are enough"),
    pytest.param(rec(*LONE_KING, teams="AB", main=4), {"finish": "no_challenger", "holds": 0},
                 id="the questions left shorten the window in which a challenger must arrive"),
    pytest.param(rec(*KING, mv(rev="BC")), {"finish": None, "rights": "D", "holds": 1},
                 id="used rights are not given back while a right holder could still make it"),
    pytest.param(rec(*KING, mv(rev="BC"), mv()), {"finish": None, "rights": "BCD", "holds": 2},
                 id="used rights come back when no right holder could still depose the King"),
    pytest.param(rec(mv(ok="AB"), mv(ok="AB", jump="A"), mv(ok="AB"), mv(rev="B"), mv(), teams="AB"),
                 {"finish": None, "rights": "B", "holds": 2},
                 id="a re-granted right lets the only challenger revolt again"),
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="B", rev="B"), mv(ok="B"), mv(ok="B")),
                 {"king": "B", "holds": 2, "finish": None},
                 id="the hold count restarts at zero when the King changes so a new King needs three holds of its own"),
    pytest.param(rec(*LONE_KING, teams="AB", main=3),
                 {"finish": "questions_exhausted", "winner": "A", "holds": 0},
                 id="when the last question is played and nobody could depose the King the questions running out is the reason"),
    pytest.param(rec(mv(ok="ABC"), mv(ok="ABC", jump="A"), mv(ok="ABC"), mv(ok="A", rev="BC"), teams="ABC", main=4),
                 {"finish": "questions_exhausted", "rights": "", "holds": 1},
                 id="the move that exhausts the questions gives no used right back"),
    pytest.param(rec(mv(ok="ABC"), mv(ok="ABC", jump="A"), mv(ok="ABC"), mv(ok="A", rev="BC"), teams="ABC"),
                 {"finish": None, "rights": "BC", "holds": 1},
                 id="the same move with questions left gives the used rights back"),
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A", rev="BC")),
                 {"finish": "king_held", "rights": "D"},
                 id="the move in which the King wins by holding gives no used right back"),
    pytest.param(rec(*KING, mv(ok="A", rev="B"), mv(ok="A", rev="C")),
                 {"finish": None, "rights": "BCD", "holds": 2},
                 id="a re-grant gives back every used right even when none of those teams asked again"),
    # Standings
    pytest.param(rec(*KING, mv(ok="B", rev="B"), mv(ok="A", partner=True)),
                 {"order": "BACD", "board": {"A": (3, 6), "B": (4, 4)}},
                 id="the King is first even with fewer points than the team below"),
    pytest.param(rec(mv(ok="AB"), mv(ok="B", partner=True), mv(ok="A", jump="B"), teams="AB", summit=7),
                 {"order": "AB", "board": {"A": (2, 2), "B": (1, 3)}},
                 id="a higher step ranks above more points"),
    pytest.param(rec(mv(ok="B"), mv(ok="A"), teams="AB", summit=7), {"order": "BA"},
                 id="on equal step and points the team that got there on an earlier question ranks higher"),
    pytest.param(rec(mv(ok="AB", at={"A": 9, "B": 2}), teams="AB", summit=7), {"order": "BA"},
                 id="on the same question the earlier answer ranks higher"),
    pytest.param(rec(mv(ok="AB", at={"A": 9}), teams="BA", summit=7), {"order": "AB"},
                 id="an answer without a time ranks after one with a time in the standings"),
    pytest.param(rec(mv(ok="AB"), teams="BA", summit=7), {"order": "BA"},
                 id="with no answer times registration order breaks the last standings tie"),
    pytest.param(rec(mv(ok="A"), mv(jump="A", ok="B"), mv(jump="B"), teams="BA", summit=7),
                 {"order": "AB", "board": {"A": (0, 1), "B": (0, 1)}},
                 id="a slide down by a failed jump is the change that reached the new step and points"),
]


@pytest.mark.parametrize(("record", "expected"), CASES)
def test_rule(record, expected):
    got = summary(compute(parse_record(record)))
    for key, value in expected.items():
        if key == "board":
            assert {k: got["board"][k] for k in value} == value
        else:
            assert got[key] == value, key


ERRORS = [
    pytest.param([], "the record must be a JSON object", id="a record that is not an object is refused"),
    pytest.param({"teams": ["A", "B"]}, "format:", id="a record without its format is refused"),
    pytest.param(rec(summit=1), "summit: must be at least 2", id="a summit below 2 is refused"),
    pytest.param(rec(summit="7"), "summit: expected a number, got a string",
                 id="a summit written as text is refused"),
    pytest.param(rec(summit=True), "summit: expected a number, got a boolean",
                 id="a summit written as true is refused"),
    pytest.param(rec(teams="A"), "teams: at least 2 teams", id="a single team is refused"),
    pytest.param(rec(teams="ABA"), "teams[2]: duplicate team name 'A'", id="a duplicate team name is refused"),
    pytest.param({**rec(), "teams": ["A", 3]}, "teams[1]: expected a string", id="a team name that is not text is refused"),
    pytest.param({**rec(), "teams": ["A", " "]}, "teams[1]: a team name must not be empty",
                 id="a blank team name is refused"),
    pytest.param(rec(mv(ok="Z")), "moves[0].answers.Z: unknown team 'Z'", id="an answer from an unknown team is refused"),
    pytest.param(rec(mv(jump="Z")), "moves[0].declarations.Z: unknown team 'Z'",
                 id="a declaration from an unknown team is refused"),
    pytest.param(rec(mv(), {"declarations": {"A": {"kind": "hop"}}}),
                 'moves[1].declarations.A.kind: expected "jump" or "revolution", got "hop"',
                 id="an unknown declaration kind is refused"),
    pytest.param(rec({"declarations": {"A": {}}}), "moves[0].declarations.A.kind: missing",
                 id="a declaration without a kind is refused"),
    pytest.param(rec({"answers": {"A": {"correct": "yes"}}}), "moves[0].answers.A.correct: expected true or false",
                 id="a verdict that is not true or false is refused"),
    pytest.param(rec({"answers": {"A": {"correct": True, "at": "2026-12-05T19:00:00"}}}),
                 "moves[0].answers.A.at: '2026-12-05T19:00:00' has no UTC offset",
                 id="an answer time without a UTC offset is refused"),
    pytest.param(rec({"announced_at": "soon"}), "moves[0].announced_at: 'soon' is not an ISO 8601 time",
                 id="an announcement time that is not a time is refused"),
    pytest.param(rec({"partner": 1}), "moves[0].partner: expected true or false", id="a partner mark that is not true or false is refused"),
    pytest.param(rec("move"), "moves[0]: expected an object, got a string", id="a move that is not an object is refused"),
    pytest.param({**rec(), "moves": {}}, "moves: expected a list", id="moves that are not a list are refused"),
    pytest.param(rec(mv(), mv(), mv(), main=2), "moves[2]: only 2 questions",
                 id="more moves than main and reserve questions are refused"),
    pytest.param(rec(main=0), "main_questions: must be at least 1", id="zero main questions are refused"),
    pytest.param(rec(main=3, reserve=-1), "reserve_questions: must not be negative",
                 id="a negative number of reserve questions is refused"),
    pytest.param(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"), mv()),
                 "moves[6]: the game already finished after question 6 (king_held)",
                 id="a move after the game finished is refused"),
]


@pytest.mark.parametrize(("record", "message"), ERRORS)
def test_bad_record(record, message):
    with pytest.raises(RecordError) as error:
        replay(record)
    assert message in str(error.value)


def test_a_move_after_the_end_carries_a_code_the_last_counted_question_and_the_reason():
    with pytest.raises(rules.MoveAfterEnd) as error:
        compute(parse_record(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"), mv())))
    assert (error.value.code, error.value.question, error.value.finish_reason) == \
        ("move_after_end", 6, rules.KING_HELD)
    finished = compute(parse_record(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"))))
    with pytest.raises(rules.MoveAfterEnd) as error:
        advance(finished, rules.parse_move({}, set("ABCD")))
    assert (error.value.question, error.value.finish_reason) == (6, rules.KING_HELD)


def test_a_move_naming_a_team_not_on_the_board_is_refused_naming_the_first_such_team():
    board = compute(parse_record(rec(mv(ok="A"))))
    move = rules.parse_move({"declarations": {"B": {"kind": "jump"}, "Y": {"kind": "jump"}},
                             "answers": {"A": {"correct": True}, "X": {"correct": True}}},
                            set("ABCDXY"))
    with pytest.raises(RecordError, match=r"^question 2: unknown team 'Y'$"):
        advance(board, move)


def test_until_the_end_the_moves_after_it_do_not_count_and_the_board_is_the_ended_one():
    played = parse_record(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"), mv(ok="BC"), mv(ok="B")))
    board = compute(played, until_end=True)
    assert board.question == 6 and len(board.moves) == 6
    assert board == compute(parse_record(rec(*KING, mv(ok="A"), mv(ok="A"), mv(ok="A"))))


def test_a_changed_verdict_is_just_a_different_record():
    before = rec(*KING, mv(ok="A", rev="B"))
    after = rec(*KING, mv(ok="B", rev="B"))
    assert replay(before)["king"] == "A"
    assert replay(after)["king"] == "B"


def test_a_partner_mark_set_after_the_answers_were_judged_adds_the_points():
    plain = rec(mv(ok="AB"), mv(ok="A"))
    marked = json.loads(json.dumps(plain))
    marked["moves"][1]["partner"] = True
    points = {t["team"]: t["points"] for t in replay(marked)["teams"]}
    assert points == {"A": 3, "B": 1, "C": 0, "D": 0}
    assert {t["team"]: t["points"] for t in replay(plain)["teams"]}["A"] == 2


def test_the_replay_output_carries_the_contract_fields_and_the_rating_extras():
    out = replay(rec(*KING, mv(ok="B", rev="B", partner=True)))
    assert out["format"] == "kingofhill"
    assert out["teams"][0] == {"team": "B", "place": 1, "step": 4, "points": 5, "revolution_right": False}
    assert [t["place"] for t in out["teams"]] == [1, 2, 3, 4]
    last = out["moves"][-1]
    assert last == {"question": 4, "partner": True, "effective": {"B": "revolution"}, "ignored": {},
                    "correct": ["B"], "king": "B"}
    json.dumps(out)  # plain JSON values only


def test_advancing_one_move_at_a_time_equals_computing_the_whole_record():
    record = parse_record(rec(*KING, mv(ok="AB", rev="B")))
    board = initial_board(record)
    for move in record.moves:
        board = advance(board, move)
    assert board == compute(record)


def test_the_parsed_record_and_board_are_frozen():
    record = parse_record(rec(mv(ok="A")))
    assert isinstance(record, GameRecord)
    board = compute(record)
    with pytest.raises(AttributeError):
        board.king = "A"
    with pytest.raises(TypeError):
        record.moves[0].answers["B"] = None


def test_the_worked_examples_in_the_docstrings_hold():
    import doctest
    import importlib
    import pkgutil

    # The examples use the rules' public names, whichever module of the package they are in.
    results = [doctest.testmod(importlib.import_module(f"kingofhill.rules.{m.name}"),
                               extraglobs=vars(rules))
               for m in pkgutil.iter_modules(rules.__path__)]
    assert sum(r.failed for r in results) == 0
    assert sum(r.attempted for r in results) >= 35  # every example of the single-file rules
