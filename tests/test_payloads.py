"""Provider payload formats and --out (issue 2, 7)."""

from __future__ import annotations

import json

from conftest import EXAMPLES

RENDER = ("render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")


def parts(run_cli):
    code, out, _ = run_cli(*RENDER, "--format", "json")
    data = json.loads(out)
    return data["stable"], data["volatile"]


def test_anthropic_caches_only_the_stable_block(run_cli):
    stable, volatile = parts(run_cli)
    code, out, _ = run_cli(*RENDER, "--format", "anthropic")
    system = json.loads(out)["system"]
    assert code == 0
    assert system == [
        {"type": "text", "text": stable, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": volatile},
    ]


def test_bedrock_puts_a_cache_point_between_the_parts(run_cli):
    stable, volatile = parts(run_cli)
    _, out, _ = run_cli(*RENDER, "--format", "bedrock")
    assert json.loads(out)["system"] == [{"text": stable}, {"cachePoint": {"type": "default"}}, {"text": volatile}]


def test_openai_is_one_system_message_starting_with_the_stable_part(run_cli):
    stable, volatile = parts(run_cli)
    _, out, _ = run_cli(*RENDER, "--format", "openai")
    messages = json.loads(out)["messages"]
    assert len(messages) == 1 and messages[0]["role"] == "system"
    assert messages[0]["content"].startswith(stable)
    assert messages[0]["content"].endswith(volatile)
    assert "PROMPT_CACHE_BOUNDARY" not in messages[0]["content"]


def test_text_format_holds_the_marker_once(run_cli):
    _, out, _ = run_cli(*RENDER)
    assert out.count("<!-- PROMPT_CACHE_BOUNDARY -->") == 1


def test_out_writes_the_file_and_nothing_to_stdout(run_cli, tmp_path):
    target = tmp_path / "prompt.txt"
    code, out, _ = run_cli(*RENDER, "--out", target)
    assert code == 0 and out == ""
    assert "<!-- PROMPT_CACHE_BOUNDARY -->" in target.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["prompt.txt"]  # no temp file left behind
