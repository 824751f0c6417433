"""Changing the past in real Chromium: the console asks right under the flipped answer, in
Russian, what a change does. On a finished, published game a flip re-opens it (cancelled, it
changes nothing; applied, the results page says the published results are out of date); on a
running game a flip ends it earlier, the questions that no longer count stay in the history,
and the exported record replays to the standings shown."""

from __future__ import annotations

import io
import json
import tempfile
import uuid
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from core.models import AuditEntry
from core.roles import ORGANIZER
from kingofhill import services
from kingofhill.models import Answer
from rating import services as rating_services
from teams.models import Game
from tests.conftest import artifacts_dir
from tests.e2e.test_koth_live import WAIT, with_session
from tests.kingofhill.conftest import make_teams, make_user
from tests.kingofhill.play import finish
from tests.kingofhill.test_past_changes import beta_revolts_on_q3

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def started(name: str, title: str):
    """A started game (summit 3) of Alpha, Beta and Gamma run by a new organizer."""
    organizer = make_user(f"organizer-{name}", ORGANIZER)
    game = Game.objects.create(title=title, format="kingofhill",
                               starts_at=timezone.now() - timedelta(hours=2))
    teams = make_teams(game, ["Alpha", "Beta", "Gamma"], organizer)
    koth = services.koth_create(actor=organizer, game=game, summit=3, main_questions=10,
                                reserve_questions=2)
    services.game_start(actor=organizer, game=koth)
    return organizer, game, koth, teams


def test_a_flip_that_re_opens_a_published_game_asks_first_then_marks_the_results_out_of_date(
        asgi_server, new_page):
    organizer, game, koth, (alpha, beta, gamma) = started("past", "Царь Горы: прошлое")
    finish(koth, organizer, alpha, beta, gamma)
    rating_services.results_publish(actor=organizer, game=game)
    jump = Answer.objects.get(question__koth=koth, question__number=2, application=alpha)

    client = Client()
    client.force_login(organizer)
    page = with_session(new_page(), asgi_server, client)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(page.locator("body")).to_have_attribute("data-phase", "finished")

    def flip():
        question = page.locator('details[data-question="2"]')
        if question.get_attribute("open") is None:
            question.locator("summary").click()
        question.locator(f'tr[data-answer="{jump.pk}"] button').click()
        # The question is asked right under the answer's row, not at the top of the page.
        asked = page.locator(f'tr[data-answer="{jump.pk}"] + tr #past-confirm')
        expect(asked).to_be_visible(timeout=WAIT)
        return asked

    # The current question's own partner mark is asked next to its checkbox. A click, not
    # ``check()``: the box goes back unticked as soon as the server asks (until applied), and a
    # fast server answers before Playwright looks at the box after its click.
    page.locator("#partner").click()
    marked = page.locator("label:has(#partner) + #past-confirm")
    expect(marked).to_contain_text("опубликовать их заново", timeout=WAIT)
    marked.locator("#past-confirm-cancel").click()
    expect(page.locator("#past-confirm")).to_have_count(0)
    expect(page.locator("#partner")).not_to_be_checked()

    asked = flip()
    # The browser speaks Russian (as a hall's laptop would).
    expect(asked).to_contain_text("Меняется победитель: Alpha → пока никто.")
    expect(asked).to_contain_text("Завершённая игра возобновится")
    expect(asked).to_contain_text("опубликовать их заново")
    expect(page.locator("#koth-error")).to_be_hidden()
    # Cancelled: the verdict and the finished game stay as they were.
    asked.locator("#past-confirm-cancel").click()
    expect(page.locator("#past-confirm")).to_have_count(0)
    expect(page.locator("body")).to_have_attribute("data-phase", "finished")
    expect(page.locator(f'tr[data-answer="{jump.pk}"] td').nth(3)).to_have_text("Верно")
    assert Answer.objects.get(pk=jump.pk).verdict is True

    flip().locator("#past-confirm-apply").click()
    expect(page.locator("body")).to_have_attribute("data-phase", "declaring", timeout=WAIT)
    expect(page.locator(f'tr[data-answer="{jump.pk}"] td').nth(3)).to_have_text("Неверно")
    expect(page.locator("#past-confirm")).to_have_count(0)
    assert dialogs == []  # no browser dialog: the console asked in the page
    page.screenshot(path=str(artifacts_dir() / "koth-past-confirmed.png"))

    page.goto(f"{asgi_server}/rating/games/{game.pk}/")
    notice = page.locator("#results-outdated")
    expect(notice).to_contain_text("поле игры изменилось после их публикации")
    expect(notice).to_contain_text("Изменён вопрос 2")
    expect(notice).to_contain_text("«Обновить по игре»")


def test_a_flip_that_ends_the_game_earlier_names_the_questions_that_no_longer_count_then_ends_it(
        asgi_server, new_page):
    organizer, game, koth, (alpha, beta, gamma) = started("earlier", "Царь Горы: раньше")
    # Alpha takes the summit on q2, Beta deposes it by a revolution on q3 and holds it; q6 is
    # being answered when the host finds that Beta's q3 answer was wrong.
    beta_revolts_on_q3(koth, organizer, alpha, beta, gamma, played=5)
    services.question_announce(actor=organizer, game=koth, text="Шестой вопрос")
    sixth = services.answer_submit(game=koth, application=gamma, text="Тверь",
                                   client_id=uuid.uuid4())
    revolution = Answer.objects.get(question__koth=koth, question__number=3, application=beta)

    client = Client()
    client.force_login(organizer)
    page = with_session(new_page(), asgi_server, client)
    page.goto(f"{asgi_server}/koth/{koth.pk}/host/")
    expect(page.locator("body")).to_have_attribute("data-phase", "answering")
    third = page.locator('details[data-question="3"]')
    third.locator("summary").click()
    third.locator(f'tr[data-answer="{revolution.pk}"] button').click()

    asked = page.locator(f'tr[data-answer="{revolution.pk}"] + tr #past-confirm')
    expect(asked).to_contain_text(
        "Вопрос 6 больше не засчитывается: игра заканчивается после вопроса 5 "
        "(Царь удержал вершину); его ответы и вердикты остаются в истории и журнале изменений.",
        timeout=WAIT)
    expect(asked).to_contain_text("Меняется победитель: пока никто → Alpha.")
    expect(page.locator("#koth-error")).to_be_hidden()
    page.screenshot(path=str(artifacts_dir() / "koth-past-earlier-asked.png"))
    asked.locator("#past-confirm-apply").click()

    expect(page.locator("body")).to_have_attribute("data-phase", "finished", timeout=WAIT)
    expect(page.locator("#question-phase")).to_contain_text("Alpha")
    # Question 6 stays in the game's history, marked, with Gamma's answer.
    voided = page.locator('details[data-question="6"]')
    expect(voided).to_have_attribute("data-counts", "false")
    expect(voided.locator("summary")).to_contain_text("не засчитывается")
    voided.locator("summary").click()
    expect(voided.locator(f'tr[data-answer="{sixth.pk}"]')).to_contain_text("Тверь")
    page.screenshot(path=str(artifacts_dir() / "koth-past-earlier-done.png"))
    assert AuditEntry.objects.filter(game_id=koth.pk, action="kingofhill.verdict",
                                     after__answer=revolution.pk).exists()

    # The exported record replays to the standings the game shows.
    download = client.get(page.locator("#record-download").get_attribute("href"))
    assert download.status_code == 200
    record = json.loads(download.content)
    assert len(record["moves"]) == 5
    out = io.StringIO()
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(record, f)
        f.flush()
        call_command("replay", f.name, stdout=out)
    replayed = json.loads(out.getvalue())
    koth.refresh_from_db()
    assert replayed["teams"] == koth.board["teams"] and replayed["winner"] == "Alpha"
    shown = [row.locator("td").nth(1).inner_text()
             for row in page.locator("#standings tr").all()]
    assert shown == [t["team"] for t in replayed["teams"]]
