"""What a build read and whether it changed (warm/freshness.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from promptc.warm.freshness import RACY_WINDOW_NS, Tracker


def _read(tracker: Tracker, path: Path) -> None:
    with open(path, "rb") as handle:
        tracker.file(str(path), os.fstat(handle.fileno()), handle.read())


def test_an_unchanged_file_is_unchanged_and_any_edit_is_a_change(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("one")
    tracker = Tracker()
    _read(tracker, path)
    assert tracker.changed() is None
    path.write_text("two")  # same size, same tick: only the content compare can tell
    assert tracker.changed() == str(path)


def test_a_settled_file_is_trusted_by_its_signature_alone(tmp_path: Path, monkeypatch) -> None:
    from promptc._lib import fsutil

    path = tmp_path / "a.md"
    path.write_text("one")
    later = time.time_ns() + 10 * RACY_WINDOW_NS
    tracker = Tracker(clock=lambda: later)  # read long after its last change
    _read(tracker, path)
    assert tracker.files[str(path)].settled

    def no_reads(*args, **kwargs):
        raise AssertionError("a settled, unchanged file was read again")

    monkeypatch.setattr(fsutil, "read_regular", no_reads)
    assert tracker.changed() is None


def test_a_racy_file_that_still_reads_the_same_settles(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("one")
    now = [time.time_ns()]
    tracker = Tracker(clock=lambda: now[0])
    _read(tracker, path)
    assert not tracker.files[str(path)].settled
    os.utime(path, ns=(1, 1))  # touched (new ctime), same content: not a change
    now[0] += 3 * RACY_WINDOW_NS
    assert tracker.changed() is None
    assert tracker.files[str(path)].settled


def test_a_replaced_file_is_a_change_even_with_the_same_content(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("same")
    tracker = Tracker()
    _read(tracker, path)
    replacement = tmp_path / "b.md"
    replacement.write_text("same")
    os.replace(replacement, path)  # a new inode: the rules that admitted the old one apply again
    assert tracker.changed() == str(path)


def test_listings_absences_and_environment_are_inputs(tmp_path: Path) -> None:
    tracker = Tracker()
    names = lambda: frozenset(os.listdir(tmp_path))  # noqa: E731
    tracker.listing(str(tmp_path), os.stat(tmp_path), names(), names)
    tracker.missing(str(tmp_path / "later.md"))
    tracker.env("PROMPTC_X", None)
    assert tracker.changed({}) is None
    assert tracker.changed({"PROMPTC_X": "1"}) == "$PROMPTC_X"
    (tmp_path / "later.md").write_text("x")
    assert tracker.changed({}) in (str(tmp_path), str(tmp_path / "later.md"))


def test_directories_name_the_entries_that_matter(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("x")
    tracker = Tracker()
    _read(tracker, tmp_path / "sub" / "a.md")
    tracker.missing(str(tmp_path / "gone" / "deeper" / "b.md"))
    tracker.listing(str(tmp_path), os.stat(tmp_path), None, lambda: None, interest=frozenset({"AGENTS.md"}))
    wanted = tracker.directories()
    assert wanted[str(tmp_path / "sub")] == {"a.md"}
    assert wanted[str(tmp_path)] == {"gone", "AGENTS.md"}
