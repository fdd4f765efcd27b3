"""Atomic file replacement."""

from __future__ import annotations

import os
import stat

import pytest

from compiler.errors import TranscriptError
from compiler.transcript.files import atomic_write


def test_writes_the_chunks_and_sets_the_mode(tmp_path):
    target = tmp_path / "out.json"
    atomic_write(target, [b"a", b"b"], mode=0o604)
    assert target.read_bytes() == b"ab" and stat.S_IMODE(target.stat().st_mode) == 0o604
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_error_while_producing_chunks_leaves_the_target_and_no_temp_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"old")

    def chunks():
        yield b"new"
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError):
        atomic_write(target, chunks())
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_os_error_becomes_a_transcript_error_naming_the_target(tmp_path, monkeypatch):
    target = tmp_path / "out.json"

    def refuse(*_):
        raise PermissionError("read-only")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(TranscriptError) as raised:
        atomic_write(target, [b"x"])
    assert str(raised.value).startswith(f"{target}: ") and list(tmp_path.iterdir()) == []
