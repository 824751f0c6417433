"""Questions on the screens: who sees a question's text and picture when (the game's defaults,
a question's own choice, the host's reveal), the answer and the share of teams after the close,
the picture's checks, and a picture fetched only once its screen shows it."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from PIL import Image

from core.errors import DomainError
from kingofhill import rules, screens, selectors, services
from kingofhill.models import PreparedQuestion, Question, QuestionImage
from tests.images import phone_jpeg, png
from tests.kingofhill.conftest import join_session
from tests.kingofhill.play import announce, answer, judge_all

pytestmark = pytest.mark.django_db

PHOTO = ("image/png", png(16, 12))


def public(koth) -> dict:
    return selectors.read_state(koth, kind="public")["state"]["shown"]


def team(koth, entry) -> dict:
    return selectors.read_state(koth, kind="team", application_id=entry.pk)["state"]["shown"]


def host_view(koth) -> dict:
    return selectors.read_state(koth, kind="host")["state"]


def close_with(koth, host_user, alpha, beta, *, right=("Пушкин",), wrong=("Лермонтов",)):
    """Alpha answers right, Beta wrong, Gamma says nothing; judged and closed."""
    answer(koth, alpha, right[0])
    answer(koth, beta, wrong[0])
    number = selectors.koth_game(koth.pk).questions.order_by("-number").first().number
    judge_all(koth, host_user, number, {"пушкин": True, "лермонтов": False})
    services.question_close(actor=host_user, game=koth)


def url(koth, number, screen):
    return reverse("kingofhill:question_image", args=[koth.pk, number, screen])


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


# --- the rule ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("show", "announced", "closed", "revealed", "shown"), [
    ("announce", False, False, False, False),
    ("announce", True, False, False, True),
    ("close", True, False, False, False),
    ("close", True, True, False, True),
    ("never", True, True, False, False),
    ("never", True, True, True, True),
])
def test_the_rule_shows_a_question_on_announce_after_the_close_or_only_when_revealed(
        show, announced, closed, revealed, shown):
    assert rules.question_shown(show, announced=announced, closed=closed,
                                revealed=revealed) is shown


# --- who sees what when -----------------------------------------------------------------------


def test_by_default_the_projector_and_the_phones_show_the_question_once_announced(
        running, host, alpha):
    assert public(running) == {"question": None, "after": None}
    announce(running, host, text="Кто написал «Онегина»?", answer_key="Пушкин")
    shown = {"number": 1, "text": "Кто написал «Онегина»?", "image": None}
    assert public(running)["question"] == shown
    assert team(running, alpha)["question"] == shown
    assert "answer_key" not in public(running)["question"]  # the key waits for the close


def test_after_the_close_the_screens_show_the_answer_and_how_many_teams_got_it(
        running, host, alpha, beta, gamma):
    announce(running, host, text="Кто написал «Онегина»?", answer_key="Пушкин")
    close_with(running, host, alpha, beta)
    after = public(running)["after"]
    assert after == {"number": 1, "text": "Кто написал «Онегина»?", "image": None,
                     "answer_key": "Пушкин", "variants": [], "correct": 1, "total": 3}
    assert team(running, gamma)["after"] == after
    assert public(running)["question"] is None  # question 2 has not been announced yet
    announce(running, host, text="Второй")
    assert public(running)["after"] is None  # the next announcement takes its place


def test_a_question_shown_after_the_close_stays_hidden_while_teams_answer(
        running, host, alpha, beta):
    announce(running, host, text="Секрет", answer_key="Пушкин", show_projector="close",
             show_phones="close", image=PHOTO)
    assert public(running) == {"question": None, "after": None}
    assert team(running, alpha) == {"question": None, "after": None}
    assert "Секрет" not in str(selectors.read_state(running, kind="team",
                                                   application_id=alpha.pk))
    close_with(running, host, alpha, beta)
    assert public(running)["after"]["text"] == "Секрет"
    assert team(running, alpha)["after"]["image"].startswith(url(running, 1, "phones"))


def test_the_projector_and_the_phones_follow_each_their_own_choice(running, host, alpha, beta):
    announce(running, host, text="Карта", show_projector="announce", show_phones="never",
             image=PHOTO)
    assert public(running)["question"]["image"].startswith(url(running, 1, "projector"))
    assert team(running, alpha)["question"] is None
    close_with(running, host, alpha, beta)
    assert public(running)["after"]["text"] == "Карта"
    assert team(running, alpha)["after"] is None  # never: the phones wait for the host
    services.question_reveal(actor=host, game=running)
    assert team(running, alpha)["after"]["text"] == "Карта"


def test_the_games_defaults_apply_to_the_next_announcement_and_a_question_may_override_them(
        running, host, alpha, beta):
    screens.screen_defaults_set(actor=host, game=running, projector="close", phones="never")
    assert host_view(running)["host"]["screens"] == {"projector": "close", "phones": "never"}
    question = announce(running, host, text="По умолчанию")
    assert (question.show_projector, question.show_phones) == ("close", "never")
    assert public(running)["question"] is None
    close_with(running, host, alpha, beta)
    question = announce(running, host, text="Своё", show_phones="announce")
    assert (question.show_projector, question.show_phones) == ("close", "announce")
    assert team(running, alpha)["question"]["text"] == "Своё"
    assert public(running)["question"] is None


def test_a_choice_that_is_not_one_of_the_three_is_refused_with_a_clear_message(running, host):
    with pytest.raises(DomainError, match="on announce, after the close or never"):
        announce(running, host, text="x", show_projector="sometimes")
    with pytest.raises(DomainError, match="on announce, after the close or never"):
        screens.screen_defaults_set(actor=host, game=running, projector="always",
                                    phones="close")
    assert Question.objects.get(koth=running, number=1).announced_at is None


def test_the_host_sees_the_questions_picture_and_its_choices_in_the_console(running, host):
    announce(running, host, text="Ноты", show_phones="close", image=PHOTO)
    current = host_view(running)["host"]["question"]
    assert current["image"].startswith(url(running, 1, "projector"))
    assert (current["show_projector"], current["show_phones"]) == ("announce", "close")


# --- the picture's checks ---------------------------------------------------------------------


def test_a_phone_photos_metadata_is_stripped_and_a_big_picture_is_sized_for_the_projector():
    kind, data = screens.checked_image(phone_jpeg(), "photo.jpg")
    assert kind == "image/jpeg" and b"PhoneMaker" not in data
    assert not opened(data).getexif()
    kind, data = screens.checked_image(png(4000, 1000), "wide.png")
    assert kind == "image/png" and opened(data).size == (1920, 480)


def test_a_fake_or_huge_picture_is_refused_saying_why():
    with pytest.raises(DomainError, match="is not a PNG, JPEG, GIF or WebP image"):
        screens.checked_image(b"\x89PNG\r\n\x1a\n" + b"not really" * 20, "fake.png")
    with pytest.raises(DomainError, match="larger than 5 MB"):
        screens.checked_image(b"\xff\xd8" + b"0" * (5 * 1024 * 1024), "huge.jpg")


# --- the API and the picture's address ----------------------------------------------------------


@pytest.fixture
def host_client(host):
    c = Client()
    c.force_login(host)
    return c


def phone_of(entry) -> Client:
    c = Client()
    join_session(c, entry)
    return c


def announce_url(koth):
    return reverse("kingofhill:api_announce", args=[koth.pk])


def test_the_console_announces_a_question_with_a_picture_by_upload(running, host_client, alpha):
    upload = SimpleUploadedFile("map.jpg", phone_jpeg(), content_type="image/jpeg")
    response = host_client.post(announce_url(running), {
        "text": "Где это?", "answer_key": "Тверь", "variants": ["Калинин", "г. Тверь"],
        "show_phones": "announce", "image": upload})
    assert response.status_code == 200, response.content
    question = Question.objects.select_related("image").get(koth=running, number=1)
    assert question.variants == ["Калинин", "г. Тверь"]
    assert question.image.content_type == "image/jpeg"
    assert b"PhoneMaker" not in bytes(question.image.data)
    assert team(running, alpha)["question"]["image"].startswith(url(running, 1, "phones"))


def test_a_fake_picture_in_the_announcement_is_a_400_with_its_reason_and_nothing_is_announced(
        running, host_client):
    fake = SimpleUploadedFile("photo.png", b"\x89PNG\r\n\x1a\nnope", content_type="image/png")
    response = host_client.post(announce_url(running), {"text": "x", "image": fake})
    assert response.status_code == 400
    assert "is not a PNG, JPEG, GIF or WebP image" in response.json()["detail"]
    assert Question.objects.get(koth=running, number=1).announced_at is None
    assert not QuestionImage.objects.exists()


def test_the_games_defaults_are_set_through_the_api_and_refused_clearly(running, host_client,
                                                                        alpha):
    path = reverse("kingofhill:api_screens", args=[running.pk])
    response = host_client.post(path, {"projector": "close", "phones": "sometimes"},
                                content_type="application/json")
    assert response.status_code == 400 and "never" in response.json()["detail"]
    response = host_client.post(path, {"projector": "close", "phones": "never"},
                                content_type="application/json")
    assert response.json()["state"]["host"]["screens"] == {"projector": "close",
                                                           "phones": "never"}
    assert phone_of(alpha).post(path, {"projector": "announce", "phones": "announce"},
                                content_type="application/json").status_code == 403


def test_a_phone_cannot_fetch_the_picture_before_its_screen_shows_it(
        running, host, host_client, alpha, beta):
    announce(running, host, text="Ноты", show_projector="announce", show_phones="close",
             image=PHOTO)
    phone = phone_of(alpha)
    hidden = phone.get(url(running, 1, "phones"))
    assert hidden.status_code == 403 and "not shown" in hidden.json()["detail"]
    shown = Client().get(url(running, 1, "projector"))  # the projector needs no login
    assert shown.status_code == 200 and shown["Content-Type"] == "image/png"
    assert shown["Cache-Control"] == "private, no-store"
    assert opened(shown.content).size == (16, 12)
    assert host_client.get(url(running, 1, "phones")).status_code == 200  # the host always
    close_with(running, host, alpha, beta)
    assert phone.get(url(running, 1, "phones")).status_code == 200
    # a browser that plays for no team of the game is no phone of it
    assert Client().get(url(running, 1, "phones")).status_code == 403
    assert Client().get(url(running, 1, "elsewhere")).status_code == 403


def test_the_host_learns_that_a_question_has_no_picture(running, host, host_client):
    announce(running, host, text="Без картинки")
    response = host_client.get(url(running, 1, "projector"))
    assert response.status_code == 404 and response.json()["detail"]
    assert Client().get(url(running, 1, "projector")).status_code == 403


# --- the bank ----------------------------------------------------------------------------------


def bank_post(client, koth, data):
    return client.post(reverse("kingofhill:bank", args=[koth.pk]), data)


def test_a_prepared_question_takes_a_picture_on_the_bank_page_and_announces_with_it(
        koth, host, host_client, alpha):
    services.bank_question_add(actor=host, game=koth, text="Чей это портрет?",
                               answer_key="Пушкин")
    prepared = PreparedQuestion.objects.get(koth=koth)
    upload = SimpleUploadedFile("portrait.jpg", phone_jpeg(), content_type="image/jpeg")
    response = bank_post(host_client, koth, {"action": "image", "prepared": prepared.pk,
                                             "image": upload})
    assert response.status_code == 302
    prepared.refresh_from_db()
    assert b"PhoneMaker" not in bytes(prepared.image.data)
    assert selectors.bank_listing(koth)[0]["image"] is True
    services.game_start(actor=host, game=koth)
    question = announce(koth, host)  # an empty form takes the bank's next question
    assert question.image_id == prepared.image_id
    assert team(koth, alpha)["question"]["image"].startswith(url(koth, 1, "phones"))


def test_the_bank_page_refuses_a_fake_picture_next_to_the_form_and_removes_one(
        koth, host, host_client):
    services.bank_question_add(actor=host, game=koth, text="Вопрос")
    prepared = PreparedQuestion.objects.get(koth=koth)
    fake = SimpleUploadedFile("score.png", b"GIF89a" + b"\x00" * 40, content_type="image/png")
    response = bank_post(host_client, koth, {"action": "image", "prepared": prepared.pk,
                                             "image": fake})
    assert response.status_code == 400
    assert "is not a PNG, JPEG, GIF or WebP image" in response.content.decode()
    screens.bank_image_set(actor=host, game=koth, prepared=prepared.pk, image=PHOTO)
    response = bank_post(host_client, koth, {"action": "image", "prepared": prepared.pk,
                                             "remove": "1"})
    assert response.status_code == 302
    prepared.refresh_from_db()
    assert prepared.image_id is None and not QuestionImage.objects.exists()
    response = bank_post(host_client, koth, {"action": "image", "prepared": prepared.pk})
    assert "Choose a picture" in response.content.decode()
