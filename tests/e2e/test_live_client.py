"""The one client live module (static/js/live.js) on every live page, in real Chromium against
a real daphne server: a reconnect costs no HTTP state read when the socket's first message
brings the state, a gap costs exactly one, no state after the socket opened costs one, the
"reconnecting…" status is shown while the socket is down, and the projector reads the King's
holds to win from the state.

State reads are counted with Playwright's request events on the page's own state URL.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from playwright.sync_api import expect

from kingofhill import rules as koth_rules
from live.delta import diff
from tests.conftest import artifacts_dir
from tests.core.test_delta import JSON as DELTA_JSON
from tests.e2e.live_pages import PAGES, PROJECTOR, WAIT, open_live, settle, state_reads
from tests.kingofhill.projector_harness import mid_game_state, render_projector
from tests.properties import examples

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("name", list(PAGES))
def test_a_reconnect_costs_no_http_read_when_the_sockets_first_message_brings_the_state(
        asgi_server, new_page, games, name):
    page = open_live(new_page, asgi_server, games, name)
    assert page.evaluate("Live.streams.length") == 1  # one socket per page, the shared module's
    version = page.evaluate("Live.streams[0].version")
    assert version >= 0
    reads = state_reads(page)
    page.evaluate("""() => { window.__old = Live.streams[0].socket; window.__old.close(); }""")
    page.wait_for_function("() => Live.streams[0].socket !== window.__old"
                           " && Live.streams[0].socket.readyState === WebSocket.OPEN", timeout=WAIT)
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    settle(page)
    assert reads == []
    assert page.evaluate("Live.streams[0].reads") == 0
    assert page.evaluate("Live.streams[0].version") == version
    status = page.locator("#live-status")
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_attribute("data-offline", "Переподключение…")
    assert page.errors == []


@pytest.mark.parametrize("name", ["koth projector", "koth team phone", "gorod team phone"])
def test_while_the_socket_is_down_the_page_says_it_is_reconnecting(asgi_server, new_page, games, name):
    page = open_live(new_page, asgi_server, games, name, flaky=True)
    page.evaluate("() => { window.__offline = true; window.__offlineAt = performance.now();"
                  " window.__tried = window.__opened.length;"
                  " window.__sockets.forEach((s) => s.close()); }")
    status = page.locator("#live-status")
    expect(status).to_have_attribute("data-status", "offline", timeout=WAIT)
    expect(status).to_have_text("Переподключение…")
    expect(status).to_be_visible()
    box = status.bounding_box()
    assert box["width"] > 40 and box["height"] > 10  # text, not just a dot
    # Retries back off, not one every few milliseconds: the first waits at least 250 ms, the
    # next at least 500 (half of each doubling step: static/js/live.js, backoff).
    page.wait_for_function("() => window.__opened.length >= window.__tried + 2", timeout=WAIT)
    start, first, second = page.evaluate(
        "[window.__offlineAt, ...window.__opened.slice(window.__tried, window.__tried + 2)]")
    assert first - start >= 250 - 5 and second - first >= 500 - 5, (start, first, second)
    page.screenshot(path=str(artifacts_dir() / f"live-reconnecting-{name.replace(' ', '-')}.png"))
    page.evaluate("() => { window.__offline = false; }")
    expect(status).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(status).to_have_text("На связи")


def test_a_gap_triggers_exactly_one_http_read(asgi_server, new_page, games):
    phone = open_live(new_page, asgi_server, games, "koth team phone", flaky=True)
    host = open_live(new_page, asgi_server, games, "koth host console")
    reads = state_reads(phone)
    version = phone.evaluate("Live.streams[0].version")
    phone.evaluate("() => { window.__drop = 1; }")
    host.keyboard.press("p")  # the phone misses this push...
    phone.wait_for_function("() => window.__drop === 0", timeout=WAIT)
    assert reads == []
    host.keyboard.press("p")  # ...so this one is a gap
    phone.wait_for_function(f"() => Live.streams[0].version >= {version + 2}", timeout=WAIT)
    settle(phone)
    assert len(reads) == 1
    assert phone.evaluate("Live.streams[0].version") == version + 2


def test_no_state_after_the_socket_opened_costs_one_http_read(asgi_server, new_page, games):
    phone = open_live(new_page, asgi_server, games, "gorod team phone", flaky=True)
    reads = state_reads(phone)
    # The reconnected socket's first message (the state) is lost on the way.
    phone.evaluate("() => { window.__drop = 1; window.__sockets.forEach((s) => s.close()); }")
    phone.wait_for_function("() => window.__drop === 0", timeout=WAIT)
    assert reads == []
    # No state came: after its wait the page reads once.
    phone.wait_for_function("() => Live.streams[0].reads === 1",
                            timeout=phone.evaluate("Live.STATE_WAIT_MS") + WAIT)
    settle(phone)
    assert len(reads) == 1 and phone.evaluate("Live.streams[0].reads") == 1


@pytest.fixture
def harness(asgi_server, new_page):
    """The projector template with a fake state; nothing answers its socket, so states are
    pushed through the module's stream (as its socket would)."""
    def open_(state: dict, version: int = 1):
        html = render_projector(state, version, game_id=987654)  # no such game: its reads are 404
        page = new_page(viewport=PROJECTOR)
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.route("**/projector-harness", lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8"))
        page.goto(asgi_server + "/projector-harness")
        page.wait_for_function("() => document.querySelectorAll('#koth-board .kp-slope').length > 0")
        return page

    return open_


def push(page, version: int, state: dict) -> None:
    page.evaluate("([v, s]) => Live.streams[0].receive({type: 'koth.state', version: v, state: s})",
                  [version, state])


def test_a_burst_of_pushes_after_a_gap_costs_one_read_and_the_newest_wins(harness):
    state = mid_game_state(8)
    page = harness(state)
    reads = state_reads(page)
    newest = copy.deepcopy(state)
    newest["game"]["title"] = "Самое новое"
    for version, s in ((3, state), (4, state), (5, newest), (2, state)):  # 2 comes late
        push(page, version, s)
    expect(page.locator("#koth-title")).to_have_text("Самое новое", timeout=WAIT)
    settle(page)
    assert len(reads) == 1
    assert page.evaluate("Live.streams[0].version") == 5
    push(page, 5, state)  # a duplicate is ignored
    push(page, 4, state)  # and so is a stale one
    expect(page.locator("#koth-title")).to_have_text("Самое новое")
    assert page.errors == []


def test_a_first_message_too_large_for_a_socket_costs_one_http_read_and_no_render(harness):
    """``live.write.LiveGame.first_message`` sends only the version of a state past 16 KiB."""
    state = mid_game_state(8)
    page = harness(state)
    reads = state_reads(page)
    page.evaluate("Live.streams[0].receive({type: 'koth.state', version: 1, resync: true})")
    # A read would have started within that call (the module counts it there).
    assert page.evaluate("Live.streams[0].reads") == 0  # the page already holds version 1
    page.evaluate("Live.streams[0].receive({type: 'koth.state', version: 7, resync: true})")
    settle(page)
    assert len(reads) == 1 and page.evaluate("Live.streams[0].reads") == 1
    assert page.evaluate("Live.streams[0].version") == 1  # the read (a 404 here) decides
    assert page.errors == []


def push_delta(page, version: int, change: dict) -> None:
    page.evaluate("([v, d]) => Live.streams[0].receive({type: 'koth.state', version: v, delta: d})",
                  [version, change])


def test_a_delta_at_the_next_version_renders_with_no_read_and_one_past_a_gap_reads_once(harness):
    state = mid_game_state(8)
    page = harness(state)
    reads = state_reads(page)
    newer = copy.deepcopy(state)
    newer["game"]["title"] = "Пришла дельта"
    push_delta(page, 2, diff(state, newer))
    expect(page.locator("#koth-title")).to_have_text("Пришла дельта", timeout=WAIT)
    assert page.evaluate("Live.streams[0].version") == 2 and reads == []
    assert page.evaluate("Live.streams[0].state") == newer
    push_delta(page, 4, diff(newer, state))  # version 3 was lost: the delta cannot apply
    settle(page)
    assert len(reads) == 1
    expect(page.locator("#koth-title")).to_have_text("Пришла дельта")
    assert page.errors == []


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(old=DELTA_JSON, new=DELTA_JSON)
def test_the_pages_patch_gives_the_servers_new_state(harness_page, old, new):
    change = diff({"v": old}, {"v": new})
    got = harness_page.evaluate("([o, d]) => Live.patch(o, d)", [{"v": old}, change])
    assert got == {"v": new}


@pytest.fixture
def harness_page(harness):
    return harness(mid_game_state(3))


def test_the_projector_shows_holds_to_win_from_the_state(harness):
    state = mid_game_state(8)
    state["game"]["holds_to_win"] = 5
    page = harness(state)
    expect(page.locator("#koth-king-holds .kp-pip")).to_have_count(5)
    expect(page.locator("#koth-king-card-pips .kp-pip")).to_have_count(5)
    expect(page.locator("#koth-king-holds-text")).to_have_text("держится 1 из 5")
    fewer = copy.deepcopy(state)
    fewer["game"]["holds_to_win"] = 2
    push(page, 2, fewer)
    expect(page.locator("#koth-king-holds .kp-pip")).to_have_count(2)
    expect(page.locator("#koth-king-holds-text")).to_have_text("держится 1 из 2")
    assert page.errors == []


def test_the_real_projector_gets_holds_to_win_from_the_rules(asgi_server, new_page, games):
    page = open_live(new_page, asgi_server, games, "koth projector")
    state = page.evaluate("JSON.parse(document.getElementById('koth-state').textContent)")
    assert state["state"]["game"]["holds_to_win"] == koth_rules.KING_HOLD_MOVES
    assert page.evaluate("Live.streams[0].path") == f"/ws/koth/{games['koth'].pk}/public/"


def test_reconnect_waits_back_off_exponentially_with_jitter(harness):
    page = harness(mid_game_state(3))
    waits = page.evaluate("""() => [
        Live.backoff(0, 0), Live.backoff(0, 1), Live.backoff(1, 0), Live.backoff(3, 0.5),
        Live.backoff(9, 1), Live.backoff(30, 0),
        Array.from({length: 50}, () => Live.backoff(2)).every((w) => w >= 1000 && w <= 2000),
        new Set(Array.from({length: 50}, () => Live.backoff(4))).size > 1]""")
    assert waits == [250, 500, 500, 3000, 10000, 5000, True, True]
