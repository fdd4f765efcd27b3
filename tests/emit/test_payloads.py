"""The prompt as provider payloads (emit/payloads.py): cache breakpoints per tier with their TTLs,
the formats `promptc render` writes, and each payload splatted into the real provider SDK's call
against a loopback server, whose recorded request body is what the provider would have received."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import anthropic  # the three SDKs come with the `test` extra
import boto3
import openai
import pytest

from promptc import (
    Request,
    RunFacts,
    Tool,
    compile_prompt,
    keep_warm_ping,
    to_anthropic,
    to_bedrock,
    to_openai,
    to_responses,
)
from promptc.emit.payloads import PING_MESSAGE
from promptc.model.config import KeepWarm

from support.paths import EXAMPLES

RENDER = ("render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")


def parts(run_cli):
    _code, out, _ = run_cli(*RENDER, "--format", "json")
    data = json.loads(out)
    return data["stable"], data["volatile"]


def anthropic_system(run_cli, *extra):
    code, out, err = run_cli(*RENDER, "--format", "anthropic", *extra)
    assert code == 0, err
    return json.loads(out)["system"]


def openai_text(run_cli, *extra):
    _, out, _ = run_cli(*RENDER, "--format", "openai", *extra)
    return json.loads(out)["messages"][0]["content"]


def test_anthropic_gets_one_cached_block_per_tier_then_the_volatile_block(run_cli):
    stable, volatile = parts(run_cli)
    system = anthropic_system(run_cli)
    cached, fresh = system[:-1], system[-1]
    # The example workspace has every tier: sections and AGENTS/TOOLS/IDENTITY | SOUL, USER | MEMORY.
    assert len(cached) == 3
    assert all(set(block) == {"type", "text", "cache_control"} for block in cached)
    assert fresh == {"type": "text", "text": volatile}
    assert "## AGENTS.md\n" in cached[0]["text"] and "## MEMORY.md" not in cached[0]["text"]
    assert "## SOUL.md\n" in cached[1]["text"] and "## USER.md\n" in cached[1]["text"]
    memory = (EXAMPLES / "workspace" / "MEMORY.md").read_text(encoding="utf-8").strip()
    assert memory in cached[2]["text"] and "## MEMORY.md\n" in cached[2]["text"]
    assert all(block["text"].endswith("\n\n") for block in cached)
    joined = "".join(block["text"] for block in system)
    assert joined == stable + "\n\n" + volatile == openai_text(run_cli)


def test_the_default_ttl_is_an_hour_on_the_first_breakpoint_and_five_minutes_after(run_cli):
    controls = [block["cache_control"] for block in anthropic_system(run_cli)[:-1]]
    assert controls == [
        {"type": "ephemeral", "ttl": "1h"},
        {"type": "ephemeral", "ttl": "5m"},
        {"type": "ephemeral", "ttl": "5m"},
    ]


def test_a_one_hour_ttl_is_on_every_anthropic_breakpoint_and_bedrock_cache_point(run_cli):
    system = anthropic_system(run_cli, "--set", "prompt.cache.ttl=1h")
    assert [block.get("cache_control") for block in system] == [{"type": "ephemeral", "ttl": "1h"}] * 3 + [None]
    _, out, _ = run_cli(*RENDER, "--format", "bedrock", "--set", "prompt.cache.ttl=1h")
    points = [entry["cachePoint"] for entry in json.loads(out)["system"] if "cachePoint" in entry]
    assert points == [{"type": "default", "ttl": "1h"}] * 3


def test_a_tier_under_the_minimum_is_merged_into_the_next(run_cli):
    # The identity line alone in tier 1 (a few dozen tokens, under Anthropic's 1,024), the other
    # sections and files in tier 2, MEMORY.md in tier 3: three tiers, two breakpoints.
    tiers = (
        "prompt.cache.tiers=[[identity], [sections, AGENTS.md, TOOLS.md, IDENTITY.md, SOUL.md, USER.md], [MEMORY.md]]"
    )
    _, out, _ = run_cli(*RENDER, "--format", "json", "--set", tiers)
    compiled = json.loads(out)["tiers"]
    assert [t["units"][0]["name"] for t in compiled] == ["section:identity", "section:tooling", "file:MEMORY.md"]
    assert compiled[0]["chars"] < 400
    system = anthropic_system(run_cli, "--set", tiers)
    cached = [block for block in system if "cache_control" in block]
    assert len(cached) == 2 and len(system) == 3
    assert len(cached[0]["text"]) == compiled[0]["chars"] + compiled[1]["chars"]
    assert cached[0]["cache_control"] == {"type": "ephemeral", "ttl": "5m"}  # the kept breakpoint's (tier 2) TTL
    assert cached[0]["text"].startswith("You are a personal AI assistant") and "## USER.md\n" in cached[0]["text"]
    assert "## MEMORY.md\n" in cached[1]["text"]
    assert "".join(block["text"] for block in system) == openai_text(run_cli, "--set", tiers)


def test_a_prompt_too_small_to_cache_still_has_one_breakpoint(run_cli):
    system = anthropic_system(run_cli, "--mode", "none")
    assert [("cache_control" in block) for block in system] == [True, False]


def test_bedrock_puts_a_cache_point_after_each_tier(run_cli):
    stable, volatile = parts(run_cli)
    _, out, _ = run_cli(*RENDER, "--format", "bedrock")
    system = json.loads(out)["system"]
    texts = [entry["text"] for entry in system if "text" in entry]
    kinds = ["point" if "cachePoint" in entry else "text" for entry in system]
    assert kinds == ["text", "point", "text", "point", "text", "point", "text"]
    assert system[1]["cachePoint"] == {"type": "default", "ttl": "1h"}
    assert system[3]["cachePoint"] == system[5]["cachePoint"] == {"type": "default", "ttl": "5m"}
    assert "".join(texts) == stable + "\n\n" + volatile


def test_the_openai_cache_key_comes_from_the_stable_hash_when_asked_for(run_cli):
    stable, _ = parts(run_cli)
    key = "promptc-" + hashlib.sha256(stable.encode("utf-8")).hexdigest()[:16]
    for fmt in ("openai", "responses"):
        _, plain, _ = run_cli(*RENDER, "--format", fmt)
        _, keyed, _ = run_cli(*RENDER, "--format", fmt, "--set", "prompt.cache.openaiKey=true")
        assert "prompt_cache_key" not in json.loads(plain)
        assert json.loads(keyed)["prompt_cache_key"] == key
    _, other, _ = run_cli(*RENDER, "--format", "openai", "--set", "prompt.cache.openaiKey=true", "--channel", "discord")
    assert json.loads(other)["prompt_cache_key"] == key  # a volatile fact keeps the key


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


# --------------------------------------------------------------------------- through the provider SDKs


def _prompt(model: str, *overrides: str) -> Any:
    run = RunFacts(channel="telegram", chat_type="direct", model=model, tools=(Tool("read", "Read a file"),))
    request = Request(
        run=run, config_paths=(EXAMPLES / "config.yaml",), overrides=overrides, now="2026-01-01T00:00:00Z"
    )
    return compile_prompt(request)


USER = [{"role": "user", "content": "hello"}]


def test_anthropic_gets_one_cached_block_per_tier_with_its_ttl(server):
    url, seen = server
    prompt = _prompt("anthropic/claude-sonnet-4-5")
    client = anthropic.Anthropic(api_key="test", base_url=url, max_retries=0)
    client.messages.create(model="claude-sonnet-4-5", max_tokens=16, messages=USER, **to_anthropic(prompt))
    path, body = seen[-1]
    assert path == "/v1/messages"
    first, second, third = prompt.tiers  # the example workspace fills all three tiers
    assert body["system"] == [
        {"type": "text", "text": first.text, "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        {"type": "text", "text": second.text, "cache_control": {"type": "ephemeral", "ttl": "5m"}},
        {"type": "text", "text": third.text, "cache_control": {"type": "ephemeral", "ttl": "5m"}},
        {"type": "text", "text": prompt.volatile},
    ]
    assert first.text + second.text + third.text == prompt.stable + "\n\n"
    assert "file:AGENTS.md" in first.units and "file:MEMORY.md" in third.units
    assert body["messages"] == USER


def test_anthropic_one_hour_ttl_reaches_every_breakpoint(server):
    url, seen = server
    prompt = _prompt("anthropic/claude-sonnet-4-5", "prompt.cache.ttl=1h")
    client = anthropic.Anthropic(api_key="test", base_url=url, max_retries=0)
    client.messages.create(model="claude-sonnet-4-5", max_tokens=16, messages=USER, **to_anthropic(prompt))
    controls = [block.get("cache_control") for block in seen[-1][1]["system"]]
    assert controls == [{"type": "ephemeral", "ttl": "1h"}] * 3 + [None]


@pytest.mark.parametrize(("model", "role"), [("openai/gpt-5.5", "developer"), ("openai/gpt-4.1", "system")])
def test_openai_chat_puts_the_instructions_first_with_the_documented_role(server, model, role):
    url, seen = server
    prompt = _prompt(model)
    client = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    client.chat.completions.create(model=model.split("/")[1], **to_openai(prompt, messages=USER))
    path, body = seen[-1]
    assert path == "/v1/chat/completions"
    assert body["messages"][0] == {"role": role, "content": prompt.stable + "\n\n" + prompt.volatile}
    assert body["messages"][1:] == USER
    assert prompt.boundary is not None and prompt.boundary not in body["messages"][0]["content"]
    assert "prompt_cache_key" not in body


def test_openai_gets_the_prompt_cache_key_when_asked_for(server):
    url, seen = server
    prompt = _prompt("openai/gpt-5.5", "prompt.cache.openaiKey=true")
    client = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    client.chat.completions.create(model="gpt-5.5", **to_openai(prompt, messages=USER))
    client.responses.create(model="gpt-5.5", input="hello", **to_responses(prompt))
    (chat_path, chat), (responses_path, responses) = seen[-2:]
    assert (chat_path, responses_path) == ("/v1/chat/completions", "/v1/responses")
    assert chat["prompt_cache_key"] == responses["prompt_cache_key"] == "promptc-" + prompt.stable_sha256[:16]


def test_openai_gets_the_prompt_cache_retention_when_asked_for(server):
    url, seen = server
    prompt = _prompt("openai/gpt-5.5", "prompt.cache.openaiRetention=24h")
    client = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    client.chat.completions.create(model="gpt-5.5", **to_openai(prompt, messages=USER))
    client.responses.create(model="gpt-5.5", input="hello", **to_responses(prompt))
    (_, chat), (_, responses) = seen[-2:]
    assert chat["prompt_cache_retention"] == responses["prompt_cache_retention"] == "24h"
    assert "prompt_cache_retention" not in to_openai(_prompt("openai/gpt-5.5"))


def test_openai_responses_gets_the_prompt_without_the_marker_as_instructions(server):
    url, seen = server
    prompt = _prompt("openai/gpt-5.5")
    client = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    client.responses.create(model="gpt-5.5", input="hello", **to_responses(prompt))
    path, body = seen[-1]
    assert path == "/v1/responses"
    assert body["instructions"] == prompt.stable + "\n\n" + prompt.volatile
    assert body["input"] == "hello"


def _bedrock(url: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A Bedrock runtime client of the loopback server, with no AWS config of the machine's."""
    for key in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(Path("/nonexistent")))
    return boto3.client(
        "bedrock-runtime",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


def test_bedrock_converse_gets_a_cache_point_with_its_ttl_after_each_tier(server, monkeypatch):
    url, seen = server
    client = _bedrock(url, monkeypatch)
    prompt = _prompt("anthropic/claude-sonnet-4-5")
    messages = [{"role": "user", "content": [{"text": "hello"}]}]
    client.converse(modelId="anthropic.claude-sonnet-4-5", messages=messages, **to_bedrock(prompt))
    path, body = seen[-1]
    assert path.endswith("/converse")
    first, second, third = prompt.tiers
    assert body["system"] == [
        {"text": first.text},
        {"cachePoint": {"type": "default", "ttl": "1h"}},
        {"text": second.text},
        {"cachePoint": {"type": "default", "ttl": "5m"}},
        {"text": third.text},
        {"cachePoint": {"type": "default", "ttl": "5m"}},
        {"text": prompt.volatile},
    ]
    assert body["messages"] == messages


# --------------------------------------------------------------------------- keep-warm pings

WARM = ("prompt.cache.ttl=1h", "prompt.cache.keepWarm={every: 55m, window: 2h}")


def test_an_anthropic_ping_is_the_turns_cached_blocks_byte_for_byte_and_a_one_token_reply(server):
    url, seen = server
    prompt = _prompt("anthropic/claude-sonnet-4-5", *WARM)
    client = anthropic.Anthropic(api_key="test", base_url=url, max_retries=0)
    client.messages.create(model="claude-sonnet-4-5", max_tokens=16, messages=USER, **to_anthropic(prompt))
    turn = seen[-1][1]
    client.messages.create(model="claude-sonnet-4-5", **keep_warm_ping(prompt, "anthropic"))
    ping = seen[-1][1]
    # The three tier blocks as the turn sent them, breakpoints and all; the volatile block left out.
    assert ping["system"] == turn["system"][:3] and "cache_control" in ping["system"][-1]
    assert ping["messages"] == [{"role": "user", "content": PING_MESSAGE}] and ping["max_tokens"] == 1
    assert prompt.volatile not in json.dumps(ping)


def test_a_bedrock_ping_stops_at_the_last_cache_point(server, monkeypatch):
    url, seen = server
    client = _bedrock(url, monkeypatch)
    prompt = _prompt("anthropic/claude-sonnet-4-5", *WARM)
    client.converse(modelId="anthropic.claude-sonnet-4-5", **keep_warm_ping(prompt, "bedrock"))
    body = seen[-1][1]
    assert body["system"] == to_bedrock(prompt)["system"][:6] and "cachePoint" in body["system"][-1]
    assert body["messages"] == [{"role": "user", "content": [{"text": PING_MESSAGE}]}]
    assert body["inferenceConfig"] == {"maxTokens": 1}


def test_the_prompt_says_when_to_ping_and_not_for_a_session_sent_uncached(run_cli):
    assert _prompt("anthropic/claude-sonnet-4-5", *WARM).keep_warm == KeepWarm(3300, 7200)
    assert _prompt("anthropic/claude-sonnet-4-5").keep_warm is None
    code, out, _ = run_cli(*RENDER, "--format", "json", *(f"--set={o}" for o in WARM))
    assert json.loads(out)["keep_warm"] == {
        "every": "55m",
        "window": "2h",
        "every_seconds": 3300,
        "window_seconds": 7200,
    }
    quiet = (*RENDER, "--session", "cron", "--set", "prompt.cache.uncachedSessions=[cron]", "--format", "anthropic")
    code, out, _ = run_cli(*quiet, *(f"--set={o}" for o in WARM))
    assert code == 0 and json.loads(out)  # the turn itself renders, without breakpoints
    code, out, err = run_cli(*quiet, "--ping")
    assert code == 2 and out == ""
    assert (
        err
        == "promptc: error: this prompt carries no cache breakpoint (prompt.cache.uncachedSessions names cron): nothing to keep warm\n"
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--ping",), "--ping: a keep-warm ping is a request in --format anthropic or bedrock"),
        (("--ping", "--format", "openai"), "--ping: a keep-warm ping is a request in --format anthropic or bedrock"),
        (("--ping", "--format", "json", "--list-sections"), "--ping prints one request: not with --list-sections"),
    ],
)
def test_a_ping_in_a_format_without_breakpoints_is_a_usage_error(run_cli, flags, message):
    code, out, err = run_cli(*RENDER, *flags)
    assert (code, out, err) == (2, "", f"promptc: error: {message}\n")
