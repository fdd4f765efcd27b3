"""Image sanitising for replay: shrink what is over the limits, turn what cannot be used into a note.

Checking an image needs nothing beyond the standard library (PNG, GIF, JPEG and WebP sizes come
from their headers). Re-encoding needs Pillow, the optional `images` extra, imported only when an
image must shrink; without it such an image becomes a text note saying why.

The byte limit is measured on the decoded image, as the runtime does. A policy whose provider
counts the base64 text against its limit as well (Anthropic's Messages API) passes that limit too.
"""

from __future__ import annotations

import base64
import io
import re
import struct
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

from .model import ContentMessage, ImageBlock, Message, TextBlock, Transcript
from .texts import Texts

DEFAULT_MAX_SIDE_PX = 1200
"""Pixels an image's longer side may have before it is shrunk, when no config or flag says otherwise."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
"""Limit on an image's decoded bytes; also the base64 limit of the policies that have one."""
MAX_PIXELS = 25_000_000
"""Above this many pixels an image is shrunk whatever its side (only reachable with a large max side)."""
SIDE_GRID_PX = (1800, 1600, 1400, 1200, 1000, 800)
JPEG_QUALITIES = (85, 75, 65, 55, 45, 35)
_CANONICAL_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_JPEG_SIZE_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def sanitize_images(messages: Transcript, max_side: int, texts: Texts, base64_limit: int | None = None) -> Transcript:
    """Every image block of every turn, checked against the limits (see sanitize_image)."""
    return tuple(_sanitize_message_images(m, _Limits(max_side, base64_limit), texts) for m in messages)


@dataclass(frozen=True, slots=True)
class _Limits:
    """What an image must fit to be replayed as it is."""

    max_side: int
    """Longest side in pixels."""
    base64_limit: int | None
    """Longest base64 text, for providers that count it; None when only the decoded bytes count."""

    def fit(self, decoded_bytes: int, base64_chars: int) -> bool:
        """Within the byte limit (and the base64 limit, when there is one)."""
        return decoded_bytes <= MAX_IMAGE_BYTES and (self.base64_limit is None or base64_chars <= self.base64_limit)


def _sanitize_message_images(message: Message, limits: _Limits, texts: Texts) -> Message:
    if not isinstance(message, ContentMessage) or isinstance(message.content, str):
        return message
    if not any(isinstance(b, ImageBlock) for b in message.content):
        return message
    blocks = tuple(_sanitize(b, limits, texts) if isinstance(b, ImageBlock) else b for b in message.content)
    return replace(message, content=blocks)


def sanitize_image(
    block: ImageBlock, max_side: int, texts: Texts, base64_limit: int | None = None
) -> ImageBlock | TextBlock:
    """Keep an image within the limits as it is (PNG, JPEG, GIF and WebP alike), shrink it to JPEG,
    or note why not."""
    return _sanitize(block, _Limits(max_side, base64_limit), texts)


def _sanitize(block: ImageBlock, limits: _Limits, texts: Texts) -> ImageBlock | TextBlock:
    if not isinstance(block.data, str) or not block.data.strip():
        return _note(texts, texts.image_empty)
    data = re.sub(r"\s", "", block.data)
    if len(data) % 4 or not _CANONICAL_BASE64.fullmatch(data):
        return _note(texts, texts.image_invalid_base64)
    decoded = base64.b64decode(data)
    mime_type = sniff_mime_type(decoded) or block.mime_type
    size = image_size(decoded)
    small_enough = size is not None and max(size) <= limits.max_side and size[0] * size[1] <= MAX_PIXELS
    if small_enough and limits.fit(len(decoded), len(data)):
        return replace(block, data=data, mime_type=mime_type)
    # Without Pillow, say what the image needs: an unknown size may need resizing too, but it needs re-encoding.
    needs = texts.image_needs_pillow if size is not None and not small_enough else texts.image_needs_reencoding
    return _shrink(block, decoded, limits, texts, needs)


def sniff_mime_type(data: bytes) -> str | None:
    """The image type its first bytes announce (PNG, JPEG, GIF, WebP), or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


HEIF_BRANDS = frozenset(
    {
        b"heic",
        b"heix",
        b"hevc",
        b"hevx",
        b"heis",
        b"heim",
        b"hevm",
        b"hevs",
        b"mif1",
        b"msf1",
        b"avif",
        b"avis",
    }
)
"""ISO base media `ftyp` brands of HEIC/HEIF and AVIF stills."""
OTHER_IMAGE_MAGIC = (b"BM", b"II*\x00", b"MM\x00*")
"""First bytes of BMP and of TIFF (little- and big-endian) files."""


def looks_like_image(head: bytes) -> bool:
    """Do these first bytes start an image file (the replay types, BMP, TIFF, HEIC/HEIF or AVIF)?"""
    if sniff_mime_type(head) or head.startswith(OTHER_IMAGE_MAGIC):
        return True
    if len(head) < 12 or head[4:8] != b"ftyp":
        return False
    brands = [head[8:12]] + [head[at : at + 4] for at in range(16, len(head) - 3, 4)]
    return any(brand in HEIF_BRANDS for brand in brands)


def _note(texts: Texts, reason: str) -> TextBlock:
    return TextBlock(text=texts.image_note.format(reason=reason))


def _shrink(
    block: ImageBlock, decoded: bytes, limits: _Limits, texts: Texts, without_pillow: str
) -> ImageBlock | TextBlock:
    """Try each side of the grid (largest first) at falling JPEG qualities; the first fit wins.

    `without_pillow` is the reason the note gives when Pillow is not installed."""
    pillow = load_pillow()
    if pillow is None:
        return _note(texts, without_pillow)
    try:
        image = pillow.open(io.BytesIO(decoded))
        image.load()
    except (OSError, ValueError, pillow.DecompressionBombError):
        return _note(texts, texts.image_undecodable)
    smallest = len(decoded)
    for side in _side_grid(max(image.size), limits.max_side):
        fitted = _fitted(pillow, image, side)
        for quality in JPEG_QUALITIES:
            jpeg = _jpeg(fitted, quality)
            encoded = base64.b64encode(jpeg).decode("ascii")
            if limits.fit(len(jpeg), len(encoded)):
                return replace(block, data=encoded, mime_type="image/jpeg")
            smallest = min(smallest, len(jpeg))
    return _note(texts, texts.image_too_large.format(limit=_mib(MAX_IMAGE_BYTES), size=_mib(smallest)))


def load_pillow() -> ModuleType | None:
    """`PIL.Image`, or None when the `images` extra is not installed."""
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _side_grid(longest: int, max_side: int) -> list[int]:
    start = min(max_side, longest)
    return sorted({min(side, max_side) for side in (start, *SIDE_GRID_PX)}, reverse=True)


def _fitted(pillow: ModuleType, image: Any, side: int) -> Any:
    """An RGB copy whose longest side is at most `side` (never enlarged); transparency goes to white."""
    if image.mode in ("RGB", "L"):
        flat = image.copy()
    else:
        rgba = image.convert("RGBA")
        flat = pillow.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
    flat.thumbnail((side, side), pillow.Resampling.LANCZOS)
    return flat


def _jpeg(image: Any, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):.2f} MiB"


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, JPEG or WebP header; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP" and len(data) >= 30:
        return _webp_size(data)
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """The canvas size from the first chunk: lossy (`VP8 `), lossless (`VP8L`) or extended (`VP8X`)."""
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":  # key frame start code
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk the JPEG segments to the first start-of-frame, which holds the size."""
    at = 2
    while at + 9 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
        elif marker in _JPEG_SIZE_MARKERS:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        elif marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            at += 2
        else:
            at += 2 + struct.unpack(">H", data[at + 2 : at + 4])[0]
    return None
