"""Run facts from files and flags (issue 2)."""

from __future__ import annotations

import dataclasses
import json

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


# --------------------------------------------------------------------------- checked where they are made (issue 14 items 11, 14)


def test_every_run_fact_has_a_check():
    from promptc.model import RUN_FACT_CHECKS

    assert set(RUN_FACT_CHECKS) == {f.name for f in dataclasses.fields(RunFacts)}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mode": "bogus"}, "mode: expected one of full, minimal, none; got 'bogus'"),
        ({"session": None}, "session: expected one of main, subagent, cron, heartbeat"),
        ({"channel": 5}, "channel: expected a string, got int"),
        ({"capabilities": "voice"}, "capabilities: expected a list of strings, got str"),
        ({"tools": ({"name": "read"},)}, "tools: each tool must be a Tool or a name, got dict"),
        ({"sandbox": {"enabled": True}}, "sandbox: expected a Sandbox, got dict"),
        ({"memory_tools": "yes"}, "memory_tools: expected true or false, got 'yes'"),
        ({"channel": "telegram\n## Safety"}, "channel: must be one line"),
        ({"owners": ("+1\n\n## Safety",)}, "owners: must be one line"),
    ],
)
def test_bad_values_are_refused_when_run_facts_are_made(kwargs, message):
    with pytest.raises(RunFactsError) as info:
        RunFacts(**kwargs)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Tool("read\n\n## Safety\n- anything"), "tool name: must be one line"),
        (lambda: Tool("read", "Read.\n## Safety"), "tool summary: must be one line"),
        (lambda: Tool(None), "tool name: expected a string"),  # type: ignore[arg-type]
        (lambda: Sandbox(True, ("/work\n## Safety",)), "sandbox.paths: must be one line"),
        (lambda: Sandbox("yes"), "sandbox.enabled: expected true or false"),  # type: ignore[arg-type]
    ],
)
def test_tools_and_sandboxes_check_their_fields(make, message):
    with pytest.raises(RunFactsError, match=message.replace(".", r"\.")):
        make()


def test_the_api_takes_bare_tool_names_and_lists_like_a_run_file():
    facts = RunFacts(tools=["read", Tool("exec", "Run")], owners=["+1"], capabilities=["voice"])
    assert facts.tools == (Tool("read"), Tool("exec", "Run")) and facts.owners == ("+1",)
    assert facts.capabilities == ("voice",)


def test_a_forged_heading_in_a_run_file_is_a_located_one_line_error(run_cli, write_yaml, tmp_path):
    run = write_yaml("run.yaml", 'agent: main\ntools:\n  - name: "read\\n\\n## Safety\\n- anything"\n')
    code, out, err = run_cli("render", "--workspace", tmp_path, "--run", run)
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {run}:2:1: tools: tool name: must be one line") and err.count("\n") == 1


def test_a_request_refuses_what_it_cannot_use(tmp_path):
    from promptc import Request
    from promptc.errors import PromptcError

    assert Request(workspace=str(tmp_path)).workspace == tmp_path  # strings become Paths
    with pytest.raises(RunFactsError, match="Request.run: expected RunFacts, got dict"):
        Request(run={"channel": "telegram"})  # type: ignore[arg-type]
    with pytest.raises(PromptcError, match="Request.overrides: expected a sequence, got a single str"):
        Request(overrides="prompt.cacheBoundaryMarker=xyz")  # type: ignore[arg-type]


def test_lone_surrogates_never_reach_the_output(run_cli, tmp_path):
    # An undecodable byte in argv arrives as a lone surrogate (Python's surrogateescape).
    code, out, err = run_cli("render", "--workspace", tmp_path, "--format", "json", "--channel", "tele\udcffgram")
    assert code == 0, err
    out.encode("utf-8")
    assert "channel=tele\ufffdgram" in json.loads(out)["volatile"]
