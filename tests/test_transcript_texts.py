"""Transcript wording: OpenClaw's spellings are OpenClaw's exactly, and none of ours is one of them."""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path

import pytest

from promptc.transcript.texts import DEFAULT_TEXTS, OPENCLAW_SPELLINGS

OPENCLAW = Path(os.environ.get("OPENCLAW_REF_DIR", "/tmp/openclaw-ref")) / "node_modules" / "openclaw"
"""Where OpenClaw is installed for comparisons (shared/tools/openclaw-ref/README.md)."""


NEEDS_OPENCLAW = pytest.mark.skipif(
    not (OPENCLAW / "dist").is_dir(), reason=f"OpenClaw is not installed at {OPENCLAW} (set OPENCLAW_REF_DIR)"
)


def _openclaw_code() -> str:
    """All of OpenClaw's bundled code as one text."""
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted((OPENCLAW / "dist").rglob("*.js")))


@NEEDS_OPENCLAW
def test_every_openclaw_spelling_is_a_string_openclaw_writes_word_for_word():
    # The tests build OpenClaw-written transcripts from these, so they must be checked against its code.
    code = _openclaw_code()
    assert json.loads((OPENCLAW / "package.json").read_text())["version"] == "2026.7.1"
    for spelling in fields(OPENCLAW_SPELLINGS):
        value = getattr(OPENCLAW_SPELLINGS, spelling.name)
        assert json.dumps(value) in code or f"`{value}`" in code, spelling.name


def test_none_of_our_texts_is_an_openclaw_spelling():
    ours = {getattr(DEFAULT_TEXTS, f.name) for f in fields(DEFAULT_TEXTS)}
    assert not ours & {getattr(OPENCLAW_SPELLINGS, f.name) for f in fields(OPENCLAW_SPELLINGS)}

