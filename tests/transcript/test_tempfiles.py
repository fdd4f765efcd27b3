"""The repair's temp file: its name, and the cleanup of stale ones."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from promptc.transcript import tempfiles
from promptc.transcript.tempfiles import remove_stale, temp_path

from support.transcript_strategies import aged_file, dead_pid


def test_the_temp_name_carries_host_and_pid_and_is_new_each_time(tmp_path):
    session = tmp_path / "s1.jsonl"
    first, second = temp_path(session), temp_path(session)
    host = re.escape(tempfiles.this_host())
    assert re.fullmatch(rf"\.s1\.jsonl\.repair-{host}-{os.getpid()}-[0-9a-f]{{8}}\.tmp", first.name)
    assert first != second and first.parent == tmp_path and tempfiles.this_host().isalnum()


def test_a_dead_writers_file_from_this_machine_goes_at_once(tmp_path):
    session = tmp_path / "s1.jsonl"
    just_killed = aged_file(tmp_path / temp_path(session, pid=dead_pid()).name, 0)
    assert remove_stale(session) == 1 and not just_killed.exists()


def test_another_machines_file_goes_only_when_long_idle(tmp_path):
    session = tmp_path / "s1.jsonl"
    elsewhere = temp_path(session, pid=dead_pid(), host="otherbox")
    writing = aged_file(tmp_path / elsewhere.name, tempfiles.IDLE_STALE_AFTER_S - 60)
    assert remove_stale(session) == 0 and writing.exists()
    assert remove_stale(session, now=time.time() + 120) == 1 and not writing.exists()


def test_a_live_writers_file_stays_however_old(tmp_path):
    session = tmp_path / "s1.jsonl"
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as child:
        try:
            live = aged_file(tmp_path / temp_path(session, pid=child.pid).name, 3600)
            assert remove_stale(session) == 0 and live.exists()
        finally:
            child.kill()


def test_legacy_names_without_a_pid_go_only_when_long_idle(tmp_path):
    session = tmp_path / "s1.jsonl"
    old, recent = (
        aged_file(tmp_path / ".s1.jsonl.ab_cd123.tmp", 3600),
        aged_file(tmp_path / ".s1.jsonl.zz99zz99.tmp", 30),
    )
    assert remove_stale(session) == 1 and not old.exists() and recent.exists()


@pytest.mark.parametrize(
    "name",
    [
        ".s1.jsonl.toolong123.tmp",
        ".s1.jsonl.repair-x-0a1b2c3d.tmp",
        "s1.jsonl.bak-1-2",
        ".s2.jsonl.ab_cd123.tmp",
        ".s1.jsonl.ab_cd123.tmp.keep",
    ],
)
def test_other_files_are_never_removed(tmp_path, name):
    kept = aged_file(tmp_path / name, 3600)
    assert remove_stale(tmp_path / "s1.jsonl") == 0 and kept.exists()


def test_a_stale_name_that_is_a_directory_is_left(tmp_path):
    (tmp_path / ".s1.jsonl.ab_cd123.tmp").mkdir()
    assert remove_stale(tmp_path / "s1.jsonl", now=time.time() + 3600) == 0
