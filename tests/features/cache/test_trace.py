"""Session trace files for `promptc cache simulate` (features/cache/trace.py): parsing, located
errors, edits."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from promptc.features.cache import trace
from promptc.features.cache.trace import TraceError

from support.paths import EXAMPLES


def write_trace(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def test_events_carry_their_time_facts_edits_and_line(tmp_path):
    path = write_trace(
        tmp_path,
        {"at": 0, "run": {"channel": "telegram"}},
        "",
        {
            "at": 90,
            "edits": [{"file": "MEMORY.md", "append": "- a note"}, {"file": "SOUL.md", "replace": ["calm", "warm"]}],
        },
    )
    first, second = trace.load(path)
    assert (first.at, dict(first.run), first.edits, first.line) == (0.0, {"channel": "telegram"}, (), 1)
    assert second.line == 3 and second.at == 90.0
    assert [(e.file, e.kind, e.text, e.old) for e in second.edits] == [
        ("MEMORY.md", "append", "- a note", ""),
        ("SOUL.md", "replace", "warm", "calm"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"at": 0,', "not valid JSON"),
        ('{"at": 0, "chanel": "x"}', "unknown event key 'chanel'"),
        ('{"at": -5}', "not before the previous event"),
        ('{"edits": [{"file": "../outside.md", "append": "x"}]}', "must stay inside the workspace"),
        ('{"edits": [{"file": "A.md", "append": "x", "write": "y"}]}', "exactly one of"),
        ('{"edits": [{"file": "A.md", "replace": ["only one"]}]}', "'replace' takes [old, new]"),
    ],
)
def test_a_bad_event_is_one_located_error(tmp_path, line, message):
    path = write_trace(tmp_path, {"at": 0}, line)
    with pytest.raises(TraceError) as caught:
        trace.load(path)
    assert message in caught.value.message
    assert caught.value.location is not None and caught.value.location.line == 2


def test_an_empty_trace_is_refused(tmp_path):
    with pytest.raises(TraceError, match="no events"):
        trace.load(write_trace(tmp_path, ""))


def test_edits_change_the_workspace_copy(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n- first", encoding="utf-8")
    (ws / "SOUL.md").write_text("Be calm and calm.\n", encoding="utf-8")
    (ws / "USER.md").write_text("gone soon\n", encoding="utf-8")
    path = write_trace(
        tmp_path,
        {
            "edits": [
                {"file": "MEMORY.md", "append": "- second"},
                {"file": "SOUL.md", "replace": ["calm", "warm"]},
                {"file": "USER.md", "delete": True},
                {"file": "notes/new.md", "write": "fresh"},
            ]
        },
    )
    (event,) = trace.load(path)
    trace.apply(event.edits, ws, event, path)
    assert (ws / "MEMORY.md").read_text() == "# Memory\n- first\n- second\n"
    assert (ws / "SOUL.md").read_text() == "Be warm and calm.\n"
    assert not (ws / "USER.md").exists()
    assert (ws / "notes" / "new.md").read_text() == "fresh"


def test_a_replace_that_finds_nothing_names_the_event_line(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "SOUL.md").write_text("text\n", encoding="utf-8")
    path = write_trace(tmp_path, {"at": 0}, {"edits": [{"file": "SOUL.md", "replace": ["absent", "x"]}]})
    event = trace.load(path)[1]
    with pytest.raises(TraceError) as caught:
        trace.apply(event.edits, ws, event, path)
    assert caught.value.location is not None and caught.value.location.line == 2


def test_the_shipped_example_trace_loads_and_has_what_the_readme_says():
    events = trace.load(EXAMPLES / "trace.jsonl")
    gaps = [b.at - a.at for a, b in itertools.pairwise(events)]
    edited = [e.file for event in events for e in event.edits]
    assert len(events) == 200
    assert sum(g > 300 for g in gaps) >= 10 and any(g > 3600 for g in gaps)
    assert edited.count("USER.md") == 2 and edited.count("SOUL.md") == 2 and edited.count("MEMORY.md") >= 9
    sessions = {event.run.get("session", "main") for event in events}
    assert sessions == {"main", "heartbeat", "cron"}
