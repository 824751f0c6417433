"""The projector page in real Chromium at 1920×1080: the board, the summit, the standings.

The page is rendered from the real template with fake public states (tests/kingofhill/
projector_harness.py) and served from the real ASGI server so its static files load; new states
are then pushed the way the live socket does, through the shared live module's stream
(``Live.streams[0].receive``, js/live.js).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.conftest import artifacts_dir
from tests.e2e.waits import animations_done
from tests.kingofhill.projector_harness import (
    finished_state,
    mid_game_state,
    move,
    render_projector,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORT = {"width": 1920, "height": 1080}


@pytest.fixture
def open_projector(asgi_server, new_page):
    def open_(state: dict, version: int = 1):
        html = render_projector(state, version)
        page = new_page(viewport=VIEWPORT)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.route("**/projector-harness", lambda route: route.fulfill(body=html, content_type="text/html; charset=utf-8"))
        page.goto(asgi_server + "/projector-harness")
        page.wait_for_function("() => document.querySelectorAll('#koth-board .kp-slope').length > 0")
        page.errors = errors
        return page

    return open_


def apply(page, state: dict, version: int) -> None:
    page.evaluate("([v, s]) => window.Live.streams[0].receive({type: 'koth.state', version: v, state: s})",
                  [version, state])


def assert_fits_the_screen(page) -> None:
    size = page.evaluate("""() => {
        const d = document.documentElement, panel = document.querySelector('.kp-panel');
        const standings = document.getElementById('koth-standings');
        const rows = [...document.querySelectorAll('.kp-row, .kp-label, .kp-panel > *')].map(e => e.getBoundingClientRect());
        return {sw: d.scrollWidth, sh: d.scrollHeight, bw: document.body.scrollWidth, bh: document.body.scrollHeight,
                panelOverflow: panel.scrollHeight - panel.clientHeight,
                standingsOverflow: standings.scrollHeight - standings.clientHeight,
                right: Math.max(...rows.map(r => r.right)), bottom: Math.max(...rows.map(r => r.bottom)),
                left: Math.min(...rows.map(r => r.left)), top: Math.min(...rows.map(r => r.top))};
    }""")
    assert size["sw"] <= VIEWPORT["width"] and size["sh"] <= VIEWPORT["height"], size
    assert size["bw"] <= VIEWPORT["width"] and size["bh"] <= VIEWPORT["height"], size
    assert size["panelOverflow"] <= 0 and size["standingsOverflow"] <= 0, size
    assert size["right"] <= VIEWPORT["width"] and size["bottom"] <= VIEWPORT["height"], size
    assert size["left"] >= 0 and size["top"] >= 0, size


def label_overlaps(page) -> list:
    return page.evaluate("""() => {
        const boxes = [...document.querySelectorAll('#koth-board .kp-label')].map(
            e => [e.dataset.team, e.getBoundingClientRect()]);
        const hits = [];
        for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
            const [a, A] = boxes[i], [b, B] = boxes[j];
            if (A.left < B.right && B.left < A.right && A.top < B.bottom && B.top < A.bottom) hits.push([a, b]);
        }
        return hits;
    }""")


def token_centre_error(page, team: str) -> float:
    """How far (px) the token's drawn centre is from where the geometry puts its step."""
    return page.evaluate("""(team) => {
        const svg = document.getElementById('koth-board');
        const token = [...svg.querySelectorAll('.kp-token')].find(t => t.dataset.team === team);
        const slope = [...svg.querySelectorAll('.kp-slope')].find(s => s.dataset.team === team);
        const g = KothProjector.geometry(svg.querySelectorAll('.kp-slope').length, +svg.dataset.summit);
        const pos = g.tokenPos(+slope.dataset.index, +token.dataset.step);
        const p = svg.createSVGPoint(); p.x = pos.x; p.y = pos.y;
        const want = p.matrixTransform(svg.getScreenCTM());
        const r = token.querySelector('.kp-token-body').getBoundingClientRect();
        return Math.hypot(r.left + r.width / 2 - want.x, r.top + r.height / 2 - want.y);
    }""", team)


@pytest.mark.parametrize("n", [8, 24, 64])
def test_a_mid_game_board_for_n_teams(open_projector, n):
    state = mid_game_state(n)
    board, question = state["board"], state["question"]
    king = board["king"]
    page = open_projector(state)
    page.screenshot(path=str(artifacts_dir() / f"projector-{n}.png"))  # before asserting: look at failures too

    # one slope and one token per team, in registration order
    slopes = page.locator("#koth-board .kp-slope[data-team]")
    expect(slopes).to_have_count(n)
    assert slopes.evaluate_all("els => els.map(e => e.dataset.team)") == [t["name"] for t in state["teams"]]
    expect(page.locator("#koth-board .kp-token[data-team]")).to_have_count(n)

    # the King on the summit, with the crown and the hold counter
    expect(page.locator("#koth-summit")).to_have_attribute("data-king", king)
    expect(page.locator("#koth-king-name")).to_have_text(king)
    expect(page.locator("#koth-crown")).to_be_visible()
    expect(page.locator("#koth-king-holds")).to_have_attribute("data-holds", "1")
    expect(page.locator("#koth-king-holds .kp-pip")).to_have_count(3)
    expect(page.locator("#koth-king-holds .kp-pip.is-on")).to_have_count(1)
    expect(page.locator("#koth-king-holds-text")).to_have_text("держится 1 из 3")
    expect(page.locator("#koth-king-card")).to_have_attribute("data-king", king)
    king_token = page.locator(f'#koth-board .kp-token[data-team="{king}"]')
    expect(king_token).to_have_attribute("data-step", str(board["summit"]))
    expect(king_token).to_have_class("kp-token is-king")

    # revolutionaries: their slopes, tokens and flags are marked, and the panel says so
    rebels = question["revolutions"]
    assert rebels
    marked = page.locator("#koth-board .kp-slope.is-revolting").evaluate_all("els => els.map(e => e.dataset.team)")
    assert sorted(marked) == sorted(rebels)
    flagged = page.locator("#koth-board .kp-flag").evaluate_all("els => els.map(e => e.dataset.team)")
    assert sorted(flagged) == sorted(rebels)
    expect(page.locator("#koth-board .kp-token.is-revolting")).to_have_count(len(rebels))
    expect(page.locator("#koth-revolution")).to_be_visible()
    expect(page.locator("#koth-revolution")).to_contain_text("Революция!")
    for rebel in rebels:
        expect(page.locator("#koth-revolution-teams")).to_contain_text(rebel)

    # the question
    expect(page.locator("#koth-question")).to_have_attribute("data-phase", "answering")
    expect(page.locator("#koth-question-number")).to_have_text("Вопрос 13 из 30")
    expect(page.locator("#koth-phase")).to_have_text(f"Ответили: {question['answered']} из {n}")
    expect(page.locator("#koth-partner")).to_be_visible()

    # the standings, in order, with places, steps and points
    rows = page.locator("#koth-standings .kp-row[data-team]")
    expect(rows).to_have_count(n)
    shown = rows.evaluate_all("""els => els.map(e => [e.dataset.team, +e.dataset.place, +e.dataset.step,
                                 +e.dataset.points, e.querySelector('.kp-points').textContent])""")
    assert shown == [[r["team"], r["place"], r["step"], r["points"], str(r["points"])] for r in board["teams"]]
    expect(rows.first).to_have_class("kp-row is-king")
    expect(page.locator("#koth-winner")).to_be_hidden()

    # every token stands where its step is
    for row in board["teams"][:6]:
        assert token_centre_error(page, row["team"]) < 1.5

    assert_fits_the_screen(page)
    if n <= 24:
        assert label_overlaps(page) == []
        # names, not numbers, around the rim
        assert page.locator("#koth-board .kp-label tspan").first.text_content().startswith(state["teams"][0]["name"][:3])
    else:
        expect(page.locator("#koth-board .kp-label tspan").first).to_have_text("1")
        expect(page.locator("#koth-standings .kp-row[data-team] .kp-swatch").first).not_to_be_empty()
    expect(page.locator("#live-status")).to_have_attribute("data-status", "offline", timeout=10000)
    assert page.errors == []


@pytest.mark.parametrize("n", [8, 64])
def test_the_finished_game_shows_the_winner(open_projector, n):
    state = finished_state(n)
    winner = state["board"]["winner"]
    page = open_projector(state)
    banner = page.locator("#koth-winner")
    expect(banner).to_be_visible()
    animations_done(page)  # the banner's entrance
    page.screenshot(path=str(artifacts_dir() / ("projector-finished.png" if n == 8 else f"projector-finished-{n}.png")))
    expect(banner).to_have_attribute("data-winner", winner)
    expect(page.locator("#koth-winner-name")).to_have_text(winner)
    expect(page.locator("#koth-winner-reason")).to_have_text("Царь удержал Вершину три хода")
    expect(page.locator("#koth-question")).to_have_attribute("data-phase", "finished")
    expect(page.locator("#koth-question-number")).to_have_text("Игра окончена")
    expect(page.locator("#koth-revolution")).to_be_hidden()
    expect(page.locator("#koth-board .kp-flag")).to_have_count(0)
    expect(page.locator("#koth-king-holds")).to_have_attribute("data-holds", "3")
    expect(page.locator("#koth-standings .kp-row.is-winner")).to_have_attribute("data-team", winner)
    assert_fits_the_screen(page)
    assert page.errors == []


def test_tokens_glide_to_their_new_step_and_a_new_king_is_crowned(open_projector):
    state = mid_game_state(8)
    page = open_projector(state)
    rows = {r["team"]: r for r in state["board"]["teams"]}
    climber = next(t["name"] for t in state["teams"] if rows[t["name"]]["step"] <= 3)
    old_step = rows[climber]["step"]
    new_step = old_step + 2
    assert token_centre_error(page, climber) < 1.5

    # The token travels (a transition of its transform starts) rather than jumping. Asked of
    # the browser's event, not of where the token is 250 ms later: on a loaded machine the page
    # could be that late to look, and the 1.4 s glide nearly over.
    page.evaluate("""(team) => {
        const t = [...document.querySelectorAll('#koth-board .kp-token')].find(t => t.dataset.team === team);
        window.__glides = 0;
        t.addEventListener('transitionrun', (e) => { if (e.propertyName === 'transform') window.__glides += 1; });
    }""", climber)
    moved = move(state, climber, new_step, rows[climber]["points"] + 2)
    apply(page, moved, 2)
    token = page.locator(f'#koth-board .kp-token[data-team="{climber}"]')
    expect(token).to_have_attribute("data-step", str(new_step))
    page.wait_for_function("() => window.__glides > 0", timeout=5000)
    page.evaluate("""(team) => new Promise(done => {
        const t = [...document.querySelectorAll('#koth-board .kp-token')].find(t => t.dataset.team === team);
        t.addEventListener('transitionend', () => done(), {once: true});
        setTimeout(done, 4000);
    })""", climber)
    assert token_centre_error(page, climber) < 1.5
    # the same element moved (no redraw), so the audience sees one token travel
    expect(page.locator("#koth-board .kp-token")).to_have_count(8)
    row = page.locator(f'#koth-standings .kp-row[data-team="{climber}"]')
    expect(row).to_have_attribute("data-step", str(new_step))

    # a revolution succeeds: the rebel takes the summit, the old King steps down to S-1
    old_king = state["board"]["king"]
    rebel = state["question"]["revolutions"][0]
    summit = state["board"]["summit"]
    crowned = move(moved, rebel, summit, king=rebel,
                   question={"number": 14, "phase": "declaring", "partner": False, "answered": 0, "total": 8,
                             "revolutions": [], "jumps": []})
    apply(page, crowned, 3)
    expect(page.locator("#koth-summit")).to_have_attribute("data-king", rebel)
    expect(page.locator("#koth-summit")).to_have_class("kp-summit has-king is-new-king")
    expect(page.locator("#koth-king-name")).to_have_text(rebel)
    expect(page.locator("#koth-king-holds")).to_have_attribute("data-holds", "0")
    expect(page.locator(f'#koth-board .kp-token[data-team="{old_king}"]')).to_have_attribute("data-step", str(summit - 1))
    expect(page.locator("#koth-standings .kp-row[data-team]").first).to_have_attribute("data-team", rebel)
    expect(page.locator("#koth-question")).to_have_attribute("data-phase", "declaring")
    expect(page.locator("#koth-progress, .kp-progress")).to_be_hidden()
    expect(page.locator("#koth-revolution")).to_be_hidden()
    animations_done(page)  # the tokens' glide
    assert token_centre_error(page, rebel) < 1.5
    assert token_centre_error(page, old_king) < 1.5
    page.screenshot(path=str(artifacts_dir() / "projector-new-king.png"))
    assert page.errors == []


def test_geometry_helpers(open_projector):
    page = open_projector(mid_game_state(2))
    problems = page.evaluate("""() => {
        const out = [];
        for (const n of [2, 3, 8, 24, 64]) for (const S of [2, 7, 12]) {
            const g = KothProjector.geometry(n, S);
            for (let i = 0; i < n; i++) for (let s = 0; s < S; s++) {
                const p = g.tokenPos(i, s);
                const back = g.locate(p.x, p.y);
                if (back.slope !== i || back.step !== s) out.push(['locate', n, S, i, s, back]);
                if (!(p.r > 0) || p.r > g.ringW / 2) out.push(['ring', n, S, i, s, p.r]);
                const q = g.tokenPos((i + 1) % n, s);
                if (n > 1 && Math.hypot(p.x - q.x, p.y - q.y) < p.r + q.r) out.push(['touch', n, S, i, s]);
                if (s > 0 && Math.hypot(p.x, p.y) >= Math.hypot(g.tokenPos(i, s - 1).x, g.tokenPos(i, s - 1).y))
                    out.push(['inward', n, S, i, s]);
            }
            const k = g.tokenPos(0, S);
            if (Math.hypot(k.x, k.y) + k.r > g.r0) out.push(['summit', n, S]);
        }
        if (KothProjector.sizeClass(8) !== 's' || KothProjector.sizeClass(24) !== 'm' || KothProjector.sizeClass(64) !== 'l')
            out.push(['size']);
        if (KothProjector.format('{a} из {b}', {a: 1, b: 3}) !== '1 из 3') out.push(['format']);
        if (KothProjector.inkFor('#ffe119') !== '#000' || KothProjector.inkFor('#000075') !== '#fff') out.push(['ink']);
        return out;
    }""")
    assert problems == []


def test_before_the_first_question_and_without_a_king(open_projector):
    state = mid_game_state(12)
    state["game"]["status"] = "setup"
    state["board"].update(question=0, king=None, king_holds=0, teams=[], moves=[])
    state["question"] = None
    page = open_projector(state)
    expect(page.locator("#koth-board .kp-slope[data-team]")).to_have_count(12)
    expect(page.locator("#koth-summit")).to_have_attribute("data-king", "")
    expect(page.locator("#koth-crown")).to_be_hidden()
    expect(page.locator("#koth-question-number")).to_have_text("Игра скоро начнётся")
    expect(page.locator("#koth-king-card-name")).to_have_text("Вершина свободна")
    steps = page.locator("#koth-board .kp-token").evaluate_all("els => els.map(e => e.dataset.step)")
    assert steps == ["0"] * 12
    expect(page.locator("#koth-standings .kp-row[data-team]")).to_have_count(12)
    assert_fits_the_screen(page)
    assert label_overlaps(page) == []
    assert page.errors == []


@pytest.mark.parametrize(("n", "summit"), [(2, 2), (13, 12), (32, 7), (33, 3)])
def test_odd_boards_still_fit(open_projector, n, summit):
    state = mid_game_state(n, summit=summit, question=32)
    king = "Царь Горы с очень длинным названием команды"
    old = state["board"]["king"]
    for team in state["teams"]:
        if team["name"] == old:
            team["name"] = king
    for row in state["board"]["teams"]:
        if row["team"] == old:
            row["team"] = king
    state["board"]["king"] = king
    page = open_projector(state)
    expect(page.locator("#koth-board .kp-slope[data-team]")).to_have_count(n)
    expect(page.locator("#koth-standings .kp-row[data-team]")).to_have_count(n)
    expect(page.locator("#koth-question-number")).to_have_text("Резервный вопрос 2 из 5")
    # the King's name is shortened to stay inside the summit disc
    inside = page.evaluate("""() => {
        const disc = document.querySelector('#koth-summit .kp-summit-disc').getBoundingClientRect();
        const name = document.getElementById('koth-king-name').getBoundingClientRect();
        return name.width > 0 && name.left >= disc.left && name.right <= disc.right;
    }""")
    assert inside
    assert page.locator("#koth-king-name").text_content().startswith("Царь")
    assert_fits_the_screen(page)
    if n <= 32:
        assert label_overlaps(page) == []
    assert page.errors == []


def test_an_empty_state_does_not_break_the_page(open_projector):
    page = open_projector(mid_game_state(3))
    apply(page, {"game": {"id": 5, "title": "", "status": "setup", "summit": 7, "main_questions": 30,
                          "reserve_questions": 5}, "teams": [], "board": None, "question": None}, 2)
    expect(page.locator("#koth-board .kp-slope")).to_have_count(0)
    expect(page.locator("#koth-question-number")).to_have_text("Игра скоро начнётся")
    apply(page, mid_game_state(3), 3)
    expect(page.locator("#koth-board .kp-slope")).to_have_count(3)
    assert page.errors == []
