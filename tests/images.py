"""Real images for upload tests, made with Pillow: a PNG, a JPEG with a phone's EXIF (GPS
position, camera, orientation) and a WebP."""

from __future__ import annotations

import io

from PIL import Image

#: where a phone photo was taken (Moscow, Red Square): what a stored image must not tell
GPS = {1: "N", 2: (55.0, 45.0, 13.0), 3: "E", 4: (37.0, 37.0, 10.0)}


def picture(width: int = 8, height: int = 6) -> Image.Image:
    """A picture whose left half is red and right half blue: an orientation shows."""
    image = Image.new("RGB", (width, height), (220, 20, 20))
    image.paste((20, 20, 220), (width // 2, 0, width, height))
    return image


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **options)
    return out.getvalue()


def png(width: int = 8, height: int = 6) -> bytes:
    return encoded(picture(width, height), "PNG")


def webp(width: int = 8, height: int = 6) -> bytes:
    return encoded(picture(width, height), "WEBP")


def phone_jpeg(width: int = 64, height: int = 48, orientation: int = 1) -> bytes:
    """A JPEG as a phone writes it: EXIF with the camera, the GPS position, the orientation."""
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "Phone 15"  # Model
    exif[0x0112] = orientation
    exif[0x8825] = GPS  # GPSInfo
    return encoded(picture(width, height), "JPEG", exif=exif.tobytes(), quality=95,
                   comment=b"taken at the bridge")


PNG = png()
