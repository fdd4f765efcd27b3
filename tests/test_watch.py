"""`promptc render --watch`: re-render on change, report the stable part, survive bad templates."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from compiler import cli, watch
from conftest import REPO

TIMEOUT = 20.0
SETTLE = 0.6
"""Seconds between two edits, longer than the watcher's debounce so they render separately."""


@pytest.fixture
def project(make_workspace, write_yaml):
    """A workspace with a persona file, a config naming it and a run file."""
    workspace = make_workspace({"SOUL.md": "# Persona\n\nYou are Moss, a patient gardener.\n"})
    config = write_yaml("config.yaml", f"agents:\n  defaults:\n    workspace: {workspace}\n")
    run = write_yaml("run.yaml", "channel: telegram\nchat_type: direct\n")
    return workspace, config, run


def _watch(argv: list, edits: Callable[[], None], renders: int) -> int:
    """Run the watch loop while a background thread edits files once the watcher is ready."""
    args = cli.build_parser().parse_args(["render", "--watch", *map(str, argv)])
    ready = threading.Event()

    def edit() -> None:
        if ready.wait(TIMEOUT):
            edits()

    thread = threading.Thread(target=edit, daemon=True)
    thread.start()
    code = watch.run(args, stop_after=renders, timeout=TIMEOUT, ready=ready)
    thread.join(TIMEOUT)
    return code


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_a_workspace_edit_re_renders_and_names_the_changed_stable_section(project, capsys):
    workspace, config, run = project
    started = time.monotonic()
    code = _watch(["--config", config, "--run", run], lambda: _replace(workspace / "SOUL.md", "patient", "cheerful"), 1)
    out, err = capsys.readouterr()
    assert code == 0
    assert time.monotonic() - started < TIMEOUT  # it stopped after the re-render, not on the timeout
    assert out.count("You are Moss, a patient gardener.") == 1
    assert out.count("You are Moss, a cheerful gardener.") == 1
    lines = err.splitlines()
    assert lines[0].startswith("promptc: stable part: ")
    assert lines[1] == "promptc: SOUL.md changed; stable part changed: sections project_context (cache invalidated)"


def test_a_volatile_change_leaves_the_stable_part_alone(project, capsys):
    _, config, run = project
    code = _watch(["--config", config, "--run", run], lambda: _replace(run, "telegram", "discord"), 1)
    out, err = capsys.readouterr()
    assert code == 0
    assert "channel=discord" in out
    assert err.splitlines()[1] == "promptc: run.yaml changed; stable part unchanged"


def test_a_template_syntax_error_is_printed_and_the_fix_re_renders(project, tmp_path, capsys):
    _, config, run = project
    templates = tmp_path / "templates"
    templates.mkdir()
    section = templates / "safety.md.j2"
    section.write_text((REPO / "templates" / "sections" / "safety.md.j2").read_text(encoding="utf-8"), encoding="utf-8")

    def break_then_fix() -> None:
        _replace(section, "## Safety", "## Safety {% if %}")
        time.sleep(SETTLE)
        _replace(section, "## Safety {% if %}", "## Safety rules")

    code = _watch(["--config", config, "--run", run, "--templates", templates], break_then_fix, 2)
    out, err = capsys.readouterr()
    assert code == 0
    lines = err.splitlines()
    assert lines[1].startswith(f"promptc: error: {section}:8:1: template syntax error")
    assert lines[2] == "promptc: safety.md.j2 changed; stable part changed: sections safety (cache invalidated)"
    assert "## Safety rules" in out


def test_an_error_before_the_first_render_does_not_stop_the_watch(project, capsys):
    _, config, run = project
    _replace(run, "chat_type: direct", "chat_type: crowd")
    code = _watch(["--config", config, "--run", run], lambda: _replace(run, "chat_type: crowd", "chat_type: group"), 1)
    _, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 0
    assert lines[0].startswith("promptc: error: ") and "chat_type" in lines[0]
    assert lines[1].startswith("promptc: run.yaml changed; stable part: ")


def test_without_watchfiles_the_error_says_how_to_install_it(project, monkeypatch, run_cli):
    _, config, run = project
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # makes `import watchfiles` fail
    code, _, err = run_cli("render", "--watch", "--config", config, "--run", run)
    assert code == 2
    assert err == "promptc: error: --watch needs the watchfiles package: pip install 'promptc[watch]'\n"


def test_the_output_file_and_workspace_state_never_trigger_a_render(project):
    workspace, config, _ = project
    args = cli.build_parser().parse_args(["render", "--config", str(config), "--out", str(workspace / "out.md")])
    targets = watch.watch_targets(args)
    assert workspace.resolve() in targets.dirs
    assert not targets.accepts(None, str((workspace / "out.md").resolve()))
    assert not targets.accepts(None, str(workspace.resolve() / ".promptc" / "workspace-state.json"))
    assert targets.accepts(None, str(workspace.resolve() / "SOUL.md"))
    assert targets.accepts(None, str(config.resolve()))
    assert not targets.accepts(None, str(config.resolve().parent / "unrelated.txt"))


def test_pointing_the_config_at_another_workspace_watches_that_one(project, make_workspace, capsys):
    _, config, run = project
    other = make_workspace({"SOUL.md": "# Persona\n\nYou are Fern, a quiet botanist.\n"}, name="other")

    def move_then_edit() -> None:
        _replace(config, "/ws", "/other")
        time.sleep(SETTLE)
        _replace(other / "SOUL.md", "quiet", "talkative")

    code = _watch(["--config", config, "--run", run], move_then_edit, 2)
    out, err = capsys.readouterr()
    assert code == 0
    assert "You are Fern, a talkative botanist." in out
    assert err.splitlines()[2] == "promptc: SOUL.md changed; stable part changed: sections project_context (cache invalidated)"
