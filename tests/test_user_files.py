"""Files and trees the user controls: a FIFO where promptc reads a file never blocks it (each place
gives one error line, a finding, or leaves the file out), and a deep tree or a link to `/` in a
template dir is walked to a bound, never into a RecursionError or across the disk. (A session
file that is a FIFO: tests/commands/test_transcript.py.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from promptc._lib import entrypoints, fsutil

SECTION = "---\nid: house\norder: 950\nside: stable\nmodes: [full]\n---\n## House Rules\n"


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


# --------------------------------------------------------------------------- FIFOs


def test_the_stream_reader_refuses_a_fifo_and_reads_a_regular_file(tmp_path):
    fifo = _fifo(tmp_path / "session.jsonl")
    with pytest.raises(fsutil.Refused, match="not a regular file"):
        fsutil.open_regular(fifo)
    with pytest.raises(fsutil.Refused, match="not a regular file"):
        fsutil.read_head(fifo, 10)
    (tmp_path / "plain.txt").write_bytes(b"0123456789abc")
    assert fsutil.read_head(tmp_path / "plain.txt", 10) == b"0123456789"
    with fsutil.open_regular(tmp_path / "plain.txt") as handle:
        assert handle.read() == b"0123456789abc"


def test_an_entry_points_file_that_is_a_fifo_is_skipped(tmp_path, monkeypatch):
    _fifo(tmp_path / "hostile-1.0.dist-info" / "entry_points.txt")
    (tmp_path / "plain-1.0.dist-info").mkdir()
    (tmp_path / "plain-1.0.dist-info" / "entry_points.txt").write_text("[promptc.test_group]\nx = y:z\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    entrypoints.declared_groups.cache_clear()
    try:
        groups = entrypoints.declared_groups()
    finally:
        entrypoints.declared_groups.cache_clear()
    assert groups is None or groups == {"promptc.test_group"}


@pytest.mark.parametrize(
    "fifo_name",
    ["partials/notes.md.j2", "partials/deep/draft.md", "safety.j2", "sections/shop.md", "sections/later.md.j2"],
)
def test_a_fifo_in_a_template_dir_is_never_read_by_render_or_lint(run_cli, tmp_path, make_workspace, fifo_name):
    templates = tmp_path / "mytemplates"
    (templates / "sections").mkdir(parents=True)
    (templates / "sections" / "house.md.j2").write_text(SECTION, encoding="utf-8")
    _fifo(templates / fifo_name)
    code, out, err = run_cli("lint", "--templates", templates)
    assert code in (0, 1) and "Traceback" not in err, err
    code, out, err = run_cli(
        "render", "--templates", templates, "--workspace", make_workspace({"AGENTS.md": "# Agents\n"})
    )
    assert code == 0, err
    assert "## House Rules" in out


def _bundle_with(run_cli, small_args, out: Path, replace: str) -> None:
    assert run_cli(*small_args, "--out", out)[0] == 0
    victim = min((out / "stable").iterdir()) if replace == "stable" else out / replace
    victim.unlink()
    os.mkfifo(victim)


@pytest.mark.parametrize(
    "replace, says",
    [("stable", "stable/"), ("manifest.json", "manifest.json: missing")],
)
def test_a_fifo_in_a_bundle_is_a_check_finding(run_cli, small_args, tmp_path, replace, says):
    out = tmp_path / "b"
    _bundle_with(run_cli, small_args, out, replace)
    code, report, err = run_cli(*small_args, "--out", out, "--check")
    assert (code, err) == (1, "")
    assert says in report


def test_a_fifo_in_place_of_the_bundle_marker_stops_a_rebuild(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    _bundle_with(run_cli, small_args, out, ".promptc-bundle")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and err.startswith("promptc: error: ") and err.count("\n") == 1
    assert (out / ".promptc-bundle").is_fifo()


# --------------------------------------------------------------------------- walks


@pytest.fixture
def deep_tree():
    """Makes a chain of nested folders (`make(root, levels)`, returns the deepest) and removes it
    again one level at a time, up to `root`: pytest's own clean-up recurses once a level."""
    made: list[tuple[Path, Path]] = []

    def make(root: Path, levels: int) -> Path:
        deepest = _deep(root, levels)
        made.append((root, deepest))
        return deepest

    yield make
    for root, folder in made:
        while folder != root:
            for child in folder.iterdir():
                child.unlink()
            folder.rmdir()
            folder = folder.parent


def _deep(root: Path, levels: int) -> Path:
    """A chain of `levels` nested folders below `root`, made one level at a time; returns the deepest."""
    deepest = root
    for _ in range(levels):
        deepest = deepest / "d"
        deepest.mkdir(parents=deepest.parent == root)
    return deepest


@pytest.mark.parametrize("shape", ["1000 levels deep", "a link to /", "a link loop"])
def test_a_hostile_partials_tree_is_walked_to_a_bound(run_cli, tmp_path, make_workspace, deep_tree, shape):
    templates = tmp_path / "mytemplates"
    (templates / "sections").mkdir(parents=True)
    (templates / "sections" / "house.md.j2").write_text(SECTION, encoding="utf-8")
    partials = templates / "partials"
    if shape == "1000 levels deep":
        (deep_tree(partials, 1000) / "misplaced.md.j2").write_text(SECTION, encoding="utf-8")
        (partials / "shallow.md.j2").write_text(SECTION, encoding="utf-8")
    elif shape == "a link to /":
        partials.mkdir()
        (partials / "root").symlink_to("/", target_is_directory=True)
        (partials / "shallow.md.j2").write_text(SECTION, encoding="utf-8")
    else:
        (partials / "a").mkdir(parents=True)
        (partials / "a" / "back").symlink_to(partials, target_is_directory=True)
        (partials / "shallow.md.j2").write_text(SECTION, encoding="utf-8")
    code, _, err = run_cli(
        "render", "--templates", templates, "--workspace", make_workspace({"AGENTS.md": "# Agents\n"})
    )
    assert code == 0 and "Traceback" not in err, err
    assert "partials/shallow.md.j2: has section metadata but is in partials/" in err
    assert "misplaced.md.j2" not in err  # far below the walk's depth: not looked at
