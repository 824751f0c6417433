"""The host's whole evening in real Chromium, in Russian: one game of the demo's eight teams, the
host's console at 1366x768, the projector at 1024x768 (the smallest hall's) and three phones
at 390x844; the other five teams answer from their phones through the server, unseen. The host
shows a question with a picture on the phones and the projector, runs its countdown, pauses
and extends it (the phones and the projector follow), accepts the merge the console suggests
by its key, judges and closes; then accepts one team's appeal after its preview and rejects
another's with an answer, which that team's phone shows."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.roles import HOST, ORGANIZER
from kingofhill import services
from kingofhill.demo import DEMO_TEAMS
from kingofhill.models import Answer, Appeal
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_appeals import appeal
from tests.e2e.test_koth_live import PHONE, WAIT, answer, open_phone, with_session
from tests.e2e.test_koth_projector_sizes import fits, laid_out
from tests.e2e.test_koth_question_screens import PICTURE_FITS, PICTURE_SHOWN
from tests.e2e.test_koth_timer import paused_left, shows_paused
from tests.e2e.waits import counted_down
from tests.images import png
from tests.kingofhill.conftest import join_session, make_teams, make_user

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTION = "Кто основал Московский университет? На портрете — он, в 1757 году."
# What each team answers: the three on phones in the hall, the others through the server.
ON_PHONES = {"Совы": "Ломоносов", "Еноты": "Менделеев", "Лисы": "Михайло Васильевич"}
THROUGH_THE_SERVER = {"Рыси": "Ломоносов", "Барсуки": "Ломоносав", "Ежи": "М. Ломоносов",
                      "Бобры": "Lomonosov", "Выдры": "Пушкин"}


def the_group(console, text: str):
    return console.locator("#groups > li").filter(has=console.locator(
        ".koth-group-text", has_text=text))


def answer_through_the_api(new_page, base: str, koth, entry, text: str) -> None:
    """A team's phone that answers without a page: its session, the CSRF cookie a page's load
    sets, and the answer's POST to the real server."""
    client = Client()
    join_session(client, entry)
    request = with_session(new_page(viewport=PHONE), base, client).context.request
    assert request.get(f"{base}/koth/{koth.pk}/play/").ok
    csrf = next(c["value"] for c in request.storage_state()["cookies"] if c["name"] == "csrftoken")
    sent = request.post(f"{base}/koth/api/games/{koth.pk}/answer/",
                        data={"text": text, "client_id": str(uuid.uuid4())},
                        headers={"X-CSRFToken": csrf, "Referer": base + "/"})
    assert sent.ok, sent.text()


@pytest.mark.slow
def test_the_hosts_evening_on_the_console_the_projector_and_the_phones(asgi_server, new_page):
    organizer = make_user("organizer-evening", ORGANIZER)
    host_user = make_user("host-evening", HOST)
    game = Game.objects.create(title="Царь Горы: вечер", format="kingofhill",
                               starts_at=timezone.now() + timedelta(hours=1))
    entries = dict(zip(DEMO_TEAMS, make_teams(game, list(DEMO_TEAMS), organizer), strict=True))
    koth = services.koth_create(actor=organizer, game=game, summit=5, main_questions=10,
                                reserve_questions=0)
    services.host_assign(actor=organizer, game=koth, user=host_user)
    services.game_start(actor=host_user, game=koth)
    shots = artifacts_dir()
    errors: list[str] = []

    client = Client()
    client.force_login(host_user)
    console = with_session(new_page(viewport={"width": 1366, "height": 768}), asgi_server, client)
    projector = new_page(viewport={"width": 1024, "height": 768})
    for page in (console, projector):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    console.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    projector.goto(f"{asgi_server}/koth/{koth.pk}/projector/")
    for page in (console, projector):
        expect(page.locator("#live-status")).to_have_attribute("data-status", "online",
                                                               timeout=WAIT)
    phones = {name: open_phone(new_page, asgi_server, koth, entries[name]) for name in ON_PHONES}
    for phone in phones.values():
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
    expect(console.locator("#presence")).to_contain_text("3 из 8", timeout=WAIT)

    # --- the question, with its picture, on the phones and the projector at once
    console.fill("#q-text", QUESTION)
    console.fill("#q-key", "Ломоносов")
    console.set_input_files("#q-image", files=[{"name": "portrait.png", "mimeType": "image/png",
                                                "buffer": png(1200, 900)}])
    console.select_option("#q-show-phones", "announce")
    console.click("#announce")
    for page in (*phones.values(), projector):
        shown = page.locator("#koth-shown")
        expect(shown).to_have_attribute("data-stage", "question", timeout=WAIT)
        expect(shown.locator("[data-shown=text]")).to_have_text(QUESTION)
        page.wait_for_function(PICTURE_SHOWN, timeout=WAIT)
    console.wait_for_function("() => document.getElementById('current-image').naturalWidth > 0",
                              timeout=WAIT)
    # every team's name on the board is whole and at least 14 px under the question's card
    laid_out(projector)
    size = fits(projector, 8, "8 teams at 1024x768 under a shown question")
    assert size["labelsCut"] == [], size["labelsCut"]

    # --- the countdown: started, paused by key, extended by key, resumed
    console.fill("#countdown-seconds", "45")  # paused and extended, it stays under a minute
    console.click("#countdown-start")
    counted_down(phones["Совы"], "#countdown", 45)
    console.keyboard.press("Space")
    expect(console.locator("#countdown-pause")).to_have_attribute("data-paused", "true",
                                                                  timeout=WAIT)
    left = paused_left(koth)
    for page, selector in ((phones["Совы"], "#countdown"), (phones["Лисы"], "#countdown"),
                           (projector, "#koth-countdown")):
        shows_paused(page, selector, left)
    console.keyboard.press("Equal")
    for page, selector in ((phones["Совы"], "#countdown"), (projector, "#koth-countdown"),
                           (console, "#countdown")):
        shows_paused(page, selector, left + 10)
    projector.screenshot(path=str(shots / "koth-evening-projector-paused-1024x768.png"))
    console.click("#countdown-pause")
    for page, selector in ((phones["Еноты"], "#countdown"), (projector, "#koth-countdown")):
        expect(page.locator(selector)).not_to_have_attribute("data-paused", "true", timeout=WAIT)
        counted_down(page, selector, left + 10)

    # --- the answers: three from the hall's phones, five through the server
    for name, text in ON_PHONES.items():
        answer(phones[name], text)
    for name, text in THROUGH_THE_SERVER.items():
        answer_through_the_api(new_page, asgi_server, koth, entries[name], text)
    expect(console.locator("#groups > li")).to_have_count(7, timeout=WAIT)
    phones["Совы"].screenshot(path=str(shots / "koth-evening-phone-390x844.png"))

    # --- the suggested merge, by its key: the four ways of writing Lomonosov become one group
    suggestion = console.locator(".koth-suggestion")
    expect(suggestion).to_have_count(1)
    expect(suggestion).to_contain_text("Тот же ответ?")
    console.locator("h1").click()  # out of the question's fields: keys are shortcuts again
    console.keyboard.press("m")
    expect(console.locator("#groups > li")).to_have_count(4, timeout=WAIT)
    lomonosov = the_group(console, "Ломоносав")
    expect(lomonosov).to_contain_text("× 5")
    # a merge is not a verdict: the key's own form is marked correct, the others not yet
    expect(lomonosov).to_have_attribute("data-verdict", "mixed")
    console.screenshot(path=str(shots / "koth-evening-console-1366x768.png"))

    # --- the verdicts, by key and by button, and the close
    console.keyboard.press("1")  # the largest group comes first
    expect(lomonosov).to_have_attribute("data-verdict", "true", timeout=WAIT)
    for text in ("Менделеев", "Михайло Васильевич", "Пушкин"):
        the_group(console, text).locator(".koth-no").click()
        expect(the_group(console, text)).to_have_attribute("data-verdict", "false", timeout=WAIT)
    console.click("#close")
    for page in (*phones.values(), projector):
        shown = page.locator("#koth-shown")
        expect(shown).to_have_attribute("data-stage", "after", timeout=WAIT)
        expect(shown.locator("[data-shown=answer]")).to_contain_text("Ломоносов")
        expect(shown.locator("[data-shown=share]")).to_contain_text("5 из 8")
        page.wait_for_function(PICTURE_SHOWN if page is projector else PICTURE_FITS,
                               timeout=WAIT)
    for name, verdict in (("Совы", "correct"), ("Еноты", "incorrect"), ("Лисы", "incorrect")):
        expect(phones[name].locator("#last-move")).to_have_attribute("data-verdict", verdict,
                                                                     timeout=WAIT)

    # --- two appeals: one accepted after its preview, one rejected with an answer
    appeal(phones["Лисы"], "Михайло Васильевич — это и есть Ломоносов")
    appeal(phones["Еноты"], "Менделеев тоже из Московского университета")
    cards = console.locator("#appeals li")
    expect(cards).to_have_count(2, timeout=WAIT)
    accepted = Appeal.objects.get(application=entries["Лисы"])
    rejected = Appeal.objects.get(application=entries["Еноты"])
    card = console.locator(f'li[data-appeal="{accepted.pk}"]')
    expect(card).to_contain_text("Вопрос 1 · Лисы: «Михайло Васильевич — это и есть Ломоносов»")
    card.locator(".koth-appeal-accept").click()
    preview = card.locator("#past-confirm")
    expect(preview).to_contain_text("Принимая апелляцию Лисы", timeout=WAIT)
    assert Answer.objects.get(application=entries["Лисы"]).verdict is False  # only previewed
    preview.locator("#past-confirm-apply").click()
    expect(card).to_have_count(0, timeout=WAIT)

    answer_to_them = "Университет основан по проекту Ломоносова, ответ — его фамилия."
    card = console.locator(f'li[data-appeal="{rejected.pk}"]')
    card.locator(".koth-appeal-reject").click()
    # without an answer the console asks for one, next to the appeal
    expect(card.locator("#past-confirm")).to_contain_text("почему", timeout=WAIT)
    card.locator("input[data-appeal]").fill(answer_to_them)
    card.locator(".koth-appeal-reject").click()
    expect(console.locator("#appeals-box")).to_be_hidden(timeout=WAIT)
    history = console.locator('details[data-question="1"]')
    history.locator("summary").click()
    expect(history.locator('.koth-appeal-state[data-status="accepted"]')).to_contain_text("Лисы")
    expect(history.locator('.koth-appeal-state[data-status="rejected"]')).to_contain_text(
        answer_to_them)

    foxes = phones["Лисы"]
    expect(foxes.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')).to_have_text(
        "Апелляция принята: вердикт изменён.", timeout=WAIT)
    expect(foxes.locator('#history tr[data-number="1"]')).to_have_attribute("data-verdict",
                                                                           "correct")
    raccoons = phones["Еноты"]
    note = raccoons.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')
    expect(note).to_have_text(f"Апелляция отклонена: {answer_to_them}", timeout=WAIT)
    expect(note).to_be_in_viewport(ratio=1)
    # The team's history fits the phone: its points column is in view, not scrolled away.
    assert raccoons.locator("#history-box .table-scroll").evaluate(
        "box => box.scrollWidth <= box.clientWidth")
    raccoons.screenshot(path=str(shots / "koth-evening-phone-appeal-390x844.png"))
    # Rows may still be gliding to their new places: the picture shows where they land.
    projector.screenshot(path=str(shots / "koth-evening-projector-1024x768.png"),
                         animations="disabled")
    assert errors == []
