"""The projector for any hall, in real Chromium: 1024x768, 1280x720 and 1920x1080 with 8, 24
and 64 teams. Nothing overflows the screen, team names keep a legible computed font size, the
winner card fits, and the countdown, the reveal, the legend and the full-screen button show.
One page is reused across sizes (a viewport change re-lays the page out, as a real screen
would); screenshots go to artifacts/."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kingofhill.demo import DEMO_TEAMS
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_projector import apply
from tests.e2e.test_koth_question_screens import PICTURE_SHOWN
from tests.e2e.waits import animations_done
from tests.images import png
from tests.kingofhill.projector_harness import finished_state, mid_game_state, render_projector

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = ((1024, 768), (1280, 720), (1920, 1080))
# [decision] 14 px is the floor for names up to 24 teams on every size; 64 teams on a small
# projector may go to 12 px (two columns of 32 rows in 720 px), never clipped off the screen.
MIN_NAME_PX = {8: 14, 24: 14, 64: 12}
# [decision] The board's labels, as drawn on the screen: names keep 14 px up to 12 teams and
# 12 px where 13-32 share the rim; 64 teams are labelled by their numbers, which stay 11 px
# (read from the back of a hall, and 64 of them still fit around the rim uncut).
MIN_LABEL_PX = {8: 14, 24: 12, 64: 11}

MEASURE = """() => {
  const vw = innerWidth, vh = innerHeight, d = document.documentElement;
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const boxes = [...document.querySelectorAll(
      '.kp-row, .kp-label, .kp-panel > *, .kp-legend, .kp-winner-card, .kp-countdown, .kp-reveal')]
    .filter(visible).map(e => { const r = e.getBoundingClientRect();
      return {cls: e.className.baseVal ?? e.className, l: r.left, t: r.top, r: r.right, b: r.bottom}; });
  const out = boxes.filter(b => b.l < -0.5 || b.t < -0.5 || b.r > vw + 0.5 || b.b > vh + 0.5);
  const names = [...document.querySelectorAll('.kp-row[data-team] .kp-name-text')];
  const standings = document.getElementById('koth-standings');
  const panel = document.querySelector('.kp-panel');
  const legend = document.getElementById('koth-legend').getBoundingClientRect();
  const covered = [...document.querySelectorAll('#koth-board .kp-label')].filter(e => {
      const r = e.getBoundingClientRect();
      return r.left < legend.right && legend.left < r.right && r.top < legend.bottom && legend.top < r.bottom;
    }).map(e => e.dataset.team);
  // an SVG label's font is in the board's user units: on the screen it is scaled with the board
  const labels = [...document.querySelectorAll('#koth-board .kp-label')];
  const drawn = labels.map(e => parseFloat(getComputedStyle(e).fontSize) * e.getScreenCTM().a);
  return {
    out, covered,
    labelFont: Math.min(...drawn), labels: labels.length,
    // the standings' head squeezed below its own text, its rule drawn through «№ Команда»
    headsSquashed: [...document.querySelectorAll('.kp-row.kp-head')]
      .filter(e => e.scrollHeight > e.clientHeight + 1).length,
    labelsOverlap: labels.flatMap((a, i) => labels.slice(i + 1).filter(b => {
        const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
        return p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom;
      }).map(b => [a.dataset.team, b.dataset.team])),
    labelsCut: labels.filter(e => [...e.querySelectorAll('tspan')].some(t => t.textContent.includes('\u2026')))
      .map(e => e.dataset.team),
    scroll: [d.scrollWidth - vw, d.scrollHeight - vh, document.body.scrollWidth - vw],
    nameFont: Math.min(...names.map(e => parseFloat(getComputedStyle(e).fontSize))),
    names: names.length,
    standingsOverflow: standings.scrollHeight - standings.clientHeight,
    panelOverflow: panel.scrollHeight - panel.clientHeight,
  };
}"""


def open_harness(page, base: str, state: dict) -> None:
    """The projector page for ``state`` (served as the real view renders it), drawn."""
    html = render_projector(state)
    page.route("**/projector-harness", lambda route: route.fulfill(
        body=html, content_type="text/html; charset=utf-8"))
    page.goto(base + "/projector-harness")
    page.wait_for_function("() => document.querySelectorAll('#koth-board .kp-label').length > 0")


def fits(page, n: int, where: str) -> dict:
    size = page.evaluate(MEASURE)
    assert size["out"] == [], (where, size["out"][:5])
    assert max(size["scroll"]) <= 0, (where, size)
    assert size["covered"] == [], (where, "the legend covers", size["covered"])
    # the page fits rows to the pixel, as it measures them (sub-pixel rounding: 1 px)
    assert size["standingsOverflow"] <= 1 and size["panelOverflow"] <= 1, (where, size)
    assert size["names"] == n, where
    assert size["nameFont"] >= MIN_NAME_PX[n], (where, size["nameFont"])
    assert size["labels"] == n, where
    assert size["labelFont"] >= MIN_LABEL_PX[n], (where, size["labelFont"])
    assert size["labelsOverlap"] == [], (where, size["labelsOverlap"][:5])
    assert size["headsSquashed"] == 0, (where, size)
    return size


@pytest.mark.slow
def test_the_projector_fits_three_screens_with_8_24_and_64_teams(asgi_server, new_page):
    shots = artifacts_dir()
    page = new_page(viewport={"width": 1920, "height": 1080})
    page.emulate_media(reduced_motion="reduce")  # measure rows where they land, not mid-slide
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    html = {"body": ""}
    page.route("**/projector-harness", lambda route: route.fulfill(
        body=html["body"], content_type="text/html; charset=utf-8"))
    version = 1
    for n in (8, 24, 64):
        mid = mid_game_state(n)
        # a running countdown and, for the 8 teams, a revealed previous question
        mid["question"]["countdown"] = {
            "seconds": 60, "ends_at": (datetime.now(UTC) + timedelta(seconds=45)).isoformat()}
        html["body"] = render_projector(mid, version)
        page.goto(asgi_server + "/projector-harness")
        page.wait_for_function("() => document.querySelectorAll('#koth-board .kp-slope').length > 0")
        for width, height in SIZES:
            where = f"{n} teams at {width}x{height}"
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(f"document.getElementById('koth-projector').style.getPropertyValue('--k') === "
                                   f"'{round(max(0.6, min(1, width / 1920, height / 1080)), 3)}'")
            fits(page, n, where)
            countdown = page.locator("#koth-countdown")
            assert countdown.is_visible() and int(countdown.get_attribute("data-left")) > 30, where
            assert page.locator("#koth-legend").is_visible(), where
            assert page.locator("#koth-fullscreen").is_visible(), where
            page.screenshot(path=str(shots / f"projector-{n}-{width}x{height}.png"))
        # the finished game: the winner card fits at every size
        version += 1
        apply(page, finished_state(n), version)
        for width, height in SIZES:
            where = f"winner, {n} teams at {width}x{height}"
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(f"document.getElementById('koth-projector').style.getPropertyValue('--k') === "
                                   f"'{round(max(0.6, min(1, width / 1920, height / 1080)), 3)}'")
            fits(page, n, where)
            card = page.locator(".kp-winner-card").bounding_box()
            board = page.locator(".kp-board-wrap").bounding_box()
            assert card["x"] >= board["x"] and card["x"] + card["width"] <= board["x"] + board["width"], where
            assert card["y"] >= 0 and card["y"] + card["height"] <= height, where
            name = page.locator("#koth-winner-name")
            assert name.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), where
            page.screenshot(path=str(shots / f"projector-winner-{n}-{width}x{height}.png"))
        version += 1
    assert errors == []


@pytest.mark.parametrize("n", [8, 64])
def test_the_boards_team_labels_are_legible_on_a_small_projector(asgi_server, new_page, n):
    page = new_page(viewport={"width": 1024, "height": 768})
    open_harness(page, asgi_server, mid_game_state(n))
    size = fits(page, n, f"{n} teams at 1024x768")
    # Larger labels did not cost the names: every one is whole.
    assert size["labelsCut"] == [], size["labelsCut"]
    page.screenshot(path=str(artifacts_dir() / f"projector-labels-{n}-1024x768.png"))


# The board is laid out for the box it has now (render() notes the box it used in data-box).
BOARD_LAID_OUT = """() => {
  const board = document.getElementById('koth-board'), r = board.getBoundingClientRect();
  return board.dataset.box === Math.round(r.width) + 'x' + Math.round(r.height);
}"""


def laid_out(page) -> None:
    """Until the board is drawn for its present box and nothing on the page moves."""
    page.wait_for_function(BOARD_LAID_OUT, timeout=15000)
    animations_done(page)


def with_names(state: dict, names) -> dict:
    """``state`` with its teams renamed, in order, to ``names``."""
    renamed = dict(zip((t["name"] for t in state["teams"]), names, strict=True))
    board = state["board"]
    return {**state,
            "teams": [{**t, "name": renamed[t["name"]]} for t in state["teams"]],
            "board": {**board, "king": renamed[board["king"]],
                      "teams": [{**r, "team": renamed[r["team"]]} for r in board["teams"]],
                      "moves": []},
            "question": {**state["question"],
                         "revolutions": [renamed[t] for t in state["question"]["revolutions"]],
                         "jumps": [renamed[t] for t in state["question"]["jumps"]]}}


@pytest.mark.parametrize("shown", [False, True], ids=["board", "under-a-shown-question"])
def test_the_demo_teams_names_are_whole_and_14_px_on_a_small_projector(asgi_server, new_page,
                                                                      shown):
    # «Выдры», on the left rim, lacked a fraction of a unit at 14 px and came out «Выд…».
    state = with_names(mid_game_state(8), DEMO_TEAMS)
    if shown:  # the question's card above the board draws the board smaller
        state["shown"] = {"question": {"number": 13, "text": "Кто основал Московский университет?",
                                       "image": None}}
    page = new_page(viewport={"width": 1024, "height": 768})
    open_harness(page, asgi_server, state)
    if shown:
        assert page.locator("#koth-shown").is_visible()
    size = fits(page, 8, "the demo's 8 teams at 1024x768")
    assert size["labelsCut"] == [], size["labelsCut"]
    labels = page.locator("#koth-board .kp-label")
    assert [labels.nth(i).evaluate("e => [...e.querySelectorAll('tspan')].map(t => t.textContent)"
                                   ".join(' ')") for i in range(8)] == list(DEMO_TEAMS)


@pytest.mark.parametrize("width,height", [(1024, 768), (1920, 1080)])
def test_the_board_is_drawn_again_when_a_shown_pictures_card_grows_above_it(
        asgi_server, new_page, width, height):
    # The picture loads after the state that shows it: the card above the board grows and the
    # board's box shrinks with no new state and no window resize. Drawn for its old box, the
    # labels came out at 8 px.
    state = with_names(mid_game_state(8), DEMO_TEAMS)
    state["shown"] = {"question": {
        "number": 13, "image": None,
        "text": "Кто основал Московский университет? На портрете — он, в 1757 году."}}
    page = new_page(viewport={"width": width, "height": height})
    page.route("**/portrait.png", lambda route: route.fulfill(body=png(1200, 900),
                                                              content_type="image/png"))
    open_harness(page, asgi_server, state)
    laid_out(page)
    before = page.locator("#koth-board").bounding_box()
    with_picture = {**state, "shown": {"question": {**state["shown"]["question"],
                                                   "image": "/portrait.png"}}}
    apply(page, with_picture, 2)
    page.wait_for_function(PICTURE_SHOWN)
    laid_out(page)
    assert page.locator("#koth-board").bounding_box()["height"] < before["height"] - 100
    size = fits(page, 8, f"the demo's 8 teams under a picture at {width}x{height}")
    assert size["labelsCut"] == [], size["labelsCut"]
    # the picture gives way to the question's text, never the text to the picture (at
    # 1920x1080 the text was cut to its first line, «…На портрете — он, в»)
    text = page.locator("#koth-shown [data-shown=text]")
    assert text.evaluate("e => e.scrollHeight <= e.clientHeight + 1"), text.bounding_box()
    page.screenshot(path=str(artifacts_dir() / f"projector-picture-8-{width}x{height}.png"))


def test_a_revealed_question_and_its_answer_show_after_the_close(asgi_server, new_page):
    state = mid_game_state(24)
    state["question"] = {**state["question"], "phase": "declaring", "answered": 0, "countdown": None}
    state["reveal"] = {"number": 12, "text": "Кто написал «Евгения Онегина»? " * 8,
                       "answer_key": "Пушкин", "variants": []}
    page = new_page(viewport={"width": 1024, "height": 768})
    open_harness(page, asgi_server, state)
    reveal = page.locator("#koth-reveal")
    assert reveal.is_visible()
    assert "Вопрос 12" in reveal.inner_text() and "Ответ: Пушкин" in reveal.inner_text()
    assert page.locator("#koth-countdown").is_hidden()
    fits(page, 24, "reveal at 1024x768")
    page.screenshot(path=str(artifacts_dir() / "projector-reveal-24-1024x768.png"))
    apply(page, {**state, "reveal": None}, 2)
    assert reveal.is_hidden()
