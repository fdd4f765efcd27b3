"""Kernel change notification (warm/inotify.py): quiet means nothing relevant changed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from promptc.warm.inotify import Watcher

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


@pytest.fixture
def watcher():
    found = Watcher.start()
    if found is None:
        pytest.skip("inotify is not available here")
    yield found
    found.close()


def test_a_write_to_a_watched_name_is_heard_and_other_names_are_not(watcher, tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("a")
    assert watcher.watch({str(tmp_path): frozenset({"SOUL.md"})})
    assert watcher.quiet()
    (tmp_path / "notes.txt").write_text("unrelated")
    assert watcher.quiet()
    (tmp_path / "SOUL.md").write_text("b")
    assert not watcher.quiet()
    assert watcher.quiet()  # the event was consumed


def test_any_entry_of_a_directory_watched_whole_counts(watcher, tmp_path: Path) -> None:
    assert watcher.watch({str(tmp_path): None})
    (tmp_path / "new-skill").mkdir()
    assert not watcher.quiet()


def test_a_swapped_parent_directory_is_noticed_by_identity(watcher, tmp_path: Path) -> None:
    ws = tmp_path / "home" / "ws"
    ws.mkdir(parents=True)
    assert watcher.watch({str(ws): frozenset({"AGENTS.md"})})
    os.rename(tmp_path / "home", tmp_path / "old-home")  # no event reaches the watch on ws itself
    ws.mkdir(parents=True)  # the same path, another directory
    assert not watcher.quiet()


def test_a_forked_child_never_trusts_its_parents_queue(watcher, tmp_path: Path) -> None:
    assert watcher.watch({str(tmp_path): None})
    pid = os.fork()
    if pid == 0:  # the child: it must refuse to watch
        os._exit(0 if not watcher.watch({str(tmp_path): None}) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
