"""`promptc transcript repair|sanitize|policy` through the real entry point, `promptc.commands.cli.main`.

`run_cli` (conftest) calls `main([...])`, which returns the exit code and never exits, and hands
back (code, stdout, stderr).
"""

from __future__ import annotations

import json
import os

import pytest

from promptc._lib.errors import Location, TranscriptError
from promptc.transcript import caplines, repair
from promptc.transcript import policy as policies
from promptc.transcript.texts import DEFAULT_TEXTS

from support.transcript_strategies import A, U, image, png_base64, tc, text, write_session

ANTHROPIC = ["--provider", "anthropic", "--model-api", "anthropic-messages", "--model", "claude-sonnet-4-5"]


def _one_error_line(err: str, path) -> str:
    """The single stderr line of a failed command; it must name the file."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"promptc: error: {path}: "), err
    return lines[0]


# ---------------------------------------------------------------------------------------------
# repair


def test_repair_reports_each_file_on_stderr_and_exits_0(tmp_path, run_cli):
    broken = write_session(tmp_path, U("hi"), tail=b'{"type":')
    clean = write_session(tmp_path, U("hi"), name="clean.jsonl")
    code, out, err = run_cli("transcript", "repair", broken, clean)
    assert code == 0 and out == ""
    assert err.splitlines()[0].startswith(f"{broken}: repaired (dropped 1 malformed line); original kept at ")
    assert err.splitlines()[1] == f"{clean}: nothing to repair"


def test_repair_refusal_exits_1_with_one_line(tmp_path, run_cli):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"message","message":{"role":"user","content":""}}\n')
    code, out, err = run_cli("transcript", "repair", path)
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"{path}: not repaired, file left as it was: line 1 ")


def test_repair_of_a_missing_file_exits_2_before_touching_any_file(tmp_path, run_cli):
    broken = write_session(tmp_path, U("hi"), tail=b"{oops\n")
    before = broken.read_bytes()
    missing = tmp_path / "missing.jsonl"
    code, out, err = run_cli("transcript", "repair", broken, missing)
    assert code == 2 and out == ""
    assert _one_error_line(err, missing).endswith("no such session file")
    assert broken.read_bytes() == before


@pytest.mark.parametrize("command", [["repair"], ["sanitize", *ANTHROPIC]], ids=["repair", "sanitize"])
def test_a_path_that_is_not_a_regular_file_is_named_for_what_it_is(tmp_path, run_cli, command):
    fifo = tmp_path / "session.fifo"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    for path, kind in ((fifo, "a FIFO (named pipe)"), (zero, "a character device"), (tmp_path, "a directory")):
        code, out, err = run_cli("transcript", *command, path)
        assert (code, out) == (2, "")
        assert _one_error_line(err, path).endswith(f"not a session file: it is {kind}")
    assert fifo.is_fifo() and zero.is_symlink()  # looked at, never opened or replaced


def test_repair_reports_the_first_file_before_the_second_fails(tmp_path, run_cli, monkeypatch):
    first = write_session(tmp_path, U("hi"), tail=b"{oops\n", name="a.jsonl")
    second = write_session(tmp_path, U("hi"), tail=b"{oops\n", name="b.jsonl")
    real_rewrite = repair._rewrite

    def disk_full_on_the_second(path, *rest):
        if path.name == "b.jsonl":
            raise TranscriptError("repair failed, file left as it was: disk full", Location(str(second)))
        return real_rewrite(path, *rest)

    monkeypatch.setattr(repair, "_rewrite", disk_full_on_the_second)
    code, _, err = run_cli("transcript", "repair", first, second)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith(f"{first}: repaired (dropped 1 malformed line); original kept at {first}.bak-")
    assert lines[1] == f"promptc: error: {second}: repair failed, file left as it was: disk full"


def test_repair_refuses_a_file_whose_header_breaks_between_the_passes(tmp_path, run_cli, monkeypatch):
    path = write_session(tmp_path, U("hi"), tail=b"{oops\n")
    swapped = b'{"type":"message","id":"x"}\n{oops\n'
    passes = []
    read_lines = caplines.lines_of

    def header_replaced_before_the_second_pass(handle, cap):
        passes.append(handle)
        if len(passes) == 2:
            path.write_bytes(swapped)
        yield from read_lines(handle, cap)

    monkeypatch.setattr(caplines, "lines_of", header_replaced_before_the_second_pass)
    code, out, err = run_cli("transcript", "repair", path)
    assert code == 1 and out == ""
    assert err.startswith(f"{path}: not repaired, file left as it was: line 1 ") and "internal error" not in err
    assert path.read_bytes() == swapped
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_repair_takes_the_line_cap_from_a_flag(tmp_path, run_cli):
    long_line = b'{"type":"custom","data":"' + b"x" * (3 * 1024 * 1024 // 2) + b'"}\n'
    path = write_session(tmp_path, U("hi"), tail=long_line + b"{oops\n")
    code, out, err = run_cli("transcript", "repair", "--max-line-mib", "1", path)
    assert code == 0 and out == ""
    assert err.startswith(f"{path}: repaired (dropped 1 malformed line); original kept at ")
    assert err.rstrip().endswith("; kept 1 line over the 1 MiB line cap unread")
    assert long_line in path.read_bytes()


def test_repair_takes_a_stop_reason_that_is_not_a_string(tmp_path, run_cli):
    # A stop reason of any JSON type is data: never an internal error.
    path = write_session(tmp_path, U("hi"), A(text("sure"), sr=["stop"]), tail=b"{oops\n")
    code, out, err = run_cli("transcript", "repair", path)
    assert code == 0 and out == ""
    assert err.startswith(f"{path}: repaired (dropped 1 malformed line); original kept at ")


@pytest.mark.parametrize("value", ["0", "half"])
def test_a_bad_line_cap_is_a_usage_error(tmp_path, run_cli, value):
    code, out, err = run_cli("transcript", "repair", "--max-line-mib", value, tmp_path / "s.jsonl")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and err.startswith("promptc: error: ")


# ---------------------------------------------------------------------------------------------
# sanitize


def test_sanitize_prints_policy_and_messages_as_json(tmp_path, run_cli):
    path = write_session(tmp_path, U("hi"), A(tc("call|1"), sr="toolUse"), U("  "), U("again"))
    code, out, err = run_cli("transcript", "sanitize", path, *ANTHROPIC)
    assert code == 0
    document = json.loads(out)
    chosen = policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    assert document["policy"] == {"name": "anthropic", "transforms": list(chosen.transforms)}
    assert document["messages"] == [
        U("hi"),
        A(tc("call1"), sr="toolUse"),
        {
            "role": "toolResult",
            "toolCallId": "call1",
            "toolName": "read",
            "content": [text(DEFAULT_TEXTS.missing_tool_result)],
            "isError": True,
        },
        U("again"),
    ]
    assert err == f"{path}: 4 messages in, 4 out (policy anthropic)\n"


def test_sanitize_output_is_byte_stable_and_out_writes_the_same_bytes(tmp_path, run_cli):
    path = write_session(tmp_path, U("héllo"), A(text("ok")))
    first = run_cli("transcript", "sanitize", path, *ANTHROPIC)[1]
    assert run_cli("transcript", "sanitize", path, *ANTHROPIC)[1] == first
    target = tmp_path / "replay.json"
    code, out, _ = run_cli("transcript", "sanitize", path, *ANTHROPIC, "--out", target)
    assert code == 0 and out == "" and target.read_text(encoding="utf-8") == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["replay.json", "s.jsonl"]


def test_sanitize_out_survives_a_lone_surrogate_in_a_text(tmp_path, run_cli):
    path = tmp_path / "s.jsonl"
    path.write_bytes(write_session(tmp_path, U("ok")).read_bytes().replace(b'"ok"', b'"half \\ud83d pair"'))
    target = tmp_path / "replay.json"
    code, _, err = run_cli("transcript", "sanitize", path, *ANTHROPIC, "--out", target)
    assert code == 0, err
    assert json.loads(target.read_bytes())["messages"] == [U("half \ud83d pair")]


def test_sanitize_stdout_escapes_a_lone_surrogate_too(tmp_path, run_cli):
    path = tmp_path / "s.jsonl"
    path.write_bytes(write_session(tmp_path, U("ok")).read_bytes().replace(b'"ok"', b'"half \\ud83d pair"'))
    code, out, _ = run_cli("transcript", "sanitize", path, *ANTHROPIC)
    assert code == 0
    out.encode("utf-8")  # strict: no lone surrogate reaches the stream
    assert json.loads(out)["messages"] == [U("half \ud83d pair")]


def test_sanitize_image_limit_flag(tmp_path, run_cli):
    path = write_session(tmp_path, U([image(png_base64(400, 200))]))
    out = run_cli("transcript", "sanitize", path, *ANTHROPIC, "--image-max-dimension", "100")[1]
    assert json.loads(out)["messages"][0]["content"][0]["mimeType"] == "image/jpeg"


def test_sanitize_takes_the_image_limit_from_the_agent_config(tmp_path, run_cli):
    path = write_session(tmp_path, U([image(png_base64(400, 200))]))
    config = tmp_path / "c.yaml"
    config.write_text("agents:\n  list:\n    - id: main\n    - id: small\n      imageMaxDimensionPx: 100\n")
    out = run_cli("transcript", "sanitize", path, *ANTHROPIC, "--config", config)[1]
    assert json.loads(out)["messages"][0]["content"][0]["mimeType"] == "image/png"
    out = run_cli("transcript", "sanitize", path, *ANTHROPIC, "--config", config, "--agent", "small")[1]
    assert json.loads(out)["messages"][0]["content"][0]["mimeType"] == "image/jpeg"


def test_sanitize_of_a_malformed_file_names_the_line(tmp_path, run_cli):
    path = write_session(tmp_path, U("hi"), tail=b'{"type":\n')
    code, out, err = run_cli("transcript", "sanitize", path, *ANTHROPIC)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(f"promptc: error: {path}:3:")


def test_sanitize_of_a_missing_file_exits_2_with_one_line(tmp_path, run_cli):
    missing = tmp_path / "missing.jsonl"
    code, out, err = run_cli("transcript", "sanitize", missing, *ANTHROPIC)
    assert code == 2 and out == ""
    assert _one_error_line(err, missing).endswith("no such session file")


@pytest.mark.parametrize("value", ["0", "-3", "big"])
def test_bad_image_limit_is_a_usage_error(tmp_path, run_cli, value):
    code, out, err = run_cli("transcript", "sanitize", "x.jsonl", *ANTHROPIC, "--image-max-dimension", value)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("promptc: error: ")


def test_sanitize_takes_a_role_and_a_stop_reason_that_are_not_strings(tmp_path, run_cli):
    # A role of any JSON type is data, never an internal error: such a
    # row is passed through as it is (repair drops it); a list stop reason is not a failure, so the
    # turn's call is answered like any other.
    odd = U("relayed", role=["user"])
    path = write_session(tmp_path, U("hi"), odd, A(tc("c1"), sr=["toolUse"]))
    code, out, err = run_cli("transcript", "sanitize", path, *ANTHROPIC)
    assert code == 0 and err == f"{path}: 3 messages in, 4 out (policy anthropic)\n"
    assert json.loads(out)["messages"] == [
        U("hi"),
        odd,
        A(tc("c1"), sr=["toolUse"]),
        {
            "role": "toolResult",
            "toolCallId": "c1",
            "toolName": "read",
            "content": [text(DEFAULT_TEXTS.missing_tool_result)],
            "isError": True,
        },
    ]


# ---------------------------------------------------------------------------------------------
# policy


def test_policy_prints_one_line_per_transform(run_cli):
    code, out, _ = run_cli(
        "transcript", "policy", "--provider", "mistral", "--model-api", "openai-completions", "--model", "mistral-large"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines == policies.explain(policies.resolve("mistral", "openai-completions", "mistral-large"))
    assert len(lines) == 1 + len(policies.TRANSFORM_ORDER)


def test_sanitize_reads_standard_input_and_out_dash_is_standard_output(tmp_path, run_cli, monkeypatch):
    import io

    path = write_session(tmp_path, U("hi"), A(text("hello")))
    expected = run_cli("transcript", "sanitize", path, *ANTHROPIC)[1]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("transcript", "sanitize", "-", *ANTHROPIC, "--out", "-")
    assert code == 0 and out == expected
    assert err.startswith("-: 2 messages in, 2 out")
    assert not (tmp_path / "-").exists()


def test_sanitize_of_bad_standard_input_names_stdin_and_the_line(tmp_path, run_cli, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"type": "session", "id": "s1"}\n{"type":\n')))
    code, out, err = run_cli("transcript", "sanitize", "-", *ANTHROPIC)
    assert (code, out) == (2, "")
    assert err.startswith("promptc: error: <stdin>:2:")
