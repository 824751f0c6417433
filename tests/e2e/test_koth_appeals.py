"""Appeals in real Chromium, in Russian: two phones appeal their verdicts on the question just
closed; the host accepts one (after the preview of what the flip changes) and rejects the other
with an answer; each phone shows its outcome live."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import expect

from kingofhill import appeals
from kingofhill.models import Answer, Appeal
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, open_phone, with_session
from tests.e2e.test_koth_past import started
from tests.kingofhill.play import play

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def appeal(phone, text):
    row = phone.locator('#history tr[data-number="1"]')
    row.locator(".koth-appeal-open").click()
    expect(phone.locator("#appeal-label")).to_contain_text("Вопрос 1: почему вердикт неверен?")
    # Blank text is refused under the form, in Russian, and the form stays to be filled.
    phone.locator("#appeal-text").fill("   ")
    phone.locator("#appeal-send").click()
    expect(phone.locator("#appeal-error")).to_contain_text("почему вердикт неверен",
                                                           timeout=WAIT)
    expect(phone.locator("#koth-error")).to_be_hidden()
    phone.locator("#appeal-text").fill(text)
    phone.locator("#appeal-send").click()
    note = phone.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')
    expect(note).to_have_attribute("data-status", "open", timeout=WAIT)
    expect(phone.locator("#appeal-form")).to_be_hidden()


def test_the_host_accepts_one_appeal_after_its_preview_and_rejects_another_with_an_answer(
        asgi_server, new_page):
    organizer, game, koth, (alpha, beta, gamma) = started("appeals", "Царь Горы: апелляции")
    play(koth, organizer, {alpha: False, beta: False, gamma: True})

    alpha_phone = open_phone(new_page, asgi_server, koth, alpha)
    beta_phone = open_phone(new_page, asgi_server, koth, beta)
    appeal(alpha_phone, "Пушкин — тоже верный ответ")
    appeal(beta_phone, "Мы написали правильно")

    client = Client()
    client.force_login(organizer)
    host = with_session(new_page(), asgi_server, client)
    host.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    appeals = host.locator("#appeals li")
    expect(appeals).to_have_count(2, timeout=WAIT)
    expect(appeals.nth(0)).to_contain_text("Вопрос 1 · Alpha: «Пушкин — тоже верный ответ»")
    first, second = Appeal.objects.order_by("pk")

    # Accept: the console previews what the flip moves, in place, before anything changes.
    host.locator(f'li[data-appeal="{first.pk}"] .koth-appeal-accept').click()
    asked = host.locator(f'li[data-appeal="{first.pk}"] #past-confirm')
    expect(asked).to_contain_text("Принимая апелляцию Alpha", timeout=WAIT)
    assert Answer.objects.get(question__number=1, application=alpha).verdict is False
    asked.locator("#past-confirm-apply").click()
    expect(host.locator(f'li[data-appeal="{first.pk}"]')).to_have_count(0, timeout=WAIT)

    # Reject: an empty answer is refused next to the appeal; with one it goes.
    rejected = host.locator(f'li[data-appeal="{second.pk}"]')
    rejected.locator(".koth-appeal-reject").click()
    expect(rejected.locator("#past-confirm")).to_contain_text("почему", timeout=WAIT)
    rejected.locator("input[data-appeal]").fill("В вопросе просили фамилию поэта.")
    rejected.locator(".koth-appeal-reject").click()
    expect(host.locator("#appeals-box")).to_be_hidden(timeout=WAIT)
    history = host.locator('details[data-question="1"]')
    history.locator("summary").click()
    expect(history.locator('.koth-appeal-state[data-status="accepted"]')).to_contain_text("Alpha")
    expect(history.locator('.koth-appeal-state[data-status="rejected"]')).to_contain_text(
        "В вопросе просили фамилию поэта.")
    host.screenshot(path=str(artifacts_dir() / "koth-appeals-host.png"))

    # The phones show the outcomes live: Alpha's verdict is now correct.
    alpha_state = alpha_phone.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')
    expect(alpha_state).to_have_attribute("data-status", "accepted", timeout=WAIT)
    expect(alpha_state).to_contain_text("Апелляция принята")
    expect(alpha_phone.locator('#history tr[data-number="1"]')).to_have_attribute(
        "data-verdict", "correct")
    beta_state = beta_phone.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')
    expect(beta_state).to_have_attribute("data-status", "rejected", timeout=WAIT)
    expect(beta_state).to_contain_text("В вопросе просили фамилию поэта.")
    beta_phone.screenshot(path=str(artifacts_dir() / "koth-appeals-phone.png"))


# Where the appeal's note lies, with the history's table scrolled sideways by ``scroll`` px
# (a table wider than a phone scrolls inside its card; the note must stay whole in view).
NOTE_ON_THE_PHONE = """(scroll) => {
  const note = document.querySelector('#history .koth-appeal-state');
  const scroller = note.closest('.table-scroll');
  scroller.scrollLeft = scroll;
  const r = note.getBoundingClientRect(), box = scroller.getBoundingClientRect();
  return {inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.right <= innerWidth,
          lines: Math.round(r.height / parseFloat(getComputedStyle(note).lineHeight)),
          widens: note.scrollWidth > note.clientWidth,
          page: document.documentElement.scrollWidth - innerWidth};
}"""


@pytest.mark.parametrize("width", [320, 390])
def test_a_long_answer_to_an_appeal_wraps_whole_on_a_narrow_phone(asgi_server, new_page, width):
    organizer, game, koth, (alpha, beta, gamma) = started(f"appeal-{width}", "Царь Горы: ответ")
    play(koth, organizer, {alpha: False, beta: True, gamma: True})
    filed = appeals.appeal_file(game=koth, application=alpha, question=1,
                                text="Пушкин — тоже верный ответ")
    said = ("В вопросе просили фамилию автора поэмы, а не её героя; ответ «Онегин» "
            "засчитать нельзя, сверились с источником и с редактором пакета.")
    appeals.appeal_reject(actor=organizer, game=koth, appeal=filed.pk, answer=said)

    phone = open_phone(new_page, asgi_server, koth, alpha)
    phone.set_viewport_size({"width": width, "height": 844})
    note = phone.locator('#history tr[data-appeal-for="1"] .koth-appeal-state')
    expect(note).to_have_text(f"Апелляция отклонена: {said}", timeout=WAIT)
    for scroll in (0, 10_000):
        size = phone.evaluate(NOTE_ON_THE_PHONE, scroll)
        assert size["inside"] and not size["widens"] and size["page"] <= 0, (scroll, size)
        # wrapped across the card, not a word a line down a narrow column
        assert 1 < size["lines"] <= 8, (scroll, size)
    phone.screenshot(path=str(artifacts_dir() / f"koth-appeal-answer-{width}.png"), full_page=True)
