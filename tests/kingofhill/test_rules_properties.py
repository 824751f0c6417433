"""The King of the Hill rules' properties over random valid records and junk."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.records import RecordError
from kingofhill.rules import (
    Board,
    advance,
    board_to_dict,
    challengers,
    compute,
    compute_played,
    could_still_depose,
    initial_board,
    parse_record,
    read_record,
    replay,
)
from tests.kingofhill.rules_cases import (
    PROPERTY,
    records,
    seeds,
    t,
    timed_records,
)
from tests.properties import examples

# --------------------------------------------------------------------------------------------
# Properties over random records


def positions(board: Board):
    return [m.position for m in board.moves]


@PROPERTY
@given(records)
def test_steps_stay_on_the_hill_and_only_the_king_stands_on_the_summit(record):
    board = compute(parse_record(record))
    for position in positions(board):
        on_summit = [s.team for s in position.teams if s.step == position.summit]
        assert all(0 <= s.step <= position.summit for s in position.teams)
        assert on_summit == ([position.king] if position.king else [])
        assert [s.place for s in position.teams] == list(range(1, len(position.teams) + 1))
        if position.king:
            assert position.teams[0].team == position.king
            assert not position.teams[0].revolution_right


@PROPERTY
@given(records)
def test_points_never_decrease_and_the_king_never_disappears(record):
    board = compute(parse_record(record))
    previous = {s.team: 0 for s in board.teams}
    king_seen = False
    for position in positions(board):
        points = {s.team: s.points for s in position.teams}
        assert all(points[team] >= previous[team] for team in points)
        previous = points
        king_seen = king_seen or position.king is not None
        assert (position.king is not None) == king_seen
        assert position.finished == (position.winner is not None)


@PROPERTY
@given(records, st.integers(min_value=0))
def test_a_replayed_prefix_shows_the_board_the_full_replay_showed_after_that_move(record, cut):
    board = compute(parse_record(record))
    if not board.moves:
        return
    i = cut % len(board.moves)
    prefix = compute(parse_record({**record, "moves": record["moves"][:i + 1]}))
    shown = board.moves[i].position
    assert prefix.teams == shown.teams
    assert (prefix.king, prefix.king_holds, prefix.finished, prefix.finish_reason, prefix.winner) == (
        shown.king, shown.king_holds, shown.finished, shown.finish_reason, shown.winner)
    assert prefix.moves == board.moves[:i + 1]
    live = initial_board(parse_record(record))
    for move in parse_record(record).moves[:i + 1]:
        live = advance(live, move)  # what the live app shows after each question
    assert live == prefix


@PROPERTY
@given(timed_records, seeds)
def test_registration_order_changes_nothing_when_every_answer_is_timed(record, seed):
    rnd = random.Random(seed)
    shuffled = {**record, "teams": rnd.sample(record["teams"], len(record["teams"]))}
    one, other = compute(parse_record(record)), compute(parse_record(shuffled))

    def essence(board):
        return ({s.team: (s.step, s.points, s.revolution_right) for s in board.teams},
                board.king, board.king_holds, board.finish_reason,
                [(dict(m.effective), dict(m.ignored), set(m.correct)) for m in board.moves])

    assert essence(one) == essence(other)
    if one.winner != other.winner:  # only a tie on (step, points) left to registration order
        assert one.king is None
        assert (one.team(one.winner).step, one.team(one.winner).points) == (
            other.team(other.winner).step, other.team(other.winner).points)


@PROPERTY
@given(records)
def test_the_game_ends_exactly_when_an_end_rule_holds_and_a_reigning_king_always_has_a_challenger(record):
    parsed = parse_record(record)
    total = parsed.total_questions
    for position in positions(compute(parsed)):
        reason = position.finish_reason
        if reason == "king_held":
            assert position.king and position.king_holds == 3
        elif reason == "questions_exhausted":
            assert position.question == total and position.king_holds < 3
            assert position.winner == (position.king or position.teams[0].team)
        elif reason == "no_challenger":
            assert position.king and position.king_holds < 3
            assert total is None or position.question < total
            assert not any(could_still_depose(position, s.team, assume_right=True)
                           for s in position.teams)  # finished: could_still_depose says no
        else:
            assert position.king_holds < 3 and (total is None or position.question < total)
            if position.king:  # rule 3 did not fire, so after any re-grant someone can still try
                assert challengers(position)
        if reason is not None:
            assert position.winner == (position.king or position.teams[0].team)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def mutate(value, rnd: random.Random, junk):
    """Replace one randomly chosen node (or drop one key) of a JSON-like value."""
    if isinstance(value, dict) and value and rnd.random() < 0.8:
        key = rnd.choice(list(value))
        copy = dict(value)
        if rnd.random() < 0.15:
            del copy[key]
        else:
            copy[key] = mutate(value[key], rnd, junk)
        return copy
    if isinstance(value, list) and value and rnd.random() < 0.8:
        i = rnd.randrange(len(value))
        return [*value[:i], mutate(value[i], rnd, junk), *value[i + 1:]]
    return junk


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_arbitrary_json_is_refused_with_a_record_error_only(value):
    for candidate in (value, {"format": "kingofhill", "teams": value},
                      {"format": "kingofhill", "teams": ["A", "B"], "moves": value}):
        try:
            out = replay(candidate)
        except RecordError as exc:
            assert str(exc)  # a message to show, never an empty refusal
        else:
            assert out["format"] == "kingofhill"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records, seeds, json_values)
def test_a_valid_record_with_one_junk_node_replays_or_raises_a_record_error(record, seed, junk):
    try:
        out = replay(mutate(record, random.Random(seed), junk))
    except RecordError:
        return
    assert out["format"] == "kingofhill"


# --------------------------------------------------------------------------------------------
# The replay's reading (read_record, compute_played) against the full parse


def reordered(record: dict, rnd: random.Random) -> dict:
    """The record with each move's answers in a random order, some of them left out."""
    moves = []
    for move in record["moves"]:
        answers = [item for item in move["answers"].items() if rnd.random() < 0.8]
        rnd.shuffle(answers)
        moves.append({**move, "answers": dict(answers)})
    return {**record, "moves": moves}


def outcome(play, *args, **kwargs):
    try:
        return play(*args, **kwargs)
    except RecordError as exc:
        return type(exc), str(exc)


def played(data, *, until_end=False):
    return compute_played(*read_record(data), until_end=until_end)


def parsed(data, *, until_end=False):
    return compute(parse_record(data), until_end=until_end)


@PROPERTY
@given(timed_records, seeds)
def test_a_stamped_record_read_for_the_replay_plays_the_board_its_full_parse_plays(record, seed):
    # Answers reordered or left out may end the game earlier: until_end plays what counts.
    for candidate in (record, reordered(record, random.Random(seed))):
        read = read_record(candidate)
        assert read is not None
        assert compute_played(*read, until_end=True) == compute(parse_record(candidate),
                                                                until_end=True)


@PROPERTY
@given(records, seeds)
def test_a_move_after_the_end_is_refused_alike_by_the_replay_reading_and_the_full_parse(record, seed):
    rnd = random.Random(seed)
    timed = {**record, "moves": [
        {**move, "answers": {team: {"correct": answer["correct"], "at": t(rnd.randrange(600))}
                             for team, answer in move["answers"].items()}}
        for move in record["moves"]]}
    for candidate in (timed, {**timed, "moves": [*timed["moves"], *timed["moves"][-1:]]}):
        for until_end in (False, True):
            assert outcome(played, candidate, until_end=until_end) == outcome(
                parsed, candidate, until_end=until_end)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(records, timed_records), seeds, json_values)
def test_the_replay_of_a_record_with_one_junk_node_is_the_full_parse_s_result_or_its_refusal(
        record, seed, junk):
    changed = mutate(record, random.Random(seed), junk)
    assert outcome(replay, changed) == outcome(lambda: board_to_dict(parsed(changed)))
