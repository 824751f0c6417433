"""Pure registration rules and the fee ledger: no database, no clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from teams import rules
from teams.rules import BanInfo, Entry, LedgerGame, Prize, RuleViolation

T0 = datetime(2026, 3, 1, 19, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("game_format", "size", "ok"),
    [
        pytest.param("kingofhill", 2, False, id="king of the hill refuses two players"),
        pytest.param("kingofhill", 3, True, id="king of the hill accepts three"),
        pytest.param("kingofhill", 8, True, id="king of the hill accepts eight"),
        pytest.param("kingofhill", 9, False, id="king of the hill refuses nine"),
        pytest.param("gorod", 1, False, id="gorod refuses a lone player"),
        pytest.param("gorod", 2, True, id="gorod accepts two (2.2)"),
        pytest.param("gorod", 8, True, id="gorod accepts eight (2.2)"),
        pytest.param("gorod", 9, False, id="gorod refuses nine"),
        pytest.param("gorod", 0, False, id="an empty roster is refused"),
    ],
)
def test_roster_size(game_format, size, ok):
    if ok:
        rules.check_roster_size(game_format=game_format, size=size)
    else:
        with pytest.raises(RuleViolation, match="members; the roster has"):
            rules.check_roster_size(game_format=game_format, size=size)


def test_unknown_format_is_refused():
    with pytest.raises(RuleViolation, match="Unknown game format"):
        rules.check_roster_size(game_format="chess", size=3)


@pytest.mark.parametrize(
    ("now", "scheduled", "message"),
    [
        pytest.param(T0 - timedelta(days=5), True, None, id="open days before"),
        pytest.param(T0 - timedelta(minutes=61), True, None, id="open 61 minutes before"),
        pytest.param(
            T0 - timedelta(hours=1), True, "closed 1 hour", id="closed exactly 1 h before"
        ),
        pytest.param(
            T0 - timedelta(minutes=5), True, "closed 1 hour", id="closed 5 minutes before"
        ),
        pytest.param(T0 + timedelta(hours=1), True, "closed 1 hour", id="closed after the start"),
        pytest.param(T0 - timedelta(days=5), False, "does not accept", id="a cancelled game"),
    ],
)
def test_application_window(now, scheduled, message):
    if message is None:
        rules.check_applications_open(starts_at=T0, scheduled=scheduled, now=now)
    else:
        with pytest.raises(RuleViolation, match=message):
            rules.check_applications_open(starts_at=T0, scheduled=scheduled, now=now)


@pytest.mark.parametrize(
    ("lead", "late"),
    [
        pytest.param(timedelta(days=10), False, id="ten days ahead is fine"),
        pytest.param(timedelta(days=4), False, id="exactly four days is fine"),
        pytest.param(timedelta(days=4) - timedelta(minutes=1), True, id="a minute short warns"),
        pytest.param(timedelta(days=1), True, id="tomorrow warns"),
    ],
)
def test_publication_lead(lead, late):
    assert rules.publication_too_late(starts_at=T0, now=T0 - lead) is late


@pytest.mark.parametrize(
    ("bans", "now", "banned"),
    [
        pytest.param([], T0, False, id="no bans"),
        pytest.param([BanInfo(until=T0 + timedelta(days=1))], T0, True, id="ban in force"),
        pytest.param([BanInfo(until=T0)], T0, False, id="ban ends right now"),
        pytest.param([BanInfo(until=T0 - timedelta(days=1))], T0, False, id="ban is over"),
        pytest.param(
            [BanInfo(until=T0 - timedelta(days=1)), BanInfo(until=T0 + timedelta(days=30))],
            T0,
            True,
            id="one of two bans in force",
        ),
    ],
)
def test_bans(bans, now, banned):
    assert (rules.active_ban(bans, now) is not None) is banned
    if banned:
        with pytest.raises(RuleViolation, match="banned"):
            rules.check_not_banned(bans, now)


def test_check_application_reports_the_window_before_the_roster():
    with pytest.raises(RuleViolation, match="closed"):
        rules.check_application(
            game_format="gorod", starts_at=T0, scheduled=True, roster_size=0, bans=[], now=T0
        )


@pytest.mark.parametrize(
    ("count", "few"),
    [
        pytest.param(0, True, id="no applications"),
        pytest.param(4, True, id="four applications warn (8.3)"),
        pytest.param(5, False, id="five are enough"),
    ],
)
def test_few_applications(count, few):
    assert rules.few_applications(count) is few


@pytest.mark.parametrize(
    ("fee", "percent", "due"),
    [
        pytest.param(400, 0, 400, id="full fee"),
        pytest.param(400, 100, 0, id="first place plays free"),
        pytest.param(400, 50, 200, id="second place pays 200 (3.28)"),
        pytest.param(400, 25, 300, id="third place pays 300 (3.28)"),
        pytest.param(350, 25, 263, id="odd fee: discount rounds down"),
    ],
)
def test_amount_due(fee, percent, due):
    assert rules.amount_due(fee, percent) == due


def test_prize_percent_table():
    assert [rules.prize_percent(p) for p in (1, 2, 3, 4)] == [100, 50, 25, None]


def _games(n, fmt="gorod", start=T0, fee=400):
    return [
        LedgerGame(game_id=i, game_format=fmt, starts_at=start + timedelta(days=7 * i), fee=fee)
        for i in range(1, n + 1)
    ]


LATE = T0 + timedelta(days=365)

LEDGER_CASES = [
    pytest.param(
        _games(2),
        [Entry(1, paid=True), Entry(2)],
        [],
        LATE,
        [(1, 0, 400), (2, 0, 400)],
        [],
        id="no benefits: full fee every game",
    ),
    pytest.param(
        _games(2),
        [Entry(1), Entry(2)],
        [Prize(1, 100, 1)],
        LATE,
        [(1, 0, 400), (2, 100, 0)],
        [(2, False)],
        id="first place plays the next game free",
    ),
    pytest.param(
        _games(4),
        [Entry(1), Entry(4)],
        [Prize(1, 50, 2)],
        LATE,
        [(1, 0, 400), (4, 50, 200)],
        [(4, False)],
        id="used at the third game after: still valid",
    ),
    pytest.param(
        _games(5),
        [Entry(1), Entry(5)],
        [Prize(1, 25, 3)],
        LATE,
        [(1, 0, 400), (5, 0, 400)],
        [(None, True)],
        id="not used within three games: lapsed",
    ),
    pytest.param(
        _games(4),
        [Entry(1)],
        [Prize(1, 25, 3)],
        T0 + timedelta(days=7 * 4 - 1),
        [(1, 0, 400)],
        [(None, False)],
        id="third game not started yet: still available",
    ),
    pytest.param(
        _games(3),
        [Entry(1), Entry(2), Entry(3)],
        [Prize(1, 100, 1), Prize(2, 50, 2)],
        LATE,
        [(1, 0, 400), (2, 100, 0), (3, 50, 200)],
        [(2, False), (3, False)],
        id="back-to-back prizes are used one per game",
    ),
    pytest.param(
        _games(3),
        [Entry(3)],
        [Prize(1, 25, 3), Prize(2, 100, 1)],
        LATE,
        [(3, 100, 0)],
        [(None, False), (3, False)],
        id="two benefits for one game: the larger is used, the smaller waits",
    ),
    pytest.param(
        _games(2) + [LedgerGame(9, "kingofhill", T0 + timedelta(days=8), 300)],
        [Entry(1), Entry(9), Entry(2)],
        [Prize(1, 100, 1)],
        LATE,
        [(1, 0, 400), (9, 0, 300), (2, 100, 0)],
        [(2, False)],
        id="a gorod prize is not spent on a king of the hill game",
    ),
]


@pytest.mark.parametrize(("games", "entries", "prizes", "now", "rows", "states"), LEDGER_CASES)
def test_fee_ledger(games, entries, prizes, now, rows, states):
    ledger = rules.fee_ledger(games=games, entries=entries, prizes=prizes, now=now)
    assert [(r.game_id, r.percent, r.due) for r in ledger.rows] == rows
    assert [(s.used_at, s.lapsed) for s in ledger.prizes] == states


def test_ledger_total_due_counts_unpaid_only():
    ledger = rules.fee_ledger(
        games=_games(3), entries=[Entry(1, paid=True), Entry(2), Entry(3)], prizes=[], now=LATE
    )
    assert ledger.total_due == 800


def test_rules_module_imports_no_django():
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(rules))
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in getattr(node, "names", [])
    }
    assert not any(name and name.startswith("django") for name in imported)
