"""The GoRoD set-up page's task images: uploaded, chosen for a level, shown, refused."""

from __future__ import annotations

import pytest

from gorod import services
from gorod.models import Level
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.setup_pages import login, messages_of
from tests.images import PNG, phone_jpeg, webp

pytestmark = pytest.mark.django_db


# --- task images --------------------------------------------------------------------------------


JPEG = phone_jpeg()


def upload_image(client, gg, name: str, content: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(f"/gorod/{gg.pk}/setup/", {
        "action": "image", "image": SimpleUploadedFile(name, content)}, follow=True)


def test_task_images_are_uploaded_chosen_for_a_level_and_shown(gorod, organizer, outsider):
    from gorod.models import TaskImage

    client = login(organizer)
    response = upload_image(client, gorod, "мост.png", PNG)
    assert "The image мост.png is uploaded." in messages_of(response)
    image = TaskImage.objects.get(gorod=gorod)
    assert (image.name, image.content_type, image.size) == ("мост.png", "image/png",
                                                            len(image.data))
    level = Level.objects.get(gorod=gorod, label="1")
    response = client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "edit", "level": level.pk, "edit-label": "1", "edit-task": "Мост",
        "edit-duration_min": "70", "edit-codes": "G1R1D", "edit-images": ["мост.png"]},
        follow=True)
    assert "Level 1 is saved." in messages_of(response)
    assert Level.objects.get(pk=level.pk).images == ["мост.png"]
    url = f"/gorod/{gorod.pk}/images/%D0%BC%D0%BE%D1%81%D1%82.png"
    assert url in response.content.decode()
    shown = client.get(url)
    assert shown.status_code == 200 and shown["Content-Type"] == "image/png"
    assert shown.content == bytes(image.data)
    assert login(outsider).get(url).status_code == 403
    # The same name again replaces the image; a shown image cannot be deleted.
    upload_image(client, gorod, "мост.png", JPEG)
    assert TaskImage.objects.get(gorod=gorod).content_type == "image/jpeg"
    response = client.post(f"/gorod/{gorod.pk}/setup/", {"action": "image_delete",
                                                         "name": "мост.png"})
    assert messages_of(response) == ["Level(s) 1 show мост.png: remove it from them first."]
    services.level_edit(actor=organizer, game=gorod, level=level, images=[])
    response = client.post(f"/gorod/{gorod.pk}/setup/", {"action": "image_delete",
                                                         "name": "мост.png"}, follow=True)
    assert "The image мост.png is deleted." in messages_of(response)
    assert not TaskImage.objects.exists()


@pytest.mark.parametrize("name, content, message", [
    ("notes.png", b"just some text", "notes.png is not a PNG, JPEG, GIF or WebP image."),
    ("fake.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32,
     "fake.png is not a PNG, JPEG, GIF or WebP image."),
    ("half.jpg", JPEG[: len(JPEG) // 2], "half.jpg is not a PNG, JPEG, GIF or WebP image."),
    ("big.png", PNG + b"\x00" * (5 * 1024 * 1024), "big.png is larger than 5 MB."),
    ("empty.gif", b"", "Image (PNG, JPEG, GIF or WebP, at most 5 MB): The submitted file is empty."),
])
def test_a_file_that_is_not_a_small_image_is_refused(gorod, organizer, name, content, message):
    from gorod.models import TaskImage

    response = upload_image(login(organizer), gorod, name, content)
    assert messages_of(response) == [message]
    assert not TaskImage.objects.exists()


def test_a_level_cannot_show_an_image_not_uploaded(gorod, organizer):
    with pytest.raises(services.DomainError, match="no uploaded image ghost.png"):
        services.level_add(actor=organizer, game=gorod, codes={"code": "X"},
                           images=["ghost.png"])
    services.image_add(actor=organizer, game=gorod, name="C:\\photos\\webp.webp",
                       data=webp())
    level = services.level_add(actor=organizer, game=gorod, codes={"code": "X"},
                               images=["webp.webp"])
    assert level.images == ["webp.webp"]
    with pytest.raises(services.DomainError, match="There is no image ghost.png"):
        services.image_delete(actor=organizer, game=gorod, name="ghost.png")


def test_images_cannot_change_after_the_start(running, organizer):
    with pytest.raises(services.DomainError, match="before the start"):
        services.image_add(actor=organizer, game=running, name="a.png", data=PNG)
