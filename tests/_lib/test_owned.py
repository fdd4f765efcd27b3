"""Paths below a directory promptc owns, and the bounded walk of a tree."""

from __future__ import annotations

import os

import pytest

from promptc._lib.fsutil import Refused
from promptc._lib.owned import MAX_NAME_BYTES, MAX_PATH_PARTS, owned_path, walk_tree


def test_a_plain_relative_path_is_below_the_root(tmp_path):
    (tmp_path / "notes").mkdir()
    assert owned_path(tmp_path, "notes/keep.md") == tmp_path / "notes" / "keep.md"
    assert owned_path(tmp_path, "./new/dir/file.txt") == tmp_path / "new" / "dir" / "file.txt"  # need not exist


@pytest.mark.parametrize(
    "relative, says",
    [
        ("", "expected a relative path"),
        ("a\0b", "NUL"),
        ("/etc/passwd", "is absolute"),
        ("notes/../../out", "leads out of the directory"),
        ("/".join(["d"] * (MAX_PATH_PARTS + 1)), f"more than {MAX_PATH_PARTS} names"),
        ("x" * (MAX_NAME_BYTES + 1), f"longer than {MAX_NAME_BYTES} bytes"),
        ("bad\ud800name", "not encodable"),
        (".", "expected a file name"),
    ],
)
def test_a_path_that_could_leave_the_root_is_refused_saying_why(tmp_path, relative, says):
    with pytest.raises(Refused) as info:
        owned_path(tmp_path, relative)
    assert says in info.value.detail


def test_a_symlinked_directory_inside_the_root_is_refused(tmp_path):
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "keep.md").write_text("mine")
    root = tmp_path / "ws"
    root.mkdir()
    os.symlink(outside, root / "notes")
    with pytest.raises(Refused) as info:
        owned_path(root, "notes/keep.md")
    assert info.value.reason == "outside workspace" and "symlink (notes)" in info.value.detail
    os.symlink(outside / "keep.md", root / "link.md")
    with pytest.raises(Refused):
        owned_path(root, "link.md")  # a link as the last part: writing would replace or follow it


def test_the_walk_is_breadth_first_bounded_and_ends_in_a_link_loop(tmp_path):
    deep = tmp_path.joinpath(*[f"d{i}" for i in range(6)])
    deep.mkdir(parents=True)
    (deep / "bottom.txt").write_text("x")
    (tmp_path / "top.txt").write_text("x")
    os.symlink(tmp_path, tmp_path / "d0" / "loop")
    seen = [(path.relative_to(tmp_path).as_posix(), files) for path, files in walk_tree(tmp_path, max_depth=3)]
    assert seen[0] == (".", ["top.txt"])
    assert [path for path, _ in seen] == [".", "d0", "d0/d1", "d0/d1/d2"]  # the loop leads back to the root: seen once
    everything = [path.name for path, files in walk_tree(tmp_path, max_depth=100)]
    assert everything[-1] == "d5" and len(everything) == 7


def test_the_walk_survives_a_thousand_levels_and_skips_what_it_is_told(tmp_path):
    levels = [tmp_path]
    for _ in range(1000):  # os.makedirs (and shutil.rmtree) recurse once a level
        levels.append(levels[-1] / "d")
        levels[-1].mkdir()
    try:
        assert sum(1 for _ in walk_tree(tmp_path, max_depth=2000)) == 1001  # no recursion: no RecursionError
        (tmp_path / ".git").mkdir()
        names = [p.name for p, _ in walk_tree(tmp_path, max_depth=1, skip=lambda path: path.name == ".git")]
        assert names == [tmp_path.name, "d"]
    finally:
        for level in reversed(levels[1:]):
            level.rmdir()
