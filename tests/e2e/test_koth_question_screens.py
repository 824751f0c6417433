"""A question with a picture on every screen, in real Chromium over the real server: the host
announces it from the console with an uploaded picture, the phones (390×844) and the projector
(1920×1080 and 1024×768) show its text and picture at once; after the close they show the
accepted answer and how many teams got it right. Screenshots go to artifacts/."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from kingofhill import services
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import (
    answer,
    evening,  # noqa: F401 - the fixture: a game, 3 teams
    open_phone,
    with_session,
)
from tests.images import png

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
WAIT = 15000
PROJECTORS = ({"width": 1920, "height": 1080}, {"width": 1024, "height": 768})

# The picture has loaded (a broken one has no natural size) and lies inside the window.
PICTURE_SHOWN = """() => {
    const img = document.querySelector('#koth-shown [data-shown=image]');
    if (!img || img.hidden || !img.complete || !img.naturalWidth) return false;
    const r = img.getBoundingClientRect();
    return r.width > 50 && r.height > 30 && r.left >= 0 && r.top >= 0
        && r.right <= window.innerWidth && r.bottom <= window.innerHeight;
}"""


# After the close the phone keeps its picture under the declarations, scrolled to.
PICTURE_FITS = """() => {
    const img = document.querySelector('#koth-shown [data-shown=image]');
    if (!img || img.hidden || !img.complete || !img.naturalWidth) return false;
    const r = img.getBoundingClientRect();
    return r.width > 50 && r.width <= window.innerWidth && r.height <= window.innerHeight;
}"""


def fits_the_window(page) -> bool:
    return page.evaluate("""() => document.documentElement.scrollWidth <= window.innerWidth
        && document.documentElement.scrollHeight <= window.innerHeight""")


@pytest.mark.slow
def test_a_question_with_a_picture_shows_on_the_phones_and_the_projector_then_its_answer(
        asgi_server, new_page, evening):  # noqa: F811 - the fixture imported above
    koth, host_user, (alpha, beta, gamma) = evening
    services.game_start(actor=host_user, game=koth)
    shots = artifacts_dir()
    host_client = Client()
    host_client.force_login(host_user)
    host = with_session(new_page(), asgi_server, host_client)
    errors: list[str] = []
    host.on("pageerror", lambda exc: errors.append(str(exc)))
    host.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(host.locator("#live-status")).to_have_attribute("data-status", "online", timeout=WAIT)
    projectors = []
    for viewport in PROJECTORS:
        projector = new_page(viewport=viewport)
        projector.on("pageerror", lambda exc: errors.append(str(exc)))
        projector.goto(f"{asgi_server}/koth/{koth.pk}/projector/")
        expect(projector.locator("#live-status")).to_have_attribute("data-status", "online",
                                                                    timeout=WAIT)
        projectors.append(projector)
    phones = [open_phone(new_page, asgi_server, koth, e) for e in (alpha, beta, gamma)]
    for phone in phones:
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        expect(phone.locator("#koth-shown")).to_be_hidden()

    question = "Чей это портрет? Художник писал его в 1827 году, в Москве."
    host.fill("#q-text", question)
    host.fill("#q-key", "Пушкин")
    host.set_input_files("#q-image", files=[{"name": "portrait.png", "mimeType": "image/png",
                                             "buffer": png(1600, 1200)}])
    host.select_option("#q-show-phones", "announce")
    host.click("#announce")

    for page in (*phones, *projectors):
        box = page.locator("#koth-shown")
        expect(box).to_have_attribute("data-stage", "question", timeout=WAIT)
        expect(box.locator("[data-shown=text]")).to_have_text(question)
        page.wait_for_function(PICTURE_SHOWN, timeout=WAIT)
    # the host keeps the picture in view with the question's key
    host.wait_for_function("() => document.getElementById('current-image').naturalWidth > 0",
                           timeout=WAIT)
    # The phone keeps the answer form on its first screen under the picture.
    send = phones[0].locator("#answer-send")
    expect(send).to_be_in_viewport(ratio=1)
    assert fits_the_window(projectors[0]) and fits_the_window(projectors[1])
    phones[0].screenshot(path=str(shots / "koth-question-phone-390x844.png"))
    for projector, viewport in zip(projectors, PROJECTORS, strict=True):
        projector.screenshot(path=str(
            shots / f"koth-question-projector-{viewport['width']}x{viewport['height']}.png"))

    answer(phones[0], "Пушкин")
    answer(phones[1], "Лермонтов")
    expect(host.locator("#groups li")).to_have_count(2, timeout=WAIT)
    host.locator("h1").click()  # leave the text field: keys are shortcuts again
    host.keyboard.press("Shift+Digit2")
    expect(host.locator("#groups li").nth(1)).to_have_attribute("data-verdict", "false",
                                                                timeout=WAIT)
    host.click("#close")

    for page in (*phones, *projectors):
        box = page.locator("#koth-shown")
        expect(box).to_have_attribute("data-stage", "after", timeout=WAIT)
        expect(box).to_have_attribute("data-number", "1")
        expect(box.locator("[data-shown=answer]")).to_contain_text("Пушкин")
        expect(box.locator("[data-shown=share]")).to_contain_text("1 из 3")
        page.wait_for_function(PICTURE_SHOWN if page in projectors else PICTURE_FITS,
                               timeout=WAIT)
    # the declarations for the next question come first on the phone, the answer under them
    assert phones[2].locator("#declare-box").bounding_box()["y"] < \
        phones[2].locator("#koth-shown").bounding_box()["y"]
    phones[2].locator("#koth-shown").scroll_into_view_if_needed()
    # the host's reveal card would say the same answer again: it stays hidden
    expect(projectors[0].locator("#koth-reveal")).to_be_hidden()
    phones[2].screenshot(path=str(shots / "koth-question-after-phone-390x844.png"))
    for projector, viewport in zip(projectors, PROJECTORS, strict=True):
        assert fits_the_window(projector)
        projector.screenshot(path=str(
            shots / f"koth-question-after-projector-{viewport['width']}x{viewport['height']}.png"))
    assert errors == []
