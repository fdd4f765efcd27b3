"""Every instruction OpenClaw's builder gives for okbest2024-backup (main session, full mode) has
its counterpart in promptc's prompt for the same turn (support/guidance.py), and the new points
are gated as OpenClaw gates them."""

from __future__ import annotations

import pytest

from promptc import Request, RunFacts, Tool, compile_prompt

from support.guidance import POINTS, TURN_TOOLS
from support.paths import CORPUS

WORKSPACE = CORPUS / "okbest2024-backup"
CONFIG = (
    "agents.defaults.userTimezone=Europe/Berlin",
    "agents.defaults.heartbeat.enabled=true",
    "agents.defaults.memoryInGroups=true",
)


def turn(**changes) -> RunFacts:
    """The harness's example turn: a Telegram group, 13 tools, owners, reactions, TTS."""
    facts = {
        "session": "main",
        "mode": "full",
        "channel": "telegram",
        "chat_type": "group",
        "capabilities": ("inlineButtons",),
        "tools": tuple(Tool(name) for name in TURN_TOOLS),
        "owners": ("+15551230000",),
        "extra_prompt": "Group chat: platform team. Be brief.",
        "model": "anthropic/claude-sonnet-4-6",
        "reactions": "minimal",
        "tts_hint": "Voice (TTS) is enabled. Keep spoken text short.",
        "thinking": "low",
        "host": "ref-host",
        "os": "linux",
        "arch": "x64",
        "shell": "bash",
    }
    return RunFacts(**{**facts, **changes})


def render(run: RunFacts, workspace=WORKSPACE) -> str:
    return compile_prompt(Request(run=run, workspace=workspace, overrides=CONFIG, plugins=False)).text


needs_corpus = pytest.mark.skipif(not WORKSPACE.is_dir(), reason=f"the shared corpus is absent ({WORKSPACE})")


@needs_corpus
def test_every_openclaw_instruction_of_the_okbest_case_has_its_phrase():
    prompt = render(turn())
    missing = [point for point, phrase in POINTS.items() if phrase not in prompt]
    assert missing == []


def test_the_table_names_107_distinct_points_with_distinct_phrases():
    assert len(POINTS) == 107 and len(set(POINTS.values())) == 107


def test_silent_replies_show_in_a_direct_chat_too(make_workspace):
    prompt = render(turn(chat_type="direct"), make_workspace({"AGENTS.md": "Be useful.\n"}))
    assert POINTS["silent.when"] in prompt and POINTS["silent.never_append"] in prompt


def test_the_tool_points_follow_the_tools(make_workspace):
    ws = make_workspace({"AGENTS.md": "Be useful.\n"})
    bare = render(turn(tools=(Tool("read"),)), ws)
    for point in ("tooling.exec_pty", "tooling.session_status_model", "messaging.subagent_brief"):
        assert POINTS[point] not in bare, point
    # Cross-session messaging and completion events are stated whatever the tools.
    assert POINTS["messaging.sessions_send"] in bare and POINTS["messaging.completion_events"] in bare
    spawning = render(turn(tools=(Tool("sessions_spawn"), Tool("sessions_yield"))), ws)
    assert "wait for its completion events with sessions_yield" in spawning


def test_the_reaction_level_is_named(make_workspace):
    ws = make_workspace({"AGENTS.md": "Be useful.\n"})
    assert "Reactions are on for telegram, at the extensive level." in render(turn(reactions="extensive"), ws)
