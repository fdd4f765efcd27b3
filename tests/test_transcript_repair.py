"""On-disk repair (reference vector 29 and the issue's repair acceptance checks)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from promptc.errors import TranscriptError
from promptc.transcript import repair
from promptc.transcript.repair import repair_file
from promptc.transcript.texts import DEFAULT_TEXTS
from transcript_strategies import HEADER, A, U, entry, jsonl, text


def _file(tmp_path, data: bytes, mode=0o600):
    """`s1.jsonl` holding exactly `data`, with the given permissions."""
    path = tmp_path / "s1.jsonl"
    path.write_bytes(data)
    path.chmod(mode)
    return path


def _siblings(path):
    return sorted(p.name for p in path.parent.iterdir() if p != path)


def test_vector_29_truncated_line_is_dropped_with_a_backup_and_a_second_run_is_a_no_op(tmp_path):
    original = jsonl(HEADER, entry(U("hi"))) + b'{"type":"message"'
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.status == "repaired" and report.changes["malformed"] == 1
    assert path.read_bytes() == jsonl(HEADER, entry(U("hi")))
    assert report.backup.read_bytes() == original
    again = repair_file(path)
    assert again.status == "clean" and _siblings(path) == [report.backup.name]
    assert path.read_bytes() == jsonl(HEADER, entry(U("hi")))


def test_vector_29_crlf_file_is_left_byte_identical(tmp_path):
    original = jsonl(HEADER, entry(U("hi")), entry(A(text("yo")), 2), ending="\r\n")
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean"
    assert path.read_bytes() == original and _siblings(path) == []


def test_vector_29_invalid_header_is_refused_and_the_file_untouched(tmp_path):
    original = jsonl(entry(U("hi")), entry(U("")))
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.status == "refused" and "line 1" in report.reason and "header" in report.reason
    assert path.read_bytes() == original and _siblings(path) == []


def test_vector_29_empty_failed_assistant_turn_gets_the_fallback_text(tmp_path):
    failed = A(sr="error", api="bedrock-converse-stream", usage={"input": 0})
    path = _file(tmp_path, jsonl(HEADER, entry(U("q")), entry(failed, 2, extra="kept"), entry(U("next"), 3)))
    report = repair_file(path)
    assert report.changes == {"failed_assistant": 1}
    assert "rewrote 1 empty failed assistant turn" in report.summary()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[2] == entry({**failed, "content": [text(DEFAULT_TEXTS.failed_turn)]}, 2, extra="kept")


def test_vector_29_blank_user_turn_gets_the_placeholder(tmp_path):
    blank_users = [entry(U([text("")])), entry(U("  "), 2), entry(U([text(" "), text("x")]), 3)]
    path = _file(tmp_path, jsonl(HEADER, *blank_users))
    assert repair_file(path).changes == {"blank_user": 3}
    messages = [json.loads(line).get("message") for line in path.read_text().splitlines()]
    assert messages[1:] == [U([text(DEFAULT_TEXTS.blank_user_turn)]), U(DEFAULT_TEXTS.blank_user_turn), U([text("x")])]


def test_vector_29_silent_empty_stop_turn_is_left_alone(tmp_path):
    original = jsonl(HEADER, entry(U("q")), entry(A(sr="stop"), 2))
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean" and path.read_bytes() == original


def test_untouched_lines_keep_their_exact_bytes_and_endings(tmp_path):
    odd = b'{"type":"custom", "z":1.0,   "a":"\\u00e9"}\r\n'
    original = jsonl(HEADER, ending="\r\n") + odd + b"not json\r\n" + jsonl(entry(U(" ")), ending="\r\n")
    path = _file(tmp_path, original)
    repair_file(path)
    rewritten = json.dumps(entry(U(DEFAULT_TEXTS.blank_user_turn)), separators=(",", ":")).encode()
    assert path.read_bytes() == jsonl(HEADER, ending="\r\n") + odd + rewritten + b"\r\n"


def test_lines_that_are_json_but_not_objects_count_as_malformed(tmp_path):
    path = _file(tmp_path, jsonl(HEADER, [1, 2], "text", 3) + b"NaN\n")
    assert repair_file(path).changes == {"malformed": 4}
    assert path.read_bytes() == jsonl(HEADER)


def test_the_original_permissions_are_kept(tmp_path):
    path = _file(tmp_path, jsonl(HEADER) + b"{oops\n", mode=0o640)
    report = repair_file(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE(report.backup.stat().st_mode) == 0o640


@pytest.mark.parametrize("failure", [OSError("disk on fire"), KeyboardInterrupt()])
def test_a_repair_killed_before_the_rename_leaves_the_original_and_no_litter(tmp_path, monkeypatch, failure):
    original = jsonl(HEADER) + b"{oops\n"
    path = _file(tmp_path, original)

    def killed(*_):
        raise failure

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(TranscriptError if isinstance(failure, OSError) else KeyboardInterrupt):
        repair_file(path)
    assert path.read_bytes() == original and _siblings(path) == []


def test_a_file_that_grows_during_the_repair_is_not_replaced(tmp_path, monkeypatch):
    path = _file(tmp_path, jsonl(HEADER) + b"{oops\n")
    passes = []
    first_pass = repair._planned_lines

    def runtime_appends_during_second_pass(file, texts):
        passes.append(file)
        if len(passes) == 2:
            with open(file, "ab") as handle:
                handle.write(jsonl(entry(U("late"))))
        yield from first_pass(file, texts)

    monkeypatch.setattr(repair, "_planned_lines", runtime_appends_during_second_pass)
    with pytest.raises(TranscriptError, match="changed while"):
        repair_file(path)
    assert path.read_bytes() == jsonl(HEADER) + b"{oops\n" + jsonl(entry(U("late")))
    assert _siblings(path) == []


def test_a_file_without_entries_is_refused(tmp_path):
    path = _file(tmp_path, b"\n  \n")
    assert repair_file(path).status == "refused"


def test_a_missing_file_is_an_error_with_its_path(tmp_path):
    with pytest.raises(TranscriptError) as raised:
        repair_file(tmp_path / "nope.jsonl")
    assert str(raised.value).startswith(str(tmp_path / "nope.jsonl") + ": ")


def test_summary_lists_only_what_changed(tmp_path):
    path = _file(tmp_path, jsonl(HEADER) + b"{a\n{b\n")
    summary = repair_file(path).summary()
    assert "dropped 2 malformed lines" in summary and "user" not in summary and "assistant" not in summary


def test_summary_names_the_fixes_in_a_fixed_order(tmp_path):
    path = _file(tmp_path, jsonl(HEADER, entry(A(sr="error"))) + b"{oops\n")
    assert "(dropped 1 malformed line, rewrote 1 empty failed assistant turn)" in repair_file(path).summary()


def test_repairing_through_a_symlink_repairs_the_target_and_keeps_the_link(tmp_path):
    (tmp_path / "store").mkdir()
    target = tmp_path / "store" / "s1.jsonl"
    target.write_bytes(jsonl(HEADER, entry(U("hi"))) + b"{oops\n")
    link = tmp_path / "current.jsonl"
    link.symlink_to("store/s1.jsonl")
    report = repair_file(link)
    assert report.status == "repaired" and report.path == link
    assert link.is_symlink() and os.readlink(link) == "store/s1.jsonl"
    assert target.read_bytes() == jsonl(HEADER, entry(U("hi")))
    assert report.backup.parent == target.parent and report.backup.read_bytes().endswith(b"{oops\n")
    assert repair_file(link).status == "clean"


def test_a_dangling_symlink_is_an_error_naming_the_link(tmp_path):
    link = tmp_path / "gone.jsonl"
    link.symlink_to(tmp_path / "nowhere.jsonl")
    with pytest.raises(TranscriptError, match=f"^{link}: cannot read session file"):
        repair_file(link)
    assert link.is_symlink()
