"""`promptc transcript repair|sanitize|policy` through a tiny argparse parser, as the lead wires it."""

from __future__ import annotations

import argparse
import json

import pytest

from compiler.errors import TranscriptError
from compiler.transcript import policy as policies
from compiler.transcript.cli import register
from compiler.transcript.texts import DEFAULT_TEXTS
from transcript_strategies import A, U, tc, text

HEADER = {"type": "session", "version": 2, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
ANTHROPIC = ["--provider", "anthropic", "--model-api", "anthropic-messages", "--model", "claude-sonnet-4-5"]


def run(*argv):
    parser = argparse.ArgumentParser(prog="promptc")
    register(parser.add_subparsers())
    args = parser.parse_args(["transcript", *argv])
    return args.handler(args)


def _session(tmp_path, *messages, name="s.jsonl", tail=b""):
    path = tmp_path / name
    entries = [{"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None, "message": m}
               for i, m in enumerate(messages)]
    path.write_bytes("".join(json.dumps(o) + "\n" for o in [HEADER, *entries]).encode() + tail)
    return path


def test_repair_reports_each_file_on_stderr_and_exits_0(tmp_path, capsys):
    broken = _session(tmp_path, U("hi"), tail=b'{"type":')
    clean = _session(tmp_path, U("hi"), name="clean.jsonl")
    assert run("repair", str(broken), str(clean)) == 0
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.splitlines()[0].startswith(f"{broken}: repaired (dropped 1 malformed line); original kept at ")
    assert out.err.splitlines()[1] == f"{clean}: nothing to repair"


def test_repair_refusal_exits_1_with_one_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"message","message":{"role":"user","content":""}}\n')
    assert run("repair", str(path)) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"{path}: not repaired, file left as it was: line 1 ")


def test_repair_of_a_missing_file_raises_before_touching_any_file(tmp_path):
    broken = _session(tmp_path, U("hi"), tail=b"{oops\n")
    before = broken.read_bytes()
    with pytest.raises(TranscriptError, match="no such session file"):
        run("repair", str(broken), str(tmp_path / "missing.jsonl"))
    assert broken.read_bytes() == before


def test_sanitize_prints_policy_and_messages(tmp_path, capsys):
    path = _session(tmp_path, U("hi"), A(tc("call|1"), sr="toolUse"), U("  "), U("again"))
    assert run("sanitize", str(path), *ANTHROPIC) == 0
    out = capsys.readouterr()
    document = json.loads(out.out)
    chosen = policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    assert document["policy"] == {"name": "anthropic", "transforms": list(chosen.transforms)}
    assert document["messages"] == [
        U("hi"),
        A(tc("call1"), sr="toolUse"),
        {"role": "toolResult", "toolCallId": "call1", "toolName": "read",
         "content": [text(DEFAULT_TEXTS.missing_tool_result)], "isError": True},
        U("again"),
    ]
    assert out.err == f"{path}: 4 messages in, 4 out (policy anthropic)\n"


def test_sanitize_output_is_byte_stable_and_out_writes_the_same_bytes(tmp_path, capsys):
    path = _session(tmp_path, U("héllo"), A(text("ok")))
    run("sanitize", str(path), *ANTHROPIC)
    first = capsys.readouterr().out
    run("sanitize", str(path), *ANTHROPIC)
    assert capsys.readouterr().out == first
    target = tmp_path / "replay.json"
    assert run("sanitize", str(path), *ANTHROPIC, "--out", str(target)) == 0
    assert capsys.readouterr().out == "" and target.read_text(encoding="utf-8") == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["replay.json", "s.jsonl"]


def test_sanitize_image_limit_flag(tmp_path, capsys):
    from transcript_strategies import image, png_base64

    path = _session(tmp_path, U([image(png_base64(400, 200))]))
    run("sanitize", str(path), *ANTHROPIC, "--image-max-dimension", "100")
    block = json.loads(capsys.readouterr().out)["messages"][0]["content"][0]
    assert block["mimeType"] == "image/jpeg"


def test_sanitize_takes_the_image_limit_from_the_agent_config(tmp_path, capsys):
    from transcript_strategies import image, png_base64

    path = _session(tmp_path, U([image(png_base64(400, 200))]))
    config = tmp_path / "c.yaml"
    config.write_text("agents:\n  list:\n    - id: main\n    - id: small\n      imageMaxDimensionPx: 100\n")
    run("sanitize", str(path), *ANTHROPIC, "--config", str(config))
    assert json.loads(capsys.readouterr().out)["messages"][0]["content"][0]["mimeType"] == "image/png"
    run("sanitize", str(path), *ANTHROPIC, "--config", str(config), "--agent", "small")
    assert json.loads(capsys.readouterr().out)["messages"][0]["content"][0]["mimeType"] == "image/jpeg"


def test_sanitize_of_a_malformed_file_names_the_line(tmp_path):
    path = _session(tmp_path, U("hi"), tail=b'{"type":\n')
    with pytest.raises(TranscriptError, match=f"^{path}:3:"):
        run("sanitize", str(path), *ANTHROPIC)


@pytest.mark.parametrize("value", ["0", "-3", "big"])
def test_bad_image_limit_is_a_usage_error(tmp_path, value, capsys):
    with pytest.raises(SystemExit) as raised:
        run("sanitize", "x.jsonl", *ANTHROPIC, "--image-max-dimension", value)
    assert raised.value.code == 2


def test_policy_prints_one_line_per_transform(capsys):
    assert run("policy", "--provider", "mistral", "--model-api", "openai-completions", "--model", "mistral-large") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == policies.explain(policies.resolve("mistral", "openai-completions", "mistral-large"))
    assert len(lines) == 1 + len(policies.TRANSFORM_ORDER)
