"""Tools and model from the config when the run names none (inputs/toolpolicy.py), through
`promptc render`: OpenClaw's catalogue filtered by profile, allow and deny, per agent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "openclaw_coding_profile.json"


def tooling(prompt: str) -> list[str]:
    """The tool names the Tooling section lists, in its order."""
    start = prompt.index("## Tooling")
    block = prompt[start : prompt.index("\n\n", start)]
    return [m.group(1) for m in re.finditer(r"^- ([A-Za-z0-9_]+)(?::|$)", block, re.M)]


def runtime_model(prompt: str) -> str | None:
    found = re.search(r"\bmodel=(\S+)", prompt)
    return found.group(1) if found else None


@pytest.fixture
def render(run_cli, make_workspace, tmp_path):
    """Render with an openclaw.json holding `config` (and extra CLI args); returns stdout."""
    ws = make_workspace({"AGENTS.md": "Be useful.\n"})

    def run(config: dict, *args: str) -> str:
        path = tmp_path / "openclaw.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        code, out, err = run_cli("render", "--config", path, "--workspace", ws, *args)
        assert code == 0, err
        return out

    return run


def test_a_coding_profile_and_default_model_give_what_openclaws_builder_shows(render):
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    out = render(recorded["config"])
    assert tooling(out) == recorded["tool_names"]
    assert runtime_model(out) == recorded["runtime_model"]


def test_without_tool_keys_a_run_without_tools_keeps_none(render):
    out = render({"agents": {"defaults": {"model": "openai/gpt-5.2"}}})
    assert tooling(out) == [] and runtime_model(out) == "openai/gpt-5.2"


def test_the_minimal_and_messaging_profiles(render):
    assert tooling(render({"tools": {"profile": "minimal"}})) == ["session_status"]
    messaging = ["message", "sessions_list", "sessions_history", "sessions_send", "session_status"]
    assert tooling(render({"tools": {"profile": "messaging"}})) == messaging


def test_deny_wins_over_allow_and_groups_expand(render):
    config = {"tools": {"allow": ["group:fs", "bash"], "deny": ["write"]}}
    # group:fs is read, write, edit, apply_patch; bash is exec's other name.
    assert tooling(render(config)) == ["read", "edit", "apply_patch", "exec"]


def test_allowing_write_allows_apply_patch_and_a_star_matches_a_run_of_characters(render):
    assert tooling(render({"tools": {"allow": ["write", "sessions_*"]}})) == [
        "write",
        "apply_patch",
        "sessions_list",
        "sessions_history",
        "sessions_send",
        "sessions_spawn",
        "sessions_yield",
    ]


def test_each_step_filters_what_the_one_before_kept(render):
    # The messaging profile keeps five tools; tools.allow then keeps only those it names too.
    config = {"tools": {"profile": "messaging", "allow": ["message", "read"]}}
    assert tooling(render(config)) == ["message"]


def test_also_allow_widens_the_profile(render):
    assert tooling(render({"tools": {"profile": "minimal", "alsoAllow": ["cron"]}})) == ["cron", "session_status"]


def test_an_agent_has_its_own_profile_deny_and_model(render):
    config = {
        "agents": {
            "defaults": {"model": {"primary": "anthropic/claude-sonnet-4-6"}},
            "list": [
                {"id": "main"},
                {"id": "pager", "model": "openai/gpt-5.2", "tools": {"profile": "messaging", "deny": ["sessions_*"]}},
            ],
        },
        "tools": {"profile": "minimal"},
    }
    main = render(config)
    assert tooling(main) == ["session_status"] and runtime_model(main) == "anthropic/claude-sonnet-4-6"
    pager = render(config, "--agent", "pager")
    assert tooling(pager) == ["message", "session_status"] and runtime_model(pager) == "openai/gpt-5.2"


def test_the_run_s_tools_and_model_win(render, tmp_path):
    run = tmp_path / "run.yaml"
    run.write_text("tools: [read]\nmodel: openai/gpt-5.2\n", encoding="utf-8")
    out = render({"tools": {"profile": "coding"}, "agents": {"defaults": {"model": "x/y"}}}, "--run", run)
    assert tooling(out) == ["read"] and runtime_model(out) == "openai/gpt-5.2"


def test_a_bad_model_value_is_one_error_line(run_cli, make_workspace, tmp_path):
    path = tmp_path / "openclaw.json"
    path.write_text('{"agents": {"defaults": {"model": {"primary": "a/b", "backup": "c"}}}}', encoding="utf-8")
    code, _, err = run_cli("render", "--config", path, "--workspace", make_workspace({}))
    assert code == 2 and err.startswith("promptc: error: ") and "backup" in err and len(err.splitlines()) == 1
