"""Uploaded images (GoRoD task images, teams' photo proofs), cleaned before they are stored.

A phone photo carries EXIF: the GPS position where it was taken, the phone's make, the time.
A task image made on the spot would give away the very place a level asks teams to find, and
a team's photo where it stood. So every upload is decoded and encoded again from its pixels
alone: no EXIF, XMP, comments or text chunks survive (the colour profile does, it is no one's
secret). The EXIF orientation is applied first, so the picture looks as it did.

A file is an image when Pillow decodes it whole as PNG, JPEG, GIF or WebP; a file that only
starts like one (the first bytes of a PNG, then anything) is refused, as is one that would
decode to more pixels than any task needs (a "decompression bomb").
"""

from __future__ import annotations

import io
import warnings

from django.utils.translation import gettext as _
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

MAX_BYTES = 5 * 1024 * 1024
#: 50 megapixels (a phone's best camera), all frames of an animation together
MAX_PIXELS = 50_000_000
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}
#: what a re-encoded image keeps of its metadata: how it is drawn, nothing about where or who
KEEP_INFO = ("icc_profile", "transparency", "duration", "loop", "background", "disposal")


class ImageRefused(ValueError):
    """Not an image this site stores; the message says why, for the person who sent it."""


def clean_image(data: bytes, label: str, max_side: int | None = None) -> tuple[str, bytes]:
    """The image's content type and its bytes without metadata, or ``ImageRefused``.
    ``label`` names the file in the message (its name, or "The photo"); a still image wider
    or taller than ``max_side`` pixels is scaled down to fit (a projector needs no more)."""
    if len(data) > MAX_BYTES:
        raise ImageRefused(_("%(name)s is larger than 5 MB.") % {"name": label})
    not_image = ImageRefused(_("%(name)s is not a PNG, JPEG, GIF or WebP image.")
                             % {"name": label})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=list(FORMATS))
            # Phones write JPEGs with extra pictures (depth maps) that Pillow reads as MPO:
            # the first picture is the photo.
            fmt = "JPEG" if image.format == "MPO" else image.format
            if fmt not in FORMATS:
                raise not_image
            frames = 1 if fmt == "JPEG" else getattr(image, "n_frames", 1)
            if image.width * image.height * frames > MAX_PIXELS:
                raise ImageRefused(_("%(name)s has more than %(mp)d megapixels.")
                                   % {"name": label, "mp": MAX_PIXELS // 1_000_000})
            return FORMATS[fmt], _encoded(image, fmt, frames, max_side)
    except ImageRefused:
        raise
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError,
            Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise not_image from None


def _encoded(image: Image.Image, fmt: str, frames: int, max_side: int | None) -> bytes:
    keep = {key: image.info[key] for key in KEEP_INFO if key in image.info}
    out = io.BytesIO()
    if frames > 1:  # an animation: every frame, as it plays
        sequence = [frame.copy() for frame in ImageSequence.Iterator(image)]
        for frame in sequence:
            frame.info = {}
        sequence[0].save(out, format=fmt, save_all=True,
                         append_images=sequence[1:], **keep)
        return out.getvalue()
    image.load()  # the whole file decodes, or it is not an image
    upright = ImageOps.exif_transpose(image)
    upright.info = {}
    if max_side and max(upright.size) > max_side:
        upright.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    options: dict = {"quality": 92} if fmt in ("JPEG", "WEBP") else {}
    if fmt == "JPEG" and upright.mode not in ("RGB", "L", "CMYK"):
        upright = upright.convert("RGB")
    upright.save(out, format=fmt, **options, **keep)
    return out.getvalue()
