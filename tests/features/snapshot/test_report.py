"""What `promptc snapshot check` prints (features/snapshot/report.py): a diff per drifted file,
stable.md first, one line per invalidated cache tier naming what invalidated it, word-level
colour diffs on a terminal (`--color`, NO_COLOR), and failed expectations after the drift."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

import pytest

from support.guardrails import SCENARIOS, replace_in
from support.paths import REPO

RED_STRUCK, GREEN_UNDERLINED, RESET = "\x1b[31m\x1b[9m", "\x1b[32m\x1b[4m", "\x1b[0m"


def test_one_word_in_a_stable_template_is_drift_in_stable_md(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "telegram-direct/stable.md: differs from the generated output; the STABLE part changed" in out
    assert "cache invalidation" in out
    assert "--- telegram-direct/stable.md (committed)" in out
    assert "-- Do not seek power, resources" in out
    assert "+- Do not seek influence, resources" in out
    assert "\x1b[" not in out  # not a terminal: no colour
    # The safety section is stable and absent from none mode: those files cannot drift.
    assert "telegram-direct/volatile.md" not in out
    assert "none-mode/" not in out
    invalidated = [name for name in SCENARIOS if name != "none-mode"]
    assert out.splitlines()[-1] == f"cache invalidated: the stable part changed in {', '.join(invalidated)}"


def test_a_drifted_stable_part_names_each_invalidated_tier_on_a_line_of_its_own(run_cli, snapshots):
    user = snapshots / "_fixtures" / "household" / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Prefers tea after six.\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    lines = out.splitlines()
    start = lines.index("telegram-direct/stable.md: cache tier 2 invalidated by USER.md")
    assert lines[start + 1] == "telegram-direct/stable.md: cache tier 3 invalidated by USER.md (in an earlier tier)"
    assert lines[start + 2] == "--- telegram-direct/stable.md (committed)"
    assert not any("; cache tier" in line for line in lines)
    assert "telegram-direct/stable.md: cache tier 1" not in out  # USER.md is in tier 2


def test_a_template_change_names_the_section_in_the_first_tier(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "cron-job/stable.md: cache tier 1 invalidated by section safety\n" in out
    assert "cron-job/stable.md: cache tier 2 invalidated by section safety (in an earlier tier)\n" in out


def test_stable_md_comes_before_context_json_in_each_scenario(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    for name in ("cron-job", "telegram-direct"):
        stable = out.index(f"{name}/stable.md: differs")
        assert stable < out.index(f"{name}/context.json: differs")
    assert out.index("codex-harness/context.json: differs") < out.index("cron-job/stable.md: differs")


def test_color_always_gives_a_coloured_word_diff(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety, "--color", "always")
    assert code == 1
    assert f"- Do not seek {RED_STRUCK}power{RESET}{GREEN_UNDERLINED}influence{RESET}, resources" in out
    assert "\n-- Do not seek power" not in out  # a word diff, not a unified one
    for line in out.splitlines():  # every mark ends on its own line
        codes = re.findall(r"\x1b\[[0-9;]*m", line)
        assert not codes or codes[-1] == RESET


def test_color_never_is_plain_and_always_wins_over_no_color(run_cli, snapshots, edited_safety, monkeypatch):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety, "--color", "never")
    assert code == 1 and "\x1b[" not in out and "+- Do not seek influence," in out
    monkeypatch.setenv("NO_COLOR", "1")
    assert (
        "\x1b["
        in run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety, "--color", "always")[1]
    )


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """What `promptc ARGS` writes when its stdout is a terminal (read while it runs, so it never
    waits on a full terminal buffer)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "promptc", *args], stdout=follower, env=env)
    os.close(follower)
    chunks = []
    try:
        while chunk := _read(leader):
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert process.wait(timeout=120) == 1
    return b"".join(chunks).decode("utf-8")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the program closed the terminal
        return b""


@pytest.mark.parametrize(("no_color", "coloured"), [("", True), ("1", False)])
def test_auto_colours_a_terminal_unless_no_color_is_set(snapshots, edited_safety, no_color, coloured):
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO), "NO_COLOR": no_color, "TERM": "xterm"}
    env["PROMPTC_CACHE_DIR"] = os.environ["PROMPTC_CACHE_DIR"]
    out = _on_a_terminal(["snapshot", "check", "--dir", str(snapshots), "--templates", str(edited_safety)], env)
    assert (RED_STRUCK + "power" in out) is coloured
    assert ("+- Do not seek influence," in out) is not coloured


def test_failed_expectations_follow_the_drift(run_cli, snapshots, edited_safety):
    replace_in(snapshots / "cron-job" / "scenario.yaml", "present: [safety]", "present: [safety, sandbox]")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    lines = out.splitlines()
    drift = next(i for i, line in enumerate(lines) if line.startswith("snapshot drift: "))
    failure = next(i for i, line in enumerate(lines) if ": expect sections.present sandbox: " in line)
    assert drift < failure
    assert lines[-1].startswith("snapshot expectations: 1 of ")
