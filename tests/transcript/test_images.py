"""Image sanitising for replay (transcript/images.py): what is over the limits shrinks, what cannot
be used becomes a note."""

from __future__ import annotations

import base64
import io
import os
import re
import struct

import pytest
from PIL import Image

from promptc.transcript import images
from promptc.transcript.images import image_size, sanitize_image, sanitize_images
from promptc.transcript.model import ImageBlock, TextBlock, parse_block
from promptc.transcript.policy import POLICY_TABLE
from promptc.transcript.sanitize import sanitize
from promptc.transcript.texts import DEFAULT_TEXTS, Texts

from support.transcript_strategies import R, U, image, plain, png_base64, text, typed


def _sanitize(data, mime_type="image/png", max_side=1200):
    return sanitize_image(parse_block(image(data, mime_type)), max_side, DEFAULT_TEXTS)


def _picture(block):
    return Image.open(io.BytesIO(base64.b64decode(block.data)))


def _note(reason):
    return DEFAULT_TEXTS.image_note.format(reason=reason)


def test_large_png_becomes_a_jpeg_with_long_side_1200():
    out = _sanitize(png_base64(3000, 2000))
    assert isinstance(out, ImageBlock) and out.mime_type == "image/jpeg"
    assert _picture(out).format == "JPEG" and _picture(out).size == (1200, 800)


def test_small_png_under_the_byte_limit_is_unchanged():
    data = png_base64(500, 500)
    assert plain(sanitize_images(typed(U([image(data)])), 1200, DEFAULT_TEXTS)) == [U([image(data)])]


def test_invalid_base64_becomes_a_note():
    out = _sanitize("abc")
    assert isinstance(out, TextBlock) and out.text == _note(DEFAULT_TEXTS.image_invalid_base64)


@pytest.mark.parametrize("data", ["", "   ", None])
def test_empty_payload_becomes_a_note(data):
    assert _sanitize(data).text == _note(DEFAULT_TEXTS.image_empty)


def test_whitespace_in_base64_is_removed_and_a_wrong_mime_type_corrected():
    data = png_base64(10, 10)
    out = _sanitize(data[:8] + "\n" + data[8:], mime_type="image/jpeg")
    assert out.data == data and out.mime_type == "image/png"


def _noise_png(mode: str, side: int = 1190) -> str:
    """Random pixels, so the PNG hardly compresses: RGB gives about 4.25 MB, RGBA about 5.66 MB."""
    noise = Image.frombytes(mode, (side, side), os.urandom(side * side * len(mode)))
    buffer = io.BytesIO()
    noise.save(buffer, format="PNG", compress_level=1)
    return base64.b64encode(buffer.getvalue()).decode()


MIB = 1024 * 1024


def test_the_byte_limit_counts_decoded_bytes_not_base64_characters():
    data = _noise_png("RGB")
    assert len(data) > 5 * MIB > len(base64.b64decode(data))  # about 5.67M characters, 4.25 MB
    assert _sanitize(data).data == data


def test_an_image_over_the_byte_limit_after_decoding_is_re_encoded():
    data = _noise_png("RGBA")
    assert len(base64.b64decode(data)) > 5 * MIB
    out = _sanitize(data)
    assert out.mime_type == "image/jpeg" and len(base64.b64decode(out.data)) <= 5 * MIB
    assert _picture(out).size == (1190, 1190)


def test_anthropic_policies_also_limit_the_base64_text():
    data = _noise_png("RGB")
    history = typed(U([image(data)]))
    for name in ("anthropic", "anthropic-compatible"):
        out = plain(sanitize(history, POLICY_TABLE[name]))[0]["content"][0]
        assert out["mimeType"] == "image/jpeg" and len(out["data"]) <= 5 * MIB, name
    for name in ("bedrock", "openai", "google", "default"):
        assert plain(sanitize(history, POLICY_TABLE[name])) == [U([image(data)])], name


def test_the_maximum_side_is_configurable():
    assert _picture(_sanitize(png_base64(300, 200), max_side=150)).size == (150, 100)


def test_an_image_that_cannot_shrink_enough_becomes_a_note(monkeypatch):
    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 100)
    texts = Texts(image_note="{reason}", image_too_large="over {limit}, best {size}")
    out = sanitize_image(parse_block(image(png_base64(300, 200))), 1200, texts)
    assert re.fullmatch(r"over 0\.00 MiB, best 0\.\d\d MiB", out.text)


def test_transparent_pixels_become_white():
    clear = Image.new("RGBA", (1600, 1000), (0, 0, 0, 0))
    buffer = io.BytesIO()
    clear.save(buffer, format="PNG")
    out = _sanitize(base64.b64encode(buffer.getvalue()).decode())
    assert _picture(out).convert("L").getextrema()[0] > 250


def test_without_pillow_an_image_that_must_shrink_becomes_a_note(monkeypatch):
    monkeypatch.setattr(images, "load_pillow", lambda: None)
    assert _sanitize(png_base64(3000, 2000)).text == _note(DEFAULT_TEXTS.image_needs_pillow)
    small = png_base64(500, 500)
    assert _sanitize(small).data == small


def _tiff(width, height):
    buffer = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).save(buffer, format="TIFF")
    return base64.b64encode(buffer.getvalue()).decode()


def test_without_pillow_an_image_that_only_needs_re_encoding_says_so(monkeypatch):
    # An 800x600 TIFF is within every size limit; it is only in a format not sent as it is. The
    # noise PNG is within the side limit, over Anthropic's base64 limit.
    monkeypatch.setattr(images, "load_pillow", lambda: None)
    for out in (
        _sanitize(_tiff(800, 600), "image/tiff"),
        sanitize_image(parse_block(image(_noise_png("RGB"))), 1200, DEFAULT_TEXTS, images.MAX_IMAGE_BYTES),
    ):
        assert out.text == _note(DEFAULT_TEXTS.image_needs_reencoding)
        assert "re-encoding" in out.text and "resizing" not in out.text
    assert "resizing" in _sanitize(png_base64(1300, 100)).text


def test_data_that_claims_to_be_a_big_png_but_is_not_becomes_a_note():
    fake = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + struct.pack(">II", 5000, 5000) + b"garbage"
    assert _sanitize(base64.b64encode(fake).decode()).text == _note(DEFAULT_TEXTS.image_undecodable)


@pytest.mark.parametrize("fmt", ["JPEG", "GIF", "PNG"])
def test_sizes_are_read_from_headers(fmt):
    buffer = io.BytesIO()
    Image.new("RGB", (640, 480)).save(buffer, format=fmt)
    assert image_size(buffer.getvalue()) == (640, 480)


def _webp(width: int, height: int, **options) -> str:
    buffer = io.BytesIO()
    Image.linear_gradient("L").resize((width, height)).convert("RGB").save(buffer, format="WEBP", **options)
    return base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize(
    "options", [{}, {"lossless": True}, {"exif": b"Exif\x00\x00II*\x00"}], ids=["lossy", "lossless", "extended"]
)
def test_webp_within_the_limits_is_kept_like_png(options):
    data = _webp(800, 600, **options)
    assert _sanitize(data, mime_type="image/webp") == parse_block(image(data, "image/webp"))
    assert _sanitize(data, mime_type="image/png").mime_type == "image/webp"


def test_without_pillow_a_small_webp_is_still_kept(monkeypatch):
    monkeypatch.setattr(images, "load_pillow", lambda: None)
    data = _webp(640, 480)
    assert _sanitize(data, mime_type="image/webp").data == data


def test_a_webp_over_the_side_limit_is_shrunk_to_jpeg():
    out = _sanitize(_webp(2400, 1200), mime_type="image/webp")
    assert out.mime_type == "image/jpeg" and _picture(out).size == (1200, 600)


@pytest.mark.parametrize("options", [{}, {"lossless": True}], ids=["lossy", "lossless"])
def test_webp_sizes_are_read_from_headers(options):
    assert image_size(base64.b64decode(_webp(641, 479, **options))) == (641, 479)


def test_unknown_formats_have_no_header_size():
    assert image_size(b"RIFF0000WEBPVP8 ") is None


def test_text_blocks_of_tool_results_are_never_touched():
    result = R("c1", "  keep  ")
    result["content"].append(image("abc"))
    out = plain(sanitize_images(typed(result), 1200, DEFAULT_TEXTS))
    assert out[0]["content"] == [text("  keep  "), text(_note(DEFAULT_TEXTS.image_invalid_base64))]
