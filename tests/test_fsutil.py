"""Atomic file writes (compiler/fsutil.py)."""

from __future__ import annotations

import os
import stat

import pytest

from promptc.errors import TranscriptError
from promptc.fsutil import write_chunks_atomic, write_text_atomic


def test_writes_the_chunks_and_sets_the_mode(tmp_path):
    target = tmp_path / "out.json"
    write_chunks_atomic(target, [b"a", b"b"], mode=0o604)
    assert target.read_bytes() == b"ab" and stat.S_IMODE(target.stat().st_mode) == 0o604
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_error_while_producing_chunks_leaves_the_target_and_no_temp_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"old")

    def chunks():
        yield b"new"
        raise RuntimeError("producer failed")

    with pytest.raises(RuntimeError):
        write_chunks_atomic(target, chunks())
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_an_os_error_becomes_the_given_error_naming_the_target(tmp_path, monkeypatch):
    target = tmp_path / "out.json"

    def refuse(*_):
        raise PermissionError("read-only")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(TranscriptError) as raised:
        write_chunks_atomic(target, [b"x"], error=TranscriptError)
    assert str(raised.value).startswith(f"{target}: ") and list(tmp_path.iterdir()) == []


def test_an_existing_file_keeps_its_mode_and_a_new_one_is_0644(tmp_path):
    kept, new = tmp_path / "kept.txt", tmp_path / "new.txt"
    kept.write_text("old")
    kept.chmod(0o600)
    write_text_atomic(kept, "fresh")
    write_text_atomic(new, "fresh")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and kept.read_text() == "fresh"
    assert stat.S_IMODE(new.stat().st_mode) == 0o644


def test_an_unwritable_place_is_a_one_line_error_through_the_cli(run_cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, out, err = run_cli("render", "--workspace", tmp_path, "--out", blocker / "prompt.txt")
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {blocker / 'prompt.txt'}: cannot write") and err.count("\n") == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_a_rewritten_file_keeps_its_owner(tmp_path):
    target = tmp_path / "session.jsonl"
    target.write_text("old")
    os.chown(target, 65534, 65534)
    write_text_atomic(target, "new")
    assert (target.stat().st_uid, target.stat().st_gid) == (65534, 65534) and target.read_text() == "new"
