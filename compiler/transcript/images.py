"""Image sanitising for replay: shrink what is over the limits, turn what cannot be used into a note.

Checking an image needs nothing beyond the standard library (PNG, GIF and JPEG sizes come from
their headers). Re-encoding needs Pillow, the optional `images` extra, imported only when an image
must shrink; without it such an image becomes a text note saying why.
"""

from __future__ import annotations

import base64
import io
import re
import struct
from dataclasses import replace
from types import ModuleType
from typing import Any

from .model import ImageBlock, Message, TextBlock, Transcript
from .texts import Texts

DEFAULT_MAX_SIDE_PX = 1200
MAX_BASE64_CHARS = 5 * 1024 * 1024
"""Byte limit, measured on the base64 text (what Anthropic counts), not on the decoded bytes."""
SIDE_GRID_PX = (1800, 1600, 1400, 1200, 1000, 800)
JPEG_QUALITIES = (85, 75, 65, 55, 45, 35)
SNIFFED_MIME_TYPES = (("/9j/", "image/jpeg"), ("iVBOR", "image/png"), ("R0lGOD", "image/gif"))
_CANONICAL_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_JPEG_SIZE_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def sanitize_images(messages: Transcript, max_side: int, texts: Texts) -> Transcript:
    """Every image block of every turn, checked against the limits (see sanitize_image)."""
    return tuple(_sanitize_message_images(m, max_side, texts) for m in messages)


def _sanitize_message_images(message: Message, max_side: int, texts: Texts) -> Message:
    content = getattr(message, "content", "")
    if isinstance(content, str) or not any(isinstance(b, ImageBlock) for b in content):
        return message
    blocks = tuple(sanitize_image(b, max_side, texts) if isinstance(b, ImageBlock) else b for b in content)
    return replace(message, content=blocks)


def sanitize_image(block: ImageBlock, max_side: int, texts: Texts) -> ImageBlock | TextBlock:
    """Keep an image within `max_side` px and MAX_BASE64_CHARS as is, shrink it to JPEG, or note why not."""
    if not isinstance(block.data, str) or not block.data.strip():
        return _note(texts, texts.image_empty)
    data = re.sub(r"\s", "", block.data)
    if len(data) % 4 or not _CANONICAL_BASE64.fullmatch(data):
        return _note(texts, texts.image_invalid_base64)
    decoded = base64.b64decode(data)
    mime_type = next((mime for prefix, mime in SNIFFED_MIME_TYPES if data.startswith(prefix)), block.mime_type)
    size = image_size(decoded)
    if size is not None and max(size) <= max_side and len(data) <= MAX_BASE64_CHARS:
        return replace(block, data=data, mime_type=mime_type)
    return _shrink(block, decoded, max_side, texts)


def _note(texts: Texts, reason: str) -> TextBlock:
    return TextBlock(text=texts.image_note.format(reason=reason))


def _shrink(block: ImageBlock, decoded: bytes, max_side: int, texts: Texts) -> ImageBlock | TextBlock:
    """Try each side of the grid (largest first) at falling JPEG qualities; the first fit wins."""
    pillow = load_pillow()
    if pillow is None:
        return _note(texts, texts.image_needs_pillow)
    try:
        image = pillow.open(io.BytesIO(decoded))
        image.load()
    except (OSError, ValueError, pillow.DecompressionBombError):
        return _note(texts, texts.image_undecodable)
    smallest = len(block.data)
    for side in _side_grid(max(image.size), max_side):
        fitted = _fitted(pillow, image, side)
        for quality in JPEG_QUALITIES:
            encoded = base64.b64encode(_jpeg(fitted, quality)).decode("ascii")
            if len(encoded) <= MAX_BASE64_CHARS:
                return replace(block, data=encoded, mime_type="image/jpeg")
            smallest = min(smallest, len(encoded))
    return _note(texts, texts.image_too_large.format(limit=_mib(MAX_BASE64_CHARS), size=_mib(smallest)))


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


def _mib(chars: int) -> str:
    return f"{chars / (1024 * 1024):.2f} MiB"


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF or JPEG header; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Walk the JPEG segments to the first start-of-frame, which holds the size."""
    at = 2
    while at + 9 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte before a marker
            at += 1
        elif marker in _JPEG_SIZE_MARKERS:
            height, width = struct.unpack(">HH", data[at + 5: at + 9])
            return width, height
        elif marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
            at += 2
        else:
            at += 2 + struct.unpack(">H", data[at + 2: at + 4])[0]
    return None
