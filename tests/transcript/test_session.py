"""Reading a session file for replay: errors with locations, the active branch, compaction."""

from __future__ import annotations

import json

import pytest

from promptc._lib.errors import TranscriptError
from promptc.transcript.encode import to_json
from promptc.transcript.model import CompactionSummary, parse_entry
from promptc.transcript.session import active_branch, read_session, replay_messages

from support.transcript_strategies import HEADER, A, U, text


def _entry(entry_id, parent, message=None, **extra):
    entry = {"type": "message" if message else extra.pop("type"), "id": entry_id, "parentId": parent, "timestamp": "t"}
    return {**entry, **({"message": message} if message else {}), **extra}


def _write(tmp_path, *lines):
    path = tmp_path / "s.jsonl"
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def test_reads_header_and_entries_skipping_blank_lines(tmp_path):
    session = read_session(_write(tmp_path, HEADER, "", _entry("a", None, U("hi"))))
    assert session.header.id == "s1" and [to_json(e.message) for e in session.entries] == [U("hi")]


def test_a_malformed_line_is_an_error_at_its_line_and_column(tmp_path):
    path = _write(tmp_path, HEADER, '{"type": "message", oops}')
    with pytest.raises(TranscriptError) as raised:
        read_session(path)
    assert str(raised.value).startswith(f"{path}:2:21: malformed JSON")


@pytest.mark.parametrize("first", [_entry("a", None, U("hi")), {"type": "session", "id": ""}, [1]])
def test_an_invalid_header_is_an_error_at_line_1(tmp_path, first):
    path = _write(tmp_path, first)
    with pytest.raises(TranscriptError, match=f"^{path}:1:1: "):
        read_session(path)


def test_an_empty_file_is_an_error(tmp_path):
    with pytest.raises(TranscriptError, match="empty session file"):
        read_session(_write(tmp_path, ""))


def test_active_branch_follows_parents_from_the_last_entry():
    entries = tuple(
        parse_entry(e)
        for e in [
            _entry("a", None, U("root")),
            _entry("b", "a", A(text("abandoned"))),
            _entry("c", "a", A(text("kept"))),
            _entry("d", "c", U("leaf")),
        ]
    )
    assert [e.id for e in active_branch(entries)] == ["a", "c", "d"]


def test_entries_without_ids_are_taken_in_file_order():
    entries = tuple(parse_entry({"type": "message", "message": m}) for m in (U("a"), U("b")))
    assert active_branch(entries) == entries


def test_a_parent_cycle_ends_the_walk():
    entries = tuple(parse_entry(e) for e in [_entry("a", "b", U("x")), _entry("b", "a", U("y"))])
    assert [e.id for e in active_branch(entries)] == ["a", "b"]


def test_after_compaction_the_summary_comes_first_then_the_kept_entries():
    entries = tuple(
        parse_entry(e)
        for e in [
            _entry("a", None, U("old")),
            _entry("b", "a", U("kept")),
            _entry("c", "b", type="compaction", summary="what happened", firstKeptEntryId="b", timestamp="T"),
            _entry("d", "c", U("new")),
            _entry("e", "d", type="custom", customType="model-snapshot", message={"role": "user", "content": "no"}),
        ]
    )
    messages = replay_messages(entries)
    assert isinstance(messages[0], CompactionSummary)
    assert to_json(messages[0]) == {"role": "compactionSummary", "summary": "what happened", "timestamp": "T"}
    assert [to_json(m) for m in messages[1:]] == [U("kept"), U("new")]
