"""Uploaded images are stored without their metadata (a phone photo's GPS position, camera,
comment), upright and the same picture; a file that only starts like an image is refused."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image, PngImagePlugin

from core.images import MAX_PIXELS, ImageRefused, clean_image
from gorod import services
from gorod.models import Level, PhotoProof, TaskImage
from tests.gorod.fixtures_live import *  # noqa: F403 (the fixtures)
from tests.gorod.fixtures_live import minutes
from tests.images import encoded, phone_jpeg, picture, png, webp

pytestmark = pytest.mark.django_db


def opened(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def assert_no_metadata(data: bytes) -> None:
    image = opened(data)
    assert not image.getexif(), dict(image.getexif())
    assert not {"exif", "comment", "xmp", "XML:com.adobe.xmp", "Comment"} & set(image.info)
    assert b"PhoneMaker" not in data and b"taken at the bridge" not in data


def test_a_phone_jpeg_loses_its_gps_position_and_stays_the_same_picture():
    original = phone_jpeg()
    assert opened(original).getexif().get_ifd(0x8825)  # the GPS position is there before
    kind, cleaned = clean_image(original, "bridge.jpg")
    assert kind == "image/jpeg"
    assert_no_metadata(cleaned)
    image = opened(cleaned)
    assert image.size == (64, 48)
    assert image.getpixel((4, 24))[0] > 180 and image.getpixel((60, 24))[2] > 180


def test_an_orientation_is_applied_before_the_exif_is_dropped():
    # Orientation 6: the camera held on its side; a viewer turns it 90° clockwise.
    kind, cleaned = clean_image(phone_jpeg(64, 48, orientation=6), "side.jpg")
    image = opened(cleaned)
    assert image.size == (48, 64)
    assert image.getpixel((24, 4))[0] > 180 and image.getpixel((24, 60))[2] > 180


def test_png_text_chunks_are_dropped_and_the_pixels_kept():
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "taken at the bridge")
    original = encoded(picture(), "PNG", pnginfo=info)
    kind, cleaned = clean_image(original, "a.png")
    assert kind == "image/png"
    assert_no_metadata(cleaned)
    assert opened(cleaned).tobytes() == opened(original).tobytes()


def test_a_phones_multi_picture_jpeg_is_stored_as_its_photo_without_exif():
    exif = Image.Exif()
    exif[0x8825] = {1: "N", 2: (55.0, 45.0, 13.0)}
    mpo = encoded(picture(64, 48), "MPO", save_all=True, append_images=[picture(16, 12)],
                  exif=exif.tobytes())
    assert Image.open(io.BytesIO(mpo)).format == "MPO"
    kind, cleaned = clean_image(mpo, "phone.jpg")
    assert kind == "image/jpeg" and opened(cleaned).format == "JPEG"
    assert opened(cleaned).size == (64, 48)
    assert_no_metadata(cleaned)


def test_webp_and_animated_gifs_stay_what_they_are():
    assert clean_image(webp(), "a.webp")[0] == "image/webp"
    frames = [picture(), picture().transpose(Image.Transpose.FLIP_LEFT_RIGHT)]
    gif = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=200,
                  loop=0, comment=b"taken at the bridge")
    kind, cleaned = clean_image(gif, "a.gif")
    assert kind == "image/gif" and opened(cleaned).n_frames == 2
    assert b"taken at the bridge" not in cleaned


@pytest.mark.parametrize("data", [
    pytest.param(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, id="PNG signature, then nothing"),
    pytest.param(b"\xff\xd8\xff\xe0" + b"<?php system($_GET['c']); ?>", id="JPEG start, a script"),
    pytest.param(phone_jpeg()[:300], id="a cut-off JPEG"),
    pytest.param(encoded(picture(), "BMP"), id="a BMP"),
    pytest.param(b"", id="empty"),
])
def test_a_file_that_only_starts_like_an_image_is_refused(data):
    with pytest.raises(ImageRefused, match="x.png is not a PNG, JPEG, GIF or WebP image."):
        clean_image(data, "x.png")


def test_an_image_of_too_many_pixels_is_refused_before_it_is_decoded():
    side = int(MAX_PIXELS ** 0.5) + 10
    bomb = encoded(Image.new("1", (side, side)), "PNG")  # a few KB compressed
    with pytest.raises(ImageRefused, match="more than 50 megapixels"):
        clean_image(bomb, "bomb.png")


def test_a_task_image_uploaded_on_the_setup_page_is_stored_without_its_exif(gorod, organizer):
    client = Client()
    client.force_login(organizer)
    response = client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "image", "image": SimpleUploadedFile("мост.jpg", phone_jpeg())}, follow=True)
    assert response.status_code == 200
    stored = TaskImage.objects.get(gorod=gorod)
    assert stored.content_type == "image/jpeg" and stored.size == len(stored.data)
    assert_no_metadata(bytes(stored.data))
    assert opened(bytes(stored.data)).size == (64, 48)


def test_a_photo_proof_is_stored_without_its_exif(gorod, organizer, alpha):
    Level.objects.filter(gorod=gorod, label="1").update(photo_proof=True)
    services.game_start(actor=organizer, game=gorod, now=minutes(0))
    services.photo_submit(game=gorod, application=alpha, data=phone_jpeg(), now=minutes(5))
    proof = PhotoProof.objects.get()
    assert_no_metadata(bytes(proof.data))
    assert opened(bytes(proof.data)).size == (64, 48)


def test_a_fake_image_on_the_setup_page_is_a_message(gorod, organizer):
    client = Client()
    client.force_login(organizer)
    fake = png()[:20] + b"not the rest of a PNG"
    response = client.post(f"/gorod/{gorod.pk}/setup/", {
        "action": "image", "image": SimpleUploadedFile("map.png", fake)}, follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "map.png is not a PNG, JPEG, GIF or WebP image."]
    assert not TaskImage.objects.exists()
