"""Files read and written safely (_lib/fsutil.py): atomic writes, `--out` written through links,
pipes and devices, reads that refuse anything but a small regular file, and opening below a
directory without following a link out of it."""

from __future__ import annotations

import errno
import json
import os
import stat
import threading

import pytest

from promptc._lib.errors import TranscriptError
from promptc._lib.fsutil import write_chunks_atomic, write_text_atomic


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
    code, out, err = _within_seconds(lambda: _render_to(run_cli, ws, fifo))["value"]
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


def _within_seconds(action, seconds: float = 5.0):
    """Run `action` in a thread; fail (instead of hanging the suite) if it does not return."""
    import threading

    result: dict[str, object] = {}

    def run() -> None:
        try:
            result["value"] = action()
        except BaseException as error:
            result["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the read blocked"
    return result


def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path):
    from promptc._lib.fsutil import Refused, read_regular

    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    outcome = _within_seconds(lambda: read_regular(fifo, 1000))
    assert isinstance(outcome.get("error"), Refused) and outcome["error"].reason == "not a regular file"


def test_a_link_to_dev_zero_is_refused_without_reading_it(tmp_path):
    from promptc._lib.fsutil import Refused, read_regular

    link = tmp_path / "run.yaml"
    link.symlink_to("/dev/zero")
    with pytest.raises(Refused, match="not a regular file"):
        read_regular(link, 1000)


def test_a_file_over_the_cap_is_refused(tmp_path):
    from promptc._lib.fsutil import Refused, read_input, read_regular

    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(Refused, match="1001 bytes"):
        read_regular(big, 1000)
    with pytest.raises(TranscriptError, match="cannot read file: it is 1001 bytes"):
        read_input(big, TranscriptError, limit=1000)
    assert read_regular(big, 1001)[0] == b"x" * 1001


@pytest.mark.parametrize("flag", ["--config", "--run", "--contributions", "--session-state"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_every_user_named_input_refuses_fifos_and_devices_with_one_line(run_cli, make_workspace, tmp_path, flag, kind):
    target = tmp_path / "input.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    args = ["render", "--workspace", make_workspace({"SOUL.md": "s" * 50}), flag, target]
    if flag == "--session-state":  # read only when the warning mode asks for it
        args += [
            "--set",
            "agents.defaults.bootstrapMaxChars=10",
            "--set",
            "agents.defaults.bootstrapPromptTruncationWarning=once",
        ]
    outcome = _within_seconds(lambda: run_cli(*args))
    code, out, err = outcome["value"]
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {target}") and "not a regular file" in err
    assert len(err.splitlines()) == 1


def test_open_beneath_follows_links_inside_and_refuses_links_out(tmp_path):
    from promptc._lib.fsutil import Refused, open_beneath, open_directory, path_spellings

    root = tmp_path / "ws"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "soul.md").write_text("inside")
    (tmp_path / "secret.md").write_text("outside")
    (root / "relative.md").symlink_to("notes/soul.md")
    (root / "absolute.md").symlink_to(root / "notes" / "soul.md")
    (root / "escape.md").symlink_to("../secret.md")
    (root / "escape-abs.md").symlink_to(tmp_path / "secret.md")
    (root / "loop.md").symlink_to("loop.md")
    fd = open_directory(root)
    try:
        spellings = path_spellings(root, fd)
        for name in ("relative.md", "absolute.md"):
            handle = open_beneath(fd, name, spellings)
            assert os.read(handle, 100) == b"inside"
            os.close(handle)
        for name in ("escape.md", "escape-abs.md"):
            with pytest.raises(Refused) as refused:
                open_beneath(fd, name, spellings)
            assert refused.value.reason == "outside workspace"
        with pytest.raises(OSError) as looped:
            open_beneath(fd, "loop.md", spellings)
        assert looped.value.errno == errno.ELOOP
    finally:
        os.close(fd)


def test_open_beneath_may_enter_an_allowed_directory(tmp_path):
    from promptc._lib.fsutil import open_beneath, open_directory, path_spellings

    root, shared = tmp_path / "ws", tmp_path / "shared"
    root.mkdir()
    shared.mkdir()
    (shared / "a.md").write_text("shared text")
    (root / "link.md").symlink_to(shared / "a.md")
    fd = open_directory(root)
    try:
        handle = open_beneath(fd, "link.md", path_spellings(root, fd), allowed=(str(shared),))
        assert os.read(handle, 100) == b"shared text"
        os.close(handle)
    finally:
        os.close(fd)


def _context(run_cli, ws, *flags):
    code, out, err = run_cli("context", "--workspace", ws, "--format", "json", *flags)
    assert (code, err) == (0, ""), err
    document = json.loads(out)
    return {s["name"] for s in document["skills"] if s["included"]}, document["warnings"]


def _skill(directory, name):
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: The {name} skill\n---\n")


def test_a_relative_link_into_an_allowed_directory_is_followed_like_an_absolute_one(run_cli, tmp_path):
    real, shared = tmp_path / "real", tmp_path / "real" / "shared"
    ws = real / "ws"
    (ws / "skills").mkdir(parents=True)
    _skill(shared / "rel", "by-relative-link")
    _skill(shared / "abs", "by-absolute-link")
    _skill(tmp_path / "shared" / "rel", "decoy")  # where `..` would lead from the link's spelling
    (ws / "skills" / "rel").symlink_to("../../shared/rel")
    (ws / "skills" / "abs").symlink_to(shared / "abs")
    (tmp_path / "ws-link").symlink_to(ws)  # the workspace named through a link: `..` is physical
    allow = f"skills.load.allowSymlinkTargets=[{json.dumps(str(shared))}]"
    for named in (ws, tmp_path / "ws-link"):
        assert _context(run_cli, named, "--set", allow) == ({"by-relative-link", "by-absolute-link"}, [])
    listed, warnings = _context(run_cli, ws)
    assert listed == set()
    assert [w.split(": ", 1)[0] for w in warnings] == [str(ws / "skills" / "abs"), str(ws / "skills" / "rel")]
    assert all(f"resolves to {shared}/" in w and "allowSymlinkTargets" in w for w in warnings)


def test_a_relative_link_that_climbs_out_and_back_in_stays_inside(run_cli, tmp_path):
    ws = tmp_path / "ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "soul.md").write_text("The soul, kept in notes.\n")
    (ws / "SOUL.md").symlink_to("../ws/notes/soul.md")
    (tmp_path / "secret.md").write_text("SECRET\n")
    (ws / "USER.md").symlink_to("../ws/../secret.md")
    code, out, err = run_cli("render", "--workspace", ws, "--no-state")
    assert code == 0
    assert err.startswith(
        f"promptc: warning: USER.md resolves to {tmp_path / 'secret.md'}, outside its root; skipped\n"
    )
    assert "The soul, kept in notes." in out and "SECRET" not in out


def test_a_link_target_with_a_line_break_is_one_warning_line(run_cli, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "SOUL.md").symlink_to("/nowhere\npromptc: error: forged")
    (ws / "skills").mkdir()
    away = tmp_path / "away\npromptc: error: forged"
    away.mkdir()
    (ws / "skills" / "away").symlink_to(away)
    code, out, err = run_cli("context", "--workspace", ws, "--format", "json")
    assert (code, err) == (0, "")
    warnings = json.loads(out)["warnings"]
    assert "SOUL.md resolves to /nowhere\\npromptc: error: forged, outside its root; skipped" in warnings
    assert any(
        w.startswith(f"{ws}/skills/away: resolves to {tmp_path}/away\\npromptc: error: forged, outside")
        for w in warnings
    )
    assert all("\n" not in w for w in warnings)
