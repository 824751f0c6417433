"""Flaky networks in real Chromium: a phone that misses a push (a gap) catches up with one HTTP
read, one that loses its socket catches up from the reconnected socket's first message (no
HTTP read at all), a resent answer whose first reply was lost stays one answer, and the
host console's unsent question survives a reload.

The phone's WebSocket is wrapped by an init script so a test can drop pushed messages
(``__drop``), cut the socket and keep it down (``__offline``), and see what the page fetched.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.models import Answer
from teams.models import Game
from tests.e2e.waits import settle
from tests.kingofhill.conftest import join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PHONE = {"width": 390, "height": 844}
FLAKY_SOCKET = """
(() => {
  const Real = window.WebSocket;
  window.__sockets = [];
  window.__opened = [];  // when each socket was made (performance.now(), ms)
  window.__offline = false;
  window.__drop = 0;
  function Flaky(url, protocols) {
    // While "offline" every connection goes to a path the server has no socket for and fails
    // at once (on the page's own origin: the Content-Security-Policy allows no other).
    const ws = new Real(window.__offline ? new URL("/no-socket-here/", url).href : url,
                        protocols);
    let handler = null;
    Object.defineProperty(ws, "onmessage", {
      configurable: true, get() { return handler; }, set(h) { handler = h; },
    });
    ws.addEventListener("message", (event) => {
      if (window.__drop > 0) { window.__drop -= 1; return; }
      if (handler) { handler.call(ws, event); }
    });
    window.__sockets.push(ws);
    window.__opened.push(performance.now());
    return ws;
  }
  Flaky.prototype = Real.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach((k) => { Flaky[k] = Real[k]; });
  window.WebSocket = Flaky;
})();
"""
GO_OFFLINE = "() => { window.__offline = true; window.__sockets.forEach((s) => s.close()); }"


@pytest.fixture
def evening(asgi_server):
    organizer = make_user("organizer-e2e", ORGANIZER)
    host = make_user("host-e2e", HOST)
    game = Game.objects.create(title="Царь Горы: плохая сеть", format="kingofhill",
                               starts_at=timezone.now() + timedelta(days=3))
    entries = make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host)
    return koth, host, entries


def with_session(page, base: str, client: Client):
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": base}])
    return page


def open_host(new_page, base, koth, user):
    client = Client()
    client.force_login(user)
    page = with_session(new_page(), base, client)
    page.goto(f"{base}/koth/{koth.pk}/host/")
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return page


def open_phone(new_page, base, koth, entry):
    client = Client()
    join_session(client, entry)
    page = with_session(new_page(viewport=PHONE), base, client)
    page.add_init_script(FLAKY_SOCKET)
    page.goto(f"{base}/koth/{koth.pk}/play/")
    expect(page.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    return page


def start_and_announce(host):
    host.keyboard.press("s")
    expect(host.locator("#announce")).to_be_enabled(timeout=WAIT)
    host.keyboard.press("a")
    expect(host.locator("#announce-form")).to_be_hidden(timeout=WAIT)


def is_team_state(request) -> bool:
    return request.method == "GET" and request.url.endswith("/team/state/")


def state_reads(page) -> list[str]:
    """The team state reads the page makes from now on."""
    reads: list[str] = []
    page.on("request", lambda request: reads.append(request.url) if is_team_state(request) else None)
    return reads


def test_a_phone_that_missed_a_push_fetches_the_state_over_http_and_catches_up(
        asgi_server, new_page, evening):
    koth, host_user, (alpha, _beta, _gamma) = evening
    host = open_host(new_page, asgi_server, koth, host_user)
    phone = open_phone(new_page, asgi_server, koth, alpha)
    host.keyboard.press("s")
    expect(phone.locator("#question-title")).to_contain_text("1", timeout=WAIT)
    expect(phone.locator("#answer-send")).to_be_disabled()
    expect(host.locator("#announce")).to_be_enabled(timeout=WAIT)

    phone.evaluate("() => { window.__drop = 1; }")
    host.keyboard.press("a")  # the phone never hears of the announcement...
    expect(host.locator("#announce-form")).to_be_hidden(timeout=WAIT)
    phone.wait_for_function("() => window.__drop === 0", timeout=WAIT)
    expect(phone.locator("#answer-send")).to_be_disabled()
    reads = state_reads(phone)
    with phone.expect_request(is_team_state, timeout=WAIT):
        host.keyboard.press("p")  # ...so the next push is a gap, and the phone asks over HTTP
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    expect(phone.locator("#question-title")).to_contain_text("1", timeout=WAIT)
    partner = phone.evaluate(
        "() => JSON.parse(document.getElementById('koth-text').textContent).partner")
    expect(phone.locator("#question-title")).to_contain_text(f"({partner})")
    settle(phone)
    assert len(reads) == 1  # one gap, one read


def test_a_phone_whose_socket_dropped_catches_up_from_the_reconnected_socket_alone(
        asgi_server, new_page, evening):
    koth, host_user, (alpha, _beta, _gamma) = evening
    host = open_host(new_page, asgi_server, koth, host_user)
    phone = open_phone(new_page, asgi_server, koth, alpha)
    start_and_announce(host)
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
    phone.fill("#answer-text", "Пушкин")
    phone.click("#answer-send")
    expect(phone.locator("#answer-confirm")).to_contain_text("Пушкин", timeout=WAIT)

    phone.evaluate(GO_OFFLINE)
    status = phone.locator("#live-status")
    expect(status).to_have_attribute("data-status", "offline", timeout=WAIT)
    expect(status).to_have_text("Переподключение…")
    expect(status).to_be_visible()
    expect(status).to_have_attribute("role", "status")
    host.keyboard.press("1")
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true",
                                                               timeout=WAIT)
    host.keyboard.press("c")  # the move is played while the phone is away
    expect(host.locator("#standings tr").first).to_have_attribute("data-team", "Alpha",
                                                                  timeout=WAIT)
    # No socket of the phone is open, so no push can reach it: still the old board.
    assert phone.evaluate("window.__sockets.every((s) => s.readyState !== WebSocket.OPEN)")
    expect(phone.locator("#me-step")).to_have_text("0")

    reads = state_reads(phone)
    phone.evaluate("() => { window.__offline = false; }")
    expect(status).to_have_attribute("data-status", "online", timeout=WAIT)
    expect(status).to_have_text("На связи")
    expect(phone.locator("#me-step")).to_have_text("1", timeout=WAIT)
    expect(phone.locator("#me-points")).to_have_text("1")
    expect(phone.locator("#question-title")).to_contain_text("2")
    expect(phone.locator("#declare-jump")).to_be_enabled()  # the engine now allows a jump
    # The socket's first message was the state: no fallback read either (it was cancelled).
    settle(phone)
    assert reads == [] and phone.evaluate("Live.streams[0].reads") == 0


def test_a_resent_answer_whose_first_reply_was_lost_stays_one_answer(
        asgi_server, new_page, evening):
    koth, host_user, (alpha, _beta, _gamma) = evening
    host = open_host(new_page, asgi_server, koth, host_user)
    phone = open_phone(new_page, asgi_server, koth, alpha)
    start_and_announce(host)
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)

    # The whole phone network flakes: the socket is down, and the answer reaches the server
    # but its reply never comes back.
    phone.evaluate(GO_OFFLINE)
    lost = []

    def lose_the_first_reply(route):
        if lost:
            route.continue_()
            return
        lost.append(route.fetch().status)
        route.abort("connectionreset")

    phone.route("**/answer/", lose_the_first_reply)
    phone.fill("#answer-text", "Пушкин")
    phone.click("#answer-send")
    expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)  # free to try again
    assert lost == [200]
    assert Answer.objects.filter(application=alpha).count() == 1

    phone.click("#answer-send")
    expect(phone.locator("#answer-confirm")).to_contain_text("Пушкин", timeout=WAIT)
    expect(phone.locator("#koth-error")).to_be_hidden()  # not "already answered"
    assert Answer.objects.filter(application=alpha).count() == 1
    expect(host.locator("#answered-counter")).to_contain_text("1", timeout=WAIT)

    # A reload after all that still shows the one answer with its arrival time.
    phone.evaluate("() => { window.__offline = false; }")
    phone.reload()
    expect(phone.locator("#answer-confirm")).to_contain_text("Пушкин", timeout=WAIT)
    expect(phone.locator("#answer-send")).to_be_disabled()


def test_the_host_console_loses_nothing_on_reload(asgi_server, new_page, evening):
    koth, host_user, (alpha, beta, _gamma) = evening
    host = open_host(new_page, asgi_server, koth, host_user)
    phones = [open_phone(new_page, asgi_server, koth, e) for e in (alpha, beta)]
    host.keyboard.press("s")
    expect(host.locator("#announce-form")).to_be_visible(timeout=WAIT)

    # A question typed but not yet announced survives the reload.
    host.fill("#q-text", "Кто написал «Онегина»?")
    host.fill("#q-key", "Пушкин")
    host.fill("#q-variants", "А. С. Пушкин")
    host.reload()
    expect(host.locator("#q-text")).to_have_value("Кто написал «Онегина»?", timeout=WAIT)
    expect(host.locator("#q-key")).to_have_value("Пушкин")
    expect(host.locator("#q-variants")).to_have_value("А. С. Пушкин")

    host.click("#announce")
    for phone, text in zip(phones, ("а. с. пушкин", "Гоголь"), strict=True):
        expect(phone.locator("#answer-send")).to_be_enabled(timeout=WAIT)
        phone.fill("#answer-text", text)
        phone.click("#answer-send")
        expect(phone.locator("#answer-confirm")).to_contain_text(text, timeout=WAIT)
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    host.locator("h1").click()
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)

    # Answers, the counter and the verdicts come back from the server.
    host.reload()
    expect(host.locator("#answered-counter")).to_contain_text("2")
    expect(host.locator("#groups li")).to_have_count(2)
    expect(host.locator("#groups li").first).to_have_attribute("data-verdict", "true")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false")
    expect(host.locator("#q-text")).to_have_value("")  # the announced question's draft is gone
    expect(host.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    host.keyboard.press("c")
    expect(host.locator("#standings tr").first).to_have_attribute("data-team", "Alpha",
                                                                  timeout=WAIT)
    expect(host.locator("#announce-form")).to_be_visible()
    expect(host.locator("#q-key")).to_have_value("")  # question 2 starts with an empty form
