"""Run facts from files and flags (issue 2)."""

from __future__ import annotations

import pytest

from promptc.config import runfacts
from promptc.errors import RunFactsError
from promptc.model import RunFacts, Sandbox, Tool


def test_every_issue_key_is_accepted(write_yaml):
    text = """
agent: work
session: cron
mode: full
harness: codex
channel: discord
chat_type: group
capabilities: [a, b]
delivery: message_tool_only
native_approvals: true
tools: [{name: read, summary: Read files}, exec]
sandbox: {enabled: true, paths: [/box], elevated_exec: true}
provider: openai
model_api: openai-responses
model: openai/gpt-5.5
default_model: openai/gpt-5.5
host: h
os: linux
arch: x64
python: "3.12"
shell: zsh
repo_root: /repo
thinking: high
reasoning: stream
owners: ["+1"]
extra_prompt: x
reactions: extensive
tts_hint: t
heartbeat_prompt: hb
memory_tools: true
light_context: true
startup_memory: notes
"""
    facts = runfacts.load(write_yaml("run.yaml", text), {})
    assert facts.agent == "work" and facts.session == "cron" and facts.harness == "codex"
    assert facts.tools == (Tool("read", "Read files"), Tool("exec"))
    assert facts.sandbox == Sandbox(True, ("/box",), True)
    assert facts.owners == ("+1",) and facts.light_context and facts.memory_tools


def test_flags_override_the_file_and_none_flags_are_ignored(write_yaml):
    facts = runfacts.load(write_yaml("run.yaml", "channel: telegram\nsession: cron\n"), {"channel": "discord", "session": None})
    assert (facts.channel, facts.session) == ("discord", "cron")


def test_default_mode_follows_the_session_kind():
    assert RunFacts(session="main").effective_mode == "full"
    assert RunFacts(session="heartbeat").effective_mode == "full"
    assert RunFacts(session="subagent").effective_mode == "minimal"
    assert RunFacts(session="cron").effective_mode == "minimal"
    assert RunFacts(session="cron", mode="none").effective_mode == "none"


def test_bare_off_means_the_word_for_levels(write_yaml):
    facts = runfacts.load(write_yaml("run.yaml", "reasoning: off\nthinking: on\n"), {})
    assert (facts.reasoning, facts.thinking) == ("off", "on")


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("tools: [{name: read, colour: red}]\n", "tools: each tool must be a name or {name, summary}"),
        ("sandbox: {enabled: true, size: 3}\n", "unknown sandbox key 'size'"),
        ("memory_tools: maybe\n", "memory_tools: expected true or false"),
        ("- a\n- b\n", "run facts must be a mapping"),
    ],
)
def test_bad_values_are_reported_with_a_location(write_yaml, text, fragment):
    path = write_yaml("run.yaml", text)
    with pytest.raises(RunFactsError) as info:
        runfacts.load(path, {})
    assert fragment in info.value.message
    assert info.value.location.path == str(path) and info.value.location.line == 1


def test_a_tool_summary_must_be_text(write_yaml):
    with pytest.raises(RunFactsError, match="the summary of tool 'read' must be text"):
        runfacts.load(write_yaml("run.yaml", "tools: [{name: read, summary: [a]}]\n"), {})


def test_missing_agent_means_the_default_agent(write_yaml, make_workspace):
    from promptc import Request, compile_prompt

    cfg = write_yaml("c.yaml", "agents:\n  list:\n    - id: ops\n    - id: dev\n")
    prompt = compile_prompt(Request(config_paths=(cfg,), workspace=make_workspace({})))
    assert prompt.agent == "ops" and "agent=ops" in prompt.volatile
