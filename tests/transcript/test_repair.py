"""On-disk session repair (transcript/repair.py): what it drops, fills and keeps byte for byte,
replacing the file atomically, and the temp files and over-long lines it meets."""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._lib.errors import TranscriptError
from promptc.transcript import caplines, repair
from promptc.transcript.encode import loads, to_json
from promptc.transcript.policy import POLICY_TABLE, resolve
from promptc.transcript.repair import repair_file
from promptc.transcript.sanitize import sanitize
from promptc.transcript.session import read_session, replay_messages
from promptc.transcript.tempfiles import temp_path
from promptc.transcript.texts import DEFAULT_TEXTS

from support.transcript_strategies import (
    HEADER,
    TINY_PNG_BASE64,
    A,
    R,
    U,
    aged_file,
    dead_pid,
    entry,
    image,
    jsonl,
    session_files,
    tc,
    text,
)


def _file(tmp_path, data: bytes, mode=0o600):
    """`s1.jsonl` holding exactly `data`, with the given permissions."""
    path = tmp_path / "s1.jsonl"
    path.write_bytes(data)
    path.chmod(mode)
    return path


def _siblings(path):
    return sorted(p.name for p in path.parent.iterdir() if p != path)


def test_truncated_line_is_dropped_with_a_backup_and_a_second_run_is_a_no_op(tmp_path):
    original = jsonl(HEADER, entry(U("hi"))) + b'{"type":"message"'
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.status == "repaired" and report.changes["malformed"] == 1
    assert path.read_bytes() == jsonl(HEADER, entry(U("hi")))
    assert report.backup.read_bytes() == original
    again = repair_file(path)
    assert again.status == "clean" and _siblings(path) == [report.backup.name]
    assert path.read_bytes() == jsonl(HEADER, entry(U("hi")))


def test_crlf_file_is_left_byte_identical(tmp_path):
    original = jsonl(HEADER, entry(U("hi")), entry(A(text("yo")), 2), ending="\r\n")
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean"
    assert path.read_bytes() == original and _siblings(path) == []


def test_invalid_header_is_refused_and_the_file_untouched(tmp_path):
    original = jsonl(entry(U("hi")), entry(U("")))
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.status == "refused" and "line 1" in report.reason and "header" in report.reason
    assert path.read_bytes() == original and _siblings(path) == []


def test_empty_failed_assistant_turn_gets_the_fallback_text(tmp_path):
    failed = A(sr="error", api="bedrock-converse-stream", usage={"input": 0})
    path = _file(tmp_path, jsonl(HEADER, entry(U("q")), entry(failed, 2, extra="kept"), entry(U("next"), 3)))
    report = repair_file(path)
    assert report.changes == {"failed_assistant": 1}
    assert "rewrote 1 empty failed assistant turn" in report.summary()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[2] == entry({**failed, "content": [text(DEFAULT_TEXTS.failed_turn)]}, 2, extra="kept")


def test_blank_user_turn_gets_the_placeholder(tmp_path):
    blank_users = [entry(U([text("")])), entry(U("  "), 2), entry(U([text(" "), text("x")]), 3)]
    path = _file(tmp_path, jsonl(HEADER, *blank_users))
    assert repair_file(path).changes == {"blank_user": 3}
    messages = [json.loads(line).get("message") for line in path.read_text().splitlines()]
    assert messages[1:] == [U([text(DEFAULT_TEXTS.blank_user_turn)]), U(DEFAULT_TEXTS.blank_user_turn), U([text("x")])]


def test_silent_empty_stop_turn_is_left_alone(tmp_path):
    original = jsonl(HEADER, entry(U("q")), entry(A(sr="stop"), 2))
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean" and path.read_bytes() == original


def test_untouched_lines_keep_their_exact_bytes_and_endings(tmp_path):
    odd = b'{"type":"custom", "z":1.0,   "a":"\\u00e9"}\r\n'
    original = jsonl(HEADER, ending="\r\n") + odd + b"not json\r\n" + jsonl(entry(U(" ")), ending="\r\n")
    path = _file(tmp_path, original)
    repair_file(path)
    # Only the content value changes; the rest of the rewritten line keeps json.dumps's spacing.
    rewritten = json.dumps(entry(U(DEFAULT_TEXTS.blank_user_turn))).encode()
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
    read_lines = caplines.lines_of

    def runtime_appends_during_second_pass(handle, cap):
        passes.append(handle)
        if len(passes) == 2:
            with open(path, "ab") as runtime:
                runtime.write(jsonl(entry(U("late"))))
        yield from read_lines(handle, cap)

    monkeypatch.setattr(caplines, "lines_of", runtime_appends_during_second_pass)
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


def _lines(path):
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


# ---------------------------------------------------------------------------------------------
# Message entries no provider can be sent


def test_message_entries_without_a_usable_role_are_dropped_and_counted(tmp_path):
    broken = [
        {"type": "message", "id": "e2", "parentId": "e1", "message": {"role": None, "content": "x"}},
        {"type": "message", "id": "e3", "parentId": "e2", "message": {"content": "no role"}},
        {"type": "message", "id": "e4", "parentId": "e3", "message": "not an object"},
        {"type": "message", "id": "e5", "parentId": "e4"},
        {"type": "message", "id": "e6", "parentId": "e5", "message": {"role": "  ", "content": "blank role"}},
    ]
    kept = [entry(U("hi"), 1), {"type": "custom", "id": "c1", "parentId": "e1", "customType": "x"}]
    after = entry(U("after"), 7, "e6")
    path = _file(tmp_path, jsonl(HEADER, *kept, *broken, after))
    report = repair_file(path)
    assert report.changes == {"invalid_message": 5, "relinked": 1}
    assert "dropped 5 message entries without a message object or a role" in report.summary()
    assert _lines(path) == [HEADER, *kept, {**after, "parentId": "e1"}]
    assert [to_json(m) for m in replay_messages(read_session(path).entries)] == [U("hi"), U("after")]
    assert repair_file(path).status == "clean"


def test_entries_of_other_types_need_no_message(tmp_path):
    original = jsonl(HEADER, {"type": "model_change", "id": "m", "provider": "x"}, {"type": "label", "message": None})
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean" and path.read_bytes() == original


# ---------------------------------------------------------------------------------------------
# Results replay would have to invent are written on disk

CODE_MODE = {"api": "openai-chatgpt-responses", "provider": "openai"}
INSERTED_ID = re.compile(r"repair-[0-9a-f]{12}")


def _stand_in(call_id, name, timestamp):
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [text("aborted")],
        "details": {"promptcSyntheticToolResult": True, "openclawSyntheticMissingToolResult": True},
        "isError": True,
        "timestamp": timestamp,
    }


def test_a_code_mode_call_without_a_result_gets_a_marked_one(tmp_path):
    turn = A(tc("call_1", "exec"), tc("call_2", "read"), sr="toolUse", timestamp=1000, **CODE_MODE)
    original = jsonl(HEADER, entry(U("run it"), 0), entry(turn, 1, "e0"), entry(U("next"), 2, "e1"))
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.changes == {"inserted_result": 2, "relinked": 1}
    assert "inserted 2 missing tool results" in report.summary()
    lines = _lines(path)
    first, second = lines[3], lines[4]
    assert INSERTED_ID.fullmatch(first["id"]) and INSERTED_ID.fullmatch(second["id"]) and first["id"] != second["id"]
    assert first == {
        "type": "message",
        "id": first["id"],
        "parentId": "e1",
        "timestamp": "t",
        "message": _stand_in("call_1", "exec", 1000),
    }
    assert second["parentId"] == first["id"] and second["message"] == _stand_in("call_2", "read", 1000)
    assert lines[:3] == [HEADER, entry(U("run it"), 0), entry(turn, 1, "e0")]
    assert lines[5] == entry(U("next"), 2, second["id"])
    assert repair_file(path).status == "clean"


def test_inserted_ids_do_not_depend_on_when_the_repair_runs(tmp_path):
    turn = A(tc("call_1", "exec"), sr="toolUse", **CODE_MODE)
    original = jsonl(HEADER, entry(turn, 1))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _file(tmp_path / "a", original), _file(tmp_path / "b", original)
    repair_file(first)
    repair_file(second)
    assert first.read_bytes() == second.read_bytes() != original


def test_a_message_tool_call_before_a_delivery_mirror_gets_a_result(tmp_path):
    turn = A(text("sending"), tc("call_m", "message"), tc("call_r", "read"), sr="toolUse", api="openai-responses")
    mirror = A(text("sent"), provider="openclaw", model="delivery-mirror")
    snapshot = {"type": "custom", "id": "c1", "parentId": "e1", "customType": "model-snapshot"}
    path = _file(tmp_path, jsonl(HEADER, entry(turn, 1), snapshot, entry(mirror, 2, "c1"), entry(R("call_r"), 3, "e2")))
    assert repair_file(path).changes == {"inserted_result": 1, "relinked": 1}
    lines = _lines(path)
    assert lines[2]["message"]["toolCallId"] == "call_m" and lines[2]["parentId"] == "e1"
    assert lines[3] == {**snapshot, "parentId": lines[2]["id"]}


@pytest.mark.parametrize(
    "history",
    [
        [A(tc("call_1"), sr="error", **CODE_MODE)],
        [A(tc("call_1"), sr="toolUse", **CODE_MODE), R("call_1", "found later")],
        [A(tc("call_1"), sr="toolUse", api="openai-chatgpt-responses", provider="openai-codex")],
        [
            A(tc("call_m", "message"), sr="toolUse", api="openai-responses"),
            U("no mirror"),
            A(text("sent"), provider="openclaw", model="delivery-mirror"),
        ],
        [
            A(tc("call_x", "exec"), sr="toolUse", api="openai-responses"),
            A(text("m"), provider="openclaw", model="delivery-mirror"),
        ],
        [
            A(tc("call_m", "message"), sr="toolUse", api="anthropic-messages"),
            A(text("m"), provider="openclaw", model="delivery-mirror"),
        ],
    ],
    ids=["failed turn", "result later", "other provider", "mirror not next", "not the message tool", "other api"],
)
def test_no_result_is_invented_where_replay_would_not_need_one(tmp_path, history):
    original = jsonl(HEADER, *(entry(m, i, f"e{i - 1}" if i else None) for i, m in enumerate(history)))
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean" and path.read_bytes() == original


def test_the_inserted_result_gives_way_to_a_real_one_written_later(tmp_path):
    turn = A(tc("call_1", "exec"), sr="toolUse", **CODE_MODE)
    path = _file(tmp_path, jsonl(HEADER, entry(U("run"), 0), entry(turn, 1, "e0")))
    repair_file(path)
    inserted = _lines(path)[-1]["id"]
    assert INSERTED_ID.fullmatch(inserted)
    with open(path, "ab") as runtime:
        runtime.write(jsonl(entry(R("call_1", "real output", name="exec"), 9, inserted)))
    policy = resolve("openai", "openai-chatgpt-responses", "gpt-5-codex")
    replay = [to_json(m) for m in sanitize(replay_messages(read_session(path).entries), policy)]
    assert [m["content"] for m in replay if m["role"] == "toolResult"] == [[text("real output")]]


# ---------------------------------------------------------------------------------------------
# Image blocks whose data is not an image


def test_corrupted_and_non_image_base64_blocks_become_a_note(tmp_path):
    not_base64 = image("not base64 at all!", "image/png")
    not_an_image = {"type": "image", "data": "aGVsbG8gd29ybGQ=", "mediaType": "image/x"}  # "hello world"
    good = image(TINY_PNG_BASE64)
    unpadded = image(TINY_PNG_BASE64.rstrip("="))
    no_type = {"type": "image", "data": "garbage"}
    note = text(DEFAULT_TEXTS.repaired_image)
    user = U([text("look"), not_base64, good, unpadded, no_type, not_an_image])
    result = R("c1", "shot")
    result["content"].append(image("é" + TINY_PNG_BASE64))
    path = _file(tmp_path, jsonl(HEADER, entry(user, 1), entry(result, 2, "e1")))
    report = repair_file(path)
    assert report.changes == {"bad_image": 3}
    assert "replaced 3 unreadable images with a note" in report.summary()
    lines = _lines(path)
    assert lines[1]["message"]["content"] == [text("look"), note, good, unpadded, no_type, note]
    assert lines[2]["message"]["content"] == [text("shot"), note]
    assert repair_file(path).status == "clean"


def test_tiff_and_avif_images_are_not_taken_for_unreadable_ones(tmp_path):
    # They hold images (replay converts what Pillow reads), so repair keeps them instead of putting
    # a note in their place saying their data is not a readable image.
    tiff_le, tiff_be = b"II*\x00\x08\x00\x00\x00", b"MM\x00*\x00\x00\x00\x08"
    avif = b"\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1"
    blocks = [image(base64.b64encode(head + b"pixels").decode(), "image/x") for head in (tiff_le, tiff_be, avif)]
    path = _file(tmp_path, jsonl(HEADER, entry(U([text("look"), *blocks]), 1)))
    assert repair_file(path).status == "clean"


# ---------------------------------------------------------------------------------------------
# A rewritten line keeps every value it does not change

NUMBERS = b"[1e400,-0,1e-400,0.1000000000000000055511151231257827,1.50,2E+3," + b"7" * 5000 + b"]"
ODD_VALUES = b'"n":' + NUMBERS + b',"dup":1,"dup":2,"esc":"\\u00e9\\ud83d","raw":"caf\xc3\xa9 \xff\xfe"'


def test_a_rewritten_line_keeps_numbers_duplicates_escapes_and_bytes(tmp_path):
    line = (
        b'{"type": "message", "id": "e1", "parentId": null, ' + ODD_VALUES + b', "message": {"role": "user", '
        b'"content": [{"type":"text","text":"  "}, {"type":"text","text":"kept \\u0041","z":-0.0}]}}\n'
    )
    path = _file(tmp_path, jsonl(HEADER) + line)
    assert repair_file(path).changes == {"blank_user": 1}
    assert path.read_bytes() == jsonl(HEADER) + line.replace(b'{"type":"text","text":"  "}, ', b"")
    assert repair_file(path).status == "clean"


def test_the_value_json_readers_keep_is_the_one_fixed_and_the_other_stays(tmp_path):
    line = b'{"type":"message","id":"e1","message":{"role":"user","content":"hi","content":" "}}\n'
    path = _file(tmp_path, jsonl(HEADER) + line)
    repair_file(path)
    assert path.read_bytes() == jsonl(HEADER) + line.replace(b'"content":" "', b'"content":"(no text)"')


def test_lines_with_values_python_cannot_hold_are_not_malformed(tmp_path):
    original = jsonl(HEADER) + b'{"type":"custom","id":"c1",' + ODD_VALUES + b"}\n"
    path = _file(tmp_path, original)
    assert repair_file(path).status == "clean" and path.read_bytes() == original


def test_a_file_repaired_for_another_line_keeps_such_lines_byte_for_byte(tmp_path):
    odd = b'{"type":"custom","id":"c1",' + ODD_VALUES + b"}\n"
    path = _file(tmp_path, jsonl(HEADER) + odd + b"{oops\n")
    assert repair_file(path).changes == {"malformed": 1}
    assert path.read_bytes() == jsonl(HEADER) + odd


# ---------------------------------------------------------------------------------------------
# Stale temp files, and a cap on the line length


def _aged(path, seconds=3600):
    return aged_file(path, seconds)


def test_stale_temp_files_of_a_killed_repair_are_removed(tmp_path):
    path = _file(tmp_path, jsonl(HEADER, entry(U("hi"))))
    dead = _aged(tmp_path / temp_path(path, pid=dead_pid()).name, seconds=0)
    legacy = _aged(tmp_path / ".s1.jsonl.k3j4h5g6.tmp")
    report = repair_file(path)
    assert not dead.exists() and not legacy.exists()
    assert report.status == "clean" and report.notes == {"stale_temp": 2}
    assert report.summary() == f"{path}: nothing to repair (removed 2 stale temp files of an interrupted repair)"


def test_live_or_foreign_temp_files_are_left_alone(tmp_path):
    path = _file(tmp_path, jsonl(HEADER) + b"{oops\n")
    keep = [
        _aged(tmp_path / temp_path(path).name),  # its writer (this process) is alive
        _aged(tmp_path / temp_path(path, pid=dead_pid(), host="otherbox").name, seconds=60),  # still writing there
        _aged(tmp_path / ".s1.jsonl.k3j4h5g6.tmp", seconds=60),  # no pid: too recent to call stale
        _aged(tmp_path / ".other.jsonl.k3j4h5g6.tmp"),  # another session's
        _aged(tmp_path / ".s1.jsonl.notours.tmp"),  # not our naming
        _aged(tmp_path / "s1.jsonl.bak-1-2"),  # a backup is never litter
    ]
    report = repair_file(path)
    assert report.status == "repaired" and "stale_temp" not in report.notes
    assert all(p.exists() for p in keep)
    assert sorted(_siblings(path)) == sorted([p.name for p in keep] + [report.backup.name])


def test_a_line_over_the_cap_is_kept_unread_and_reported(tmp_path, monkeypatch):
    long_line = json.dumps(entry(U("x" * 10_000), 2)).encode() + b"\n"
    original = jsonl(HEADER, entry(U(" "), 1)) + long_line + b"{oops\n"
    path = _file(tmp_path, original)
    seen = []
    real_fix_line = repair.fix_line
    monkeypatch.setattr(repair, "fix_line", lambda raw, *rest: seen.append(len(raw)) or real_fix_line(raw, *rest))
    report = repair_file(path, max_line_bytes=4096)
    assert report.changes == {"blank_user": 1, "malformed": 1} and report.notes == {"over_long": 1}
    assert "kept 1 line over the 4096 bytes line cap unread" in report.summary()
    assert path.read_bytes() == jsonl(HEADER, entry(U(DEFAULT_TEXTS.blank_user_turn), 1)) + long_line
    assert seen and max(seen) <= 4096


def test_an_over_long_line_without_an_ending_is_copied_as_it_was(tmp_path):
    original = jsonl(HEADER) + b"{oops\n" + b'{"type":"custom","data":"' + b"y" * 5000 + b'"}'
    path = _file(tmp_path, original)
    report = repair_file(path, max_line_bytes=1000)
    assert report.notes == {"over_long": 1} and path.read_bytes() == original.replace(b"{oops\n", b"")


def test_a_header_over_the_cap_is_refused(tmp_path):
    path = _file(tmp_path, jsonl({**HEADER, "cwd": "/" * 2000}) + b"{oops\n")
    report = repair_file(path, max_line_bytes=1000)
    assert report.status == "refused" and "line 1 is over the 1000 bytes line cap" in report.reason


def test_no_result_is_inserted_when_a_line_went_unread(tmp_path):
    turn = A(tc("call_1", "exec"), sr="toolUse", api="openai-chatgpt-responses", provider="openai")
    unread = json.dumps(entry(R("call_1", "z" * 5000), 2, "e1")).encode() + b"\n"
    path = _file(tmp_path, jsonl(HEADER, entry(turn, 1)) + unread)
    report = repair_file(path, max_line_bytes=1000)
    assert report.status == "clean" and report.notes == {"over_long": 1, "results_not_inserted": 1}


# ---------------------------------------------------------------------------------------------
# Invariants over random session files

FILES = settings(max_examples=150, deadline=None)
"""Each example writes and repairs a file twice, on disk: fewer examples than the in-memory invariants."""


@FILES
@given(lines=session_files(), ending=st.sampled_from([b"\n", b"\r\n"]))
def test_repair_is_idempotent_keeps_untouched_lines_and_leaves_only_json(lines, ending):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "s.jsonl"
        path.write_bytes(b"".join(line + ending for line in lines))
        repair_file(path)
        repaired = path.read_bytes()
        assert repair_file(path).status == "clean" and path.read_bytes() == repaired
        out_lines = repaired.split(ending)
        for line in out_lines:
            assert not line.strip() or isinstance(loads(line.decode("utf-8", "surrogateescape")), dict)
        _assert_only_content_and_parent_changed(lines, out_lines)
        read_session(path)  # the repaired file reads for replay


@FILES
@given(lines=session_files(wrong_types=True), policy=st.sampled_from(sorted(POLICY_TABLE)))
def test_a_value_of_any_json_type_anywhere_is_repaired_never_a_crash(lines, policy):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "s.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        repair_file(path)
        repaired = path.read_bytes()
        assert repair_file(path).status == "clean" and path.read_bytes() == repaired
        sanitize(replay_messages(read_session(path).entries), POLICY_TABLE[policy])


def _assert_only_content_and_parent_changed(before, after):
    """Every entry that is still there holds the same values, but for its message content and parent."""
    kept = {_id(line): line for line in after if _id(line) is not None}
    for line in before:
        entry_id = _id(line)
        if entry_id is None or entry_id not in kept:
            continue
        if kept[entry_id] != line:
            old, new = _parsed(line), _parsed(kept[entry_id])
            assert _without(old, "parentId", "message") == _without(new, "parentId", "message")
            assert _without(old["message"], "content") == _without(new["message"], "content")


def _id(line):
    value = _parsed(line)
    return value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None


def _parsed(line):
    try:
        return loads(line.decode("utf-8", "surrogateescape"))
    except ValueError:
        return None


def _without(value, *keys):
    return {k: v for k, v in value.items() if k not in keys}


def test_no_backup_exists_while_the_new_file_is_written(tmp_path, monkeypatch):
    # A repair killed while writing then leaves only its temp file, which the next repair removes.
    path = _file(tmp_path, jsonl(HEADER, entry(U("hi"))) + b"{oops\n")
    during_write = []
    read_lines = caplines.lines_of

    def watching(handle, cap):
        during_write.append(sorted(_siblings(path)))
        yield from read_lines(handle, cap)

    monkeypatch.setattr(caplines, "lines_of", watching)
    report = repair_file(path)
    assert during_write[0] == [] and [name.split("-")[0] for name in during_write[1]] == [".s1.jsonl.repair"]
    assert report.backup.read_bytes().endswith(b"{oops\n") and _siblings(path) == [report.backup.name]


# ---------------------------------------------------------------------------------------------
# Deep entries and the children of unreadable lines


def test_an_entry_nested_past_the_recursion_limit_is_kept_byte_for_byte(tmp_path):
    deep = {
        "type": "custom",
        "id": "c1",
        "parentId": "e1",
        "customType": "x",
        "data": json.loads("[" * 900 + "]" * 900),
    }
    deep_line = json.dumps(deep)[:-1].replace("[" * 900 + "]" * 900, "[" * 1500 + "]" * 1500) + "}"
    original = jsonl(HEADER, entry(U("hi"), 1)) + deep_line.encode() + b"\n" + jsonl(entry(U(""), 2, "c1"))
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.changes == {"blank_user": 1}
    assert path.read_bytes().splitlines()[2] == deep_line.encode()


def test_children_of_an_unreadable_dropped_line_hang_from_the_entry_before_it(tmp_path):
    cut = b'{"type": "message", "id": "e2", "parentId": "e1", "message": {"ro\n'
    original = jsonl(HEADER, entry(U("hi"), 1)) + cut + jsonl(entry(U("next"), 3, "e2"), entry(U("last"), 4, "e3"))
    path = _file(tmp_path, original)
    report = repair_file(path)
    assert report.changes == {"malformed": 1, "relinked": 1}
    assert _lines(path) == [HEADER, entry(U("hi"), 1), entry(U("next"), 3, "e1"), entry(U("last"), 4, "e3")]
    assert [to_json(m) for m in replay_messages(read_session(path).entries)] == [U("hi"), U("next"), U("last")]
    assert repair_file(path).status == "clean"


def test_an_unreadable_line_right_after_the_header_leaves_its_child_a_root(tmp_path):
    original = jsonl(HEADER) + b"{oops\n" + jsonl(entry(U("first"), 2, "e1"))
    path = _file(tmp_path, original)
    assert repair_file(path).changes == {"malformed": 1, "relinked": 1}
    assert _lines(path) == [HEADER, entry(U("first"), 2, None)]


def test_a_parent_that_is_still_in_the_file_is_not_relinked_after_a_dropped_line(tmp_path):
    original = jsonl(HEADER, entry(U("a"), 1)) + b"{oops\n" + jsonl(entry(U("b"), 3, "e1"))
    path = _file(tmp_path, original)
    assert repair_file(path).changes == {"malformed": 1}
    assert _lines(path) == [HEADER, entry(U("a"), 1), entry(U("b"), 3, "e1")]
