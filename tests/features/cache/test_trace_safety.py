"""Hostile traces for `promptc cache simulate`: an edit never writes or deletes outside the
simulation's copy of the workspace, a trace is never read from a FIFO or a device nor without a
size cap, and every malformed line is one located `promptc: error:` naming the user's trace."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc.commands import cli
from promptc.features.cache.trace import MAX_TRACE_BYTES

from support.paths import EXAMPLES
from support.tiers import FILES

INPUTS = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")


def simulate(run_cli, trace, workspace):
    return run_cli("cache", "simulate", "--trace", trace, *INPUTS, "--workspace", workspace)


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def one_error_line(err: str, trace: Path, line: int = 1) -> str:
    """The message of the single error line, which must name the trace and the line."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    prefix = f"promptc: error: {trace}:{line}:"
    assert lines[0].startswith(prefix), err
    return lines[0]


@pytest.fixture
def linked(make_workspace, tmp_path):
    """A workspace whose `notes` is a symlink to a directory outside it, which holds keep.md."""
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "keep.md").write_text("keep me\n", encoding="utf-8")
    workspace = make_workspace(FILES)
    (workspace / "notes").symlink_to(outside, target_is_directory=True)
    (workspace / "LINK.md").symlink_to(outside / "keep.md")
    return workspace, outside


@pytest.mark.parametrize(
    "edit",
    [
        {"file": "notes/keep.md", "delete": True},
        {"file": "notes/keep.md", "write": "overwritten"},
        {"file": "notes/keep.md", "append": "appended"},
        {"file": "notes/new.md", "write": "created"},
        {"file": "LINK.md", "write": "through a file link"},
        {"file": "LINK.md", "delete": True},
    ],
)
def test_an_edit_through_a_symlink_in_the_workspace_is_refused_and_touches_nothing(run_cli, linked, tmp_path, edit):
    workspace, outside = linked
    trace = write_lines(tmp_path / "trace.jsonl", json.dumps({"at": 0, "edits": [edit]}))
    code, out, err = simulate(run_cli, trace, workspace)
    assert (code, out) == (2, "")
    assert "passes through a symlink" in one_error_line(err, trace)
    assert sorted(p.name for p in outside.iterdir()) == ["keep.md"]
    assert (outside / "keep.md").read_text(encoding="utf-8") == "keep me\n"


def test_a_fifo_as_the_trace_is_refused_without_waiting_for_a_writer(run_cli, make_workspace, tmp_path):
    fifo = tmp_path / "trace.fifo"
    os.mkfifo(fifo)
    done: list[tuple[int, str, str]] = []
    worker = threading.Thread(target=lambda: done.append(simulate(run_cli, fifo, make_workspace(FILES))))
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the reader so the test run can end, then fail
        with open(fifo, "w", encoding="utf-8"):
            pass
        worker.join()
        pytest.fail("reading the trace waited on a FIFO")
    code, _, err = done[0]
    assert (code, err) == (2, f"promptc: error: {fifo}: cannot read file: it is not a regular file\n")


def test_a_device_and_a_huge_sparse_file_are_refused_before_reading(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    code, _, err = simulate(run_cli, "/dev/zero", workspace)
    assert (code, err) == (2, "promptc: error: /dev/zero: cannot read file: it is not a regular file\n")
    sparse = tmp_path / "sparse.jsonl"
    with open(sparse, "wb") as handle:
        handle.truncate(1 << 30)
    code, _, err = simulate(run_cli, sparse, workspace)
    assert (code, err) == (
        2,
        f"promptc: error: {sparse}: cannot read file: it is {1 << 30} bytes (limit {MAX_TRACE_BYTES})\n",
    )


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"at": 0, "run": ' + DEEP + "}", "nested too deeply"),
        ('{"at": ' + "9" * 5000 + "}", "a number too long to read"),
        ('{"at": 1e999}', "'at' must be a number of seconds"),
        ('{"at": NaN}', "'at' must be a number of seconds"),
        ('{"at": 0, "edits": [{"file": "A\\u0000.md", "write": "x"}]}', "a path cannot hold a NUL character"),
        ('{"at": 0, "edits": [{"file": "\\ud800.md", "write": "x"}]}', "lone surrogate"),
        ('{"at": 0, "edits": [{"file": "MEMORY.md", "append": "\\udfff"}]}', "lone surrogate"),
        ('{"at": 0, "edits": [{"file": "' + "n" * 300 + '.md", "write": "x"}]}', "a name longer than 255 bytes"),
        ('{"at": 0, "edits": [{"file": "' + "d/" * 2000 + 'f.md", "write": "x"}]}', "more than 64 names in one path"),
    ],
)
def test_each_hostile_line_is_one_located_error(run_cli, make_workspace, tmp_path, line, said):
    trace = write_lines(tmp_path / "trace.jsonl", line)
    code, out, err = simulate(run_cli, trace, make_workspace(FILES))
    assert (code, out) == (2, "")
    assert said in one_error_line(err, trace)


def test_an_edit_error_names_the_users_trace_and_never_the_temporary_copy(run_cli, make_workspace, tmp_path):
    workspace = make_workspace({**FILES, "skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n"})
    for edit in (
        {"file": "skills", "delete": True},
        {"file": "skills", "write": "x"},
        {"file": "AGENTS.md/x", "write": "x"},
    ):
        trace = write_lines(tmp_path / "trace.jsonl", '{"at": 0}', json.dumps({"at": 5, "edits": [edit]}))
        code, _, err = simulate(run_cli, trace, workspace)
        assert code == 2
        message = one_error_line(err, trace, line=2)
        assert "promptc-cache-" not in message and edit["file"] in message
    assert (workspace / "skills" / "a" / "SKILL.md").is_file()


# --------------------------------------------------------------------------- the property

NAMES = st.sampled_from(["MEMORY.md", "USER.md", "notes/keep.md", "notes/x/y.md", "LINK.md", "new/deep/file.md"])
ODD = st.sampled_from(["../escape.md", "/etc/passwd", "a\x00b", "\ud800", "n" * 300, "d/" * 70 + "f", "", ".", "notes"])
PATHS = st.one_of(NAMES, ODD, st.text(min_size=1, max_size=12))
TEXT = st.text(max_size=20)
EDITS = st.one_of(
    st.builds(lambda f, t: {"file": f, "append": t}, PATHS, TEXT),
    st.builds(lambda f, t: {"file": f, "write": t}, PATHS, TEXT),
    st.builds(lambda f, a, b: {"file": f, "replace": [a, b]}, PATHS, TEXT, TEXT),
    st.builds(lambda f: {"file": f, "delete": True}, PATHS),
)
RUNS = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"channel": st.sampled_from(["telegram", "discord"])}),
    st.fixed_dictionaries({"session": st.sampled_from(["main", "cron", "heartbeat", "nope"])}),
    st.dictionaries(
        st.sampled_from(["model", "chanel", "owners"]), st.one_of(TEXT, st.lists(TEXT, max_size=2)), max_size=2
    ),
    st.recursive(st.just([]), lambda inner: st.lists(inner, max_size=1), max_leaves=3).map(lambda v: {"tools": v}),
)
EVENTS = st.lists(
    st.fixed_dictionaries({"at": st.integers(0, 5), "run": RUNS, "edits": st.lists(EDITS, max_size=3)}),
    min_size=1,
    max_size=3,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=EVENTS)
def test_no_generated_trace_writes_outside_the_copy_or_fails_with_more_than_one_line(linked, tmp_path, capsys, events):
    workspace, outside = linked
    before = {p: p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file() and not p.is_symlink()}
    at = 0
    for event in events:  # times never decrease
        at = event["at"] = at + event["at"]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps(e, ensure_ascii=True) + "\n" for e in events), encoding="utf-8")
    code = cli.main([str(a) for a in ("cache", "simulate", "--trace", trace, *INPUTS, "--workspace", workspace)])
    err = capsys.readouterr().err
    assert code in (0, 2)
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("promptc: error: "), err
        assert "promptc-cache-" not in err and "internal error" not in err
    assert sorted(p.name for p in outside.iterdir()) == ["keep.md"]
    assert (outside / "keep.md").read_text(encoding="utf-8") == "keep me\n"
    after = {p: p.read_bytes() for p in sorted(workspace.rglob("*")) if p.is_file() and not p.is_symlink()}
    assert after == before  # the user's workspace itself is never edited either
