"""Safe reads (_lib/fsutil.py): reads that refuse anything but a small regular file, and opening
below a directory without following a link out of it."""

from __future__ import annotations

import errno
import json
import os

import pytest

from promptc._lib.errors import TranscriptError

from support.threads import within_seconds


def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path):
    from promptc._lib.fsutil import Refused, read_regular

    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    outcome = within_seconds(lambda: read_regular(fifo, 1000))
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
    outcome = within_seconds(lambda: run_cli(*args))
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
