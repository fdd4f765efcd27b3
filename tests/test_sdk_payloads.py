"""The payload emitters through the real provider SDKs (issue 8): each dict is splatted into the
SDK call, the client talks to a loopback server started here, and the recorded request body is
what the provider would have received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anthropic  # the three SDKs come with the `test` extra
import boto3
import openai
import pytest
from conftest import EXAMPLES

from promptc import Request, RunFacts, Tool, compile_prompt, to_anthropic, to_bedrock, to_openai, to_responses


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


def test_openai_responses_gets_the_prompt_without_the_marker_as_instructions(server):
    url, seen = server
    prompt = _prompt("openai/gpt-5.5")
    client = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    client.responses.create(model="gpt-5.5", input="hello", **to_responses(prompt))
    path, body = seen[-1]
    assert path == "/v1/responses"
    assert body["instructions"] == prompt.stable + "\n\n" + prompt.volatile
    assert body["input"] == "hello"


def test_bedrock_converse_gets_a_cache_point_with_its_ttl_after_each_tier(server, monkeypatch):
    url, seen = server
    for key in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(Path("/nonexistent")))
    prompt = _prompt("anthropic/claude-sonnet-4-5")
    client = boto3.client(
        "bedrock-runtime",
        endpoint_url=url,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
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
