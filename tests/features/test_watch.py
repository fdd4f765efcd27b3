"""`promptc render --watch`: re-render on change, report the stable part, survive bad templates."""

from __future__ import annotations

import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from promptc.commands import cli
from promptc.commands import watch as watch_command
from promptc.commands.common import request_from_args
from promptc.features import watch

from support.guardrails import copy_safety, replace_in

TIMEOUT = 20.0
SETTLE = 0.6
"""Seconds between two edits, longer than the watcher's debounce so they render separately."""
QUIET = 4.0
"""How long a test waits to be sure no further render follows."""


@pytest.fixture
def project(make_workspace, write_yaml):
    """A workspace with a persona file, a config naming it and a run file."""
    workspace = make_workspace({"SOUL.md": "# Persona\n\nYou are Moss, a patient gardener.\n"})
    config = write_yaml("config.yaml", f"agents:\n  defaults:\n    workspace: {workspace}\n")
    run = write_yaml("run.yaml", "channel: telegram\nchat_type: direct\n")
    return workspace, config, run


def _watch(argv: list, edits: Callable[[threading.Event], None], renders: int, timeout: float = TIMEOUT) -> int:
    """Run the watch loop while a background thread edits files once the watcher is ready;
    `edits` gets the readiness event (cleared and set again whenever the watcher restarts)."""
    args = cli.command_parser("render").parse_args(["--watch", *map(str, argv)])
    ready = threading.Event()

    def edit() -> None:
        if ready.wait(TIMEOUT):
            edits(ready)

    thread = threading.Thread(target=edit, daemon=True)
    thread.start()
    code = watch_command.run(args, stop_after=renders, timeout=timeout, ready=ready)
    thread.join(TIMEOUT)
    return code


def _targets(*argv) -> watch.Targets:
    args = cli.command_parser("render").parse_args([*map(str, argv)])
    return watch.watch_targets(watch_command.named(args), lambda: request_from_args(args))


def test_a_workspace_edit_re_renders_and_names_the_changed_stable_section(project, capsys):
    workspace, config, run = project
    started = time.monotonic()
    code = _watch(
        ["--config", config, "--run", run], lambda _: replace_in(workspace / "SOUL.md", "patient", "cheerful"), 1
    )
    out, err = capsys.readouterr()
    assert code == 0
    assert time.monotonic() - started < TIMEOUT  # it stopped after the re-render, not on the timeout
    assert out.count("You are Moss, a patient gardener.") == 1
    assert out.count("You are Moss, a cheerful gardener.") == 1
    lines = err.splitlines()
    assert lines[0].startswith("promptc: stable part: ")
    assert lines[1] == (
        "promptc: SOUL.md changed; stable part changed: cache tier 2 invalidated by SOUL.md;"
        " cache tier 3 invalidated by SOUL.md (in an earlier tier)"
    )


def test_a_volatile_change_leaves_the_stable_part_alone(project, capsys):
    _, config, run = project
    code = _watch(["--config", config, "--run", run], lambda _: replace_in(run, "telegram", "discord"), 1)
    out, err = capsys.readouterr()
    assert code == 0
    assert "channel=discord" in out
    assert err.splitlines()[1] == "promptc: run.yaml changed; stable part unchanged"


def test_a_template_syntax_error_is_printed_and_the_fix_re_renders(project, tmp_path, capsys):
    _, config, run = project
    templates = tmp_path / "templates"
    section = copy_safety(templates)

    def break_then_fix(_ready: threading.Event) -> None:
        replace_in(section, "## Safety", "## Safety {% if %}")
        time.sleep(SETTLE)
        replace_in(section, "## Safety {% if %}", "## Safety rules")

    code = _watch(["--config", config, "--run", run, "--templates", templates], break_then_fix, 2)
    out, err = capsys.readouterr()
    assert code == 0
    lines = err.splitlines()
    assert lines[1].startswith(f"promptc: error: {section}:8:1: template syntax error")
    assert lines[2] == (
        "promptc: safety.md.j2 changed; stable part changed: cache tier 1 invalidated by section safety;"
        " cache tier 2 invalidated by section safety (in an earlier tier);"
        " cache tier 3 invalidated by section safety (in an earlier tier)"
    )
    assert "## Safety rules" in out


def test_an_error_before_the_first_render_does_not_stop_the_watch(project, capsys):
    _, config, run = project
    replace_in(run, "chat_type: direct", "chat_type: crowd")
    code = _watch(
        ["--config", config, "--run", run], lambda _: replace_in(run, "chat_type: crowd", "chat_type: group"), 1
    )
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
    workspace = workspace.resolve()
    targets = _targets("--config", config, "--out", workspace / "out.md")
    assert workspace in targets.dirs
    assert not targets.accepts(None, str(workspace / "out.md"))
    assert not targets.accepts(None, str(workspace / ".out.md.k3j9x_2q.tmp"))  # the atomic writer's temp file
    assert not targets.accepts(None, str(workspace / ".promptc" / "workspace-state.json"))
    assert targets.accepts(None, str(workspace / "SOUL.md"))
    assert targets.accepts(None, str(workspace / ".notes.md"))
    assert not targets.accepts(None, str(workspace / ".notes.md.tmp"))  # anyone's temp file
    assert targets.accepts(None, str(config.resolve()))
    assert not targets.accepts(None, str(config.resolve().parent / "unrelated.txt"))


def test_only_the_workspace_state_dir_is_ignored(project, tmp_path):
    _, config, _ = project
    templates = tmp_path / ".promptc" / "sections"
    templates.mkdir(parents=True)
    targets = _targets("--config", config, "--templates", templates)
    assert targets.accepts(None, str(templates.resolve() / "greeting.md.j2"))


def test_an_out_file_inside_the_workspace_renders_once_per_edit(project, capsys):
    workspace, config, run = project
    out = workspace / "prompt.md"
    edit = lambda _: replace_in(workspace / "SOUL.md", "patient", "cheerful")  # noqa: E731
    code = _watch(["--config", config, "--run", run, "--out", out], edit, renders=2, timeout=QUIET)
    _, err = capsys.readouterr()
    assert code == 0
    assert len(err.splitlines()) == 2, err  # the first render and one re-render, then quiet
    assert err.splitlines()[1].startswith("promptc: SOUL.md changed; ")
    assert "You are Moss, a cheerful gardener." in out.read_text(encoding="utf-8")


class _RecordingWatchfiles:
    """Stands in for watchfiles: records how each watcher is started and reports no change."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple, dict]] = []

    @staticmethod
    def DefaultFilter():
        return lambda _change, _path: True

    def watch(self, *paths, **options):
        self.calls.append((paths, options))
        return iter(())


def test_each_root_is_watched_without_recursion(project, tmp_path, monkeypatch):
    workspace, config, run = project
    (workspace / "memory").mkdir()
    (workspace / ".promptc").mkdir()
    (tmp_path / "unrelated" / "deep").mkdir(parents=True)  # beside config.yaml, not a target
    fake = _RecordingWatchfiles()
    monkeypatch.setattr(watch, "_watchfiles", lambda: fake)
    args = cli.command_parser("render").parse_args(["--watch", "--config", str(config), "--run", str(run)])
    assert watch_command.run(args, timeout=0.2) == 0
    paths, options = fake.calls[0]
    assert options["recursive"] is False
    roots = set(paths)
    assert {tmp_path.resolve(), workspace.resolve(), workspace.resolve() / "memory"} <= roots
    assert not {tmp_path.resolve() / "unrelated", tmp_path.resolve() / "unrelated" / "deep"} & roots
    assert workspace.resolve() / ".promptc" not in roots


def test_a_thousand_level_tree_and_a_link_to_the_root_give_a_bounded_watch(project):
    workspace, config, _ = project
    levels = [workspace / "notes"]
    for _ in range(1000):  # deeper than Python's recursion limit
        levels[-1].mkdir()
        levels.append(levels[-1] / "d")
    (workspace / "everything").symlink_to("/", target_is_directory=True)
    (workspace / "elsewhere").symlink_to(levels[3].parent, target_is_directory=True)
    try:
        roots = _targets("--config", config).roots
    finally:
        for level in reversed(levels[:-1]):  # pytest's own cleanup recurses once a level
            level.rmdir()
    ws = workspace.resolve()
    below = [path.relative_to(ws) for path in roots if path.is_relative_to(ws)]
    assert max(len(path.parts) for path in below) == watch.WATCH_DEPTH
    assert Path("everything") not in below  # a link to a dir holding the workspace leads around
    assert Path("elsewhere/d") in below  # a link elsewhere is followed
    assert not any(path.is_relative_to("/usr") for path in roots)


def test_a_config_in_a_dir_that_does_not_exist_yet_is_waited_for(project, tmp_path, capsys):
    _, config, run = project
    later = tmp_path / "later"

    def create(_ready: threading.Event) -> None:
        staging = tmp_path / "staging"
        staging.mkdir()
        (staging / "config.yaml").write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
        staging.rename(later)  # the dir appears with its config already inside

    code = _watch(["--config", later / "config.yaml", "--run", run], create, 1)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert code == 0
    assert lines[0].startswith("promptc: error: ") and "later/config.yaml" in lines[0]
    assert lines[1].startswith("promptc: later changed; stable part: ")
    assert "You are Moss, a patient gardener." in out


def test_pointing_the_config_at_another_workspace_watches_that_one(project, make_workspace, capsys):
    _, config, run = project
    other = make_workspace({"SOUL.md": "# Persona\n\nYou are Fern, a quiet botanist.\n"}, name="other")

    def move_then_edit(ready: threading.Event) -> None:
        ready.clear()  # the watcher sets it again once it has restarted on the other workspace
        replace_in(config, "/ws", "/other")
        assert ready.wait(TIMEOUT)
        replace_in(other / "SOUL.md", "quiet", "talkative")

    code = _watch(["--config", config, "--run", run], move_then_edit, 2)
    out, err = capsys.readouterr()
    assert code == 0
    assert "You are Fern, a talkative botanist." in out
    assert err.splitlines()[2] == (
        "promptc: SOUL.md changed; stable part changed: cache tier 2 invalidated by SOUL.md;"
        " cache tier 3 invalidated by SOUL.md (in an earlier tier)"
    )


def test_a_file_in_a_dir_created_while_watching_is_seen(project, capsys):
    workspace, config, run = project
    skill = workspace / "skills" / "tidy"

    def add_skill(ready: threading.Event) -> None:
        ready.clear()  # set again once the watcher has restarted with the new dirs
        skill.mkdir(parents=True)
        assert ready.wait(TIMEOUT)
        (skill / "SKILL.md").write_text(
            "---\nname: tidy\ndescription: Tidy the pantry shelves.\n---\n", encoding="utf-8"
        )

    code = _watch(["--config", config, "--run", run], add_skill, 2)
    out, err = capsys.readouterr()
    assert code == 0
    assert err.splitlines()[2].startswith(
        "promptc: SKILL.md changed; stable part changed: cache tier 1 invalidated by section skills;"
    )
    assert "Tidy the pantry shelves." in out


def test_a_symlinked_dir_in_the_workspace_is_watched_and_a_link_cycle_ends(project, tmp_path):
    workspace, config, _ = project
    shared = tmp_path / "shared-skills"
    (shared / "tidy").mkdir(parents=True)
    (workspace / "skills").symlink_to(shared, target_is_directory=True)
    (shared / "tidy" / "loop").symlink_to(shared, target_is_directory=True)
    roots = _targets("--config", config).roots  # returns: the cycle is entered once
    skills = workspace.resolve() / "skills"
    assert skills / "tidy" in roots
    assert skills / "tidy" / "loop" not in roots


# --------------------------------------------------------------------------- editor files, rule lines


@pytest.mark.parametrize(
    "name",
    [
        "sedL27VaR",
        "4913",
        ".SOUL.md.swp",
        ".SOUL.md.swx",
        "SOUL.md~",
        ".#SOUL.md",
        "#SOUL.md#",
        "SOUL.md.tmp",
        "SOUL.md___jb_tmp___",
        ".goutputstream-ABC123",
        ".~lock.notes.odt#",
        "SOUL.md.kate-swp",
    ],
)
def test_editor_temp_and_swap_files_never_trigger_a_render(project, name):
    workspace, config, _ = project
    targets = _targets("--config", config)
    assert not targets.accepts(None, str(workspace.resolve() / name))


@pytest.mark.parametrize("name", ["SOUL.md", "sed.md", "notes", "4913.md", "skills"])
def test_ordinary_names_still_do(project, name):
    workspace, config, _ = project
    assert _targets("--config", config).accepts(None, str(workspace.resolve() / name))


def _sed_in_place(path, old: str, new: str) -> None:
    """What `sed -i` does: write a temp file `sedXXXXXX` beside the file, then rename it over."""
    temp = path.parent / "sedL27VaR"
    temp.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    temp.replace(path)


def test_a_sed_edit_names_only_the_real_file_and_re_renders_follow_a_rule_line(project, capsys):
    workspace, config, run = project

    def edits(_ready: threading.Event) -> None:
        (workspace / ".SOUL.md.swp").write_text("vim swap", encoding="utf-8")  # alone: no render
        (workspace / "4913").write_text("", encoding="utf-8")
        time.sleep(SETTLE)
        _sed_in_place(workspace / "SOUL.md", "patient", "cheerful")
        time.sleep(SETTLE)
        _sed_in_place(workspace / "SOUL.md", "cheerful", "quiet")

    code = _watch(["--config", config, "--run", run], edits, 2)
    out, err = capsys.readouterr()
    assert code == 0
    changed = (
        "promptc: SOUL.md changed; stable part changed: cache tier 2 invalidated by SOUL.md;"
        " cache tier 3 invalidated by SOUL.md (in an earlier tier)"
    )
    assert err.splitlines()[1:] == [changed, changed]
    rules = re.findall(r"^==== (\d\d:\d\d:\d\d)  (.*) =+$", out, flags=re.MULTILINE)
    assert [what for _, what in rules] == ["SOUL.md changed", "SOUL.md changed"]
    first, second, third = re.split(r"^==== .*$", out, flags=re.MULTILINE)
    assert "patient gardener" in first and "cheerful gardener" in second and "quiet gardener" in third
    assert "sedL27VaR" not in out + err and "4913" not in err


def test_the_rule_line_is_not_written_into_an_out_file(project, capsys):
    workspace, config, run = project
    target = workspace.parent / "prompt.md"
    code = _watch(
        ["--config", config, "--run", run, "--out", target],
        lambda _: _sed_in_place(workspace / "SOUL.md", "patient", "calm"),
        1,
    )
    out, _ = capsys.readouterr()
    assert code == 0 and out == ""
    assert "====" not in target.read_text(encoding="utf-8") and "calm gardener" in target.read_text(encoding="utf-8")


def test_rule_line_shape():
    line = watch.rule_line("14:03:22", ["SOUL.md", "TOOLS.md"])
    assert line == "\n==== 14:03:22  SOUL.md, TOOLS.md changed " + "=" * (watch.RULE_WIDTH - 41) + "\n\n"
    assert len(line.strip()) == watch.RULE_WIDTH
