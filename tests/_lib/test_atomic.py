"""Atomic writes (_lib/atomic.py): a failed write leaves the target as it was, modes and owners
kept, and `--out` written through links, into pipes and devices, never over a directory."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from promptc._lib.atomic import write_chunks_atomic, write_text_atomic
from promptc._lib.errors import TranscriptError

from support.threads import within_seconds


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


# --------------------------------------------------------------------------- --out writes through


def _render_to(run_cli, workspace, out) -> tuple[int, str, str]:
    return run_cli("render", "--workspace", workspace, "--out", out)


def test_out_through_a_symlink_replaces_the_target_and_keeps_the_link(run_cli, tmp_path):
    ws, real = tmp_path / "ws", tmp_path / "real" / "prompt.txt"
    ws.mkdir()
    real.parent.mkdir()
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "prompt-link.txt"
    link.symlink_to(real)
    code, _, err = _render_to(run_cli, ws, link)
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert "PROMPT_CACHE_BOUNDARY" in real.read_text() and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["prompt.txt"]  # no temp file left


def test_out_through_a_dangling_symlink_creates_its_target(run_cli, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    link, target = tmp_path / "link.txt", tmp_path / "made.txt"
    link.symlink_to(target)
    code, _, err = _render_to(run_cli, ws, link)
    assert code == 0, err
    assert link.is_symlink() and target.is_file() and "PROMPT_CACHE_BOUNDARY" in target.read_text()


def test_out_into_a_fifo_writes_to_its_reader_and_leaves_the_fifo(run_cli, tmp_path):
    ws, fifo = tmp_path / "ws", tmp_path / "pipe"
    ws.mkdir()
    os.mkfifo(fifo)
    received: list[bytes] = []
    read_end = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there before promptc opens it
    reader = threading.Thread(target=lambda: received.append(_drain(read_end)), daemon=True)
    reader.start()
    code, _, err = _render_to(run_cli, ws, fifo)
    reader.join(timeout=30)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and b"PROMPT_CACHE_BOUNDARY" in received[0]


def _drain(fd: int) -> bytes:
    """Everything written into the FIFO read end `fd` (opened non-blocking) until its writer closes."""
    import select

    chunks = []
    while True:
        select.select([fd], [], [])  # no data and no writer yet: wait (EOF only counts once one came)
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not chunk:
            os.close(fd)
            return b"".join(chunks)
        chunks.append(chunk)


def test_out_into_a_fifo_no_one_reads_is_refused_at_once(run_cli, tmp_path):
    ws, fifo = tmp_path / "ws", tmp_path / "pipe"
    ws.mkdir()
    os.mkfifo(fifo)
    code, out, err = within_seconds(lambda: _render_to(run_cli, ws, fifo))["value"]
    assert code == 2 and out == ""
    assert err == f"promptc: error: {fifo}: cannot write: a FIFO with no reader; refusing to wait for one\n"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_to_proc_self_fd_writes_to_that_descriptor(run_cli, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    read_end, write_end = os.pipe()
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(os.fdopen(read_end, "rb").read()), daemon=True)
    reader.start()
    try:
        code, _, err = _render_to(run_cli, ws, f"/proc/self/fd/{write_end}")
    finally:
        os.close(write_end)
    reader.join(timeout=30)
    assert code == 0, err
    assert b"PROMPT_CACHE_BOUNDARY" in chunks[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_out_to_a_character_device_writes_to_it_and_keeps_the_device(run_cli, tmp_path):
    ws, device = tmp_path / "ws", tmp_path / "null"
    ws.mkdir()
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # the same device as /dev/null
    code, _, err = _render_to(run_cli, ws, device)
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(device).st_mode)


def test_out_to_a_directory_is_refused_and_left_alone(run_cli, tmp_path):
    ws, directory = tmp_path / "ws", tmp_path / "dir"
    ws.mkdir()
    directory.mkdir()
    (directory / "keep.txt").write_text("mine")
    code, out, err = _render_to(run_cli, ws, directory)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"promptc: error: {directory}: cannot write: a directory")
    assert (directory / "keep.txt").read_text() == "mine"


def test_a_state_file_write_replaces_a_symlink_instead_of_writing_through_it(tmp_path):
    # State files live in a workspace promptc does not trust: a planted link must not redirect the write.
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    planted = tmp_path / "workspace-state.json"
    planted.symlink_to(outside)
    write_text_atomic(planted, "{}\n")
    assert not planted.is_symlink() and planted.read_text() == "{}\n"
    assert outside.read_text() == "precious"


# --------------------------------------------------------------------------- safe reads
