"""The workspace an openclaw.json implies when no `--workspace` is given (inputs/openclaw.py,
layers.py), and `promptc context` saying which one was used and why."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home directory whose ~/.openclaw holds a default workspace and one for agent `pager`."""
    root = tmp_path / "home"
    for folder, text in (("workspace", "Main agent rules.\n"), ("workspace-pager", "Pager rules.\n")):
        (root / ".openclaw" / folder).mkdir(parents=True)
        (root / ".openclaw" / folder / "AGENTS.md").write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOME", str(root))
    return root


def openclaw_json(tmp_path, config: dict):
    path = tmp_path / "openclaw.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def workspace_line(report: str) -> str:
    return next(line for line in report.splitlines() if line.startswith("Workspace: "))


def test_without_a_workspace_key_the_default_agent_reads_openclaws_default(run_cli, home, tmp_path):
    path = openclaw_json(tmp_path, {"tools": {"profile": "minimal"}})
    code, out, err = run_cli("render", "--config", path)
    assert code == 0, err
    assert "Main agent rules." in out
    code, report, _ = run_cli("context", "--config", path)
    expected = f"Workspace: {home}/.openclaw/workspace (OpenClaw's default: the openclaw.json sets no workspace)"
    assert code == 0 and workspace_line(report) == expected


def test_another_agent_reads_its_own_default_workspace(run_cli, home, tmp_path):
    path = openclaw_json(tmp_path, {"agents": {"list": [{"id": "main"}, {"id": "pager"}]}})
    code, out, err = run_cli("render", "--config", path, "--agent", "pager")
    assert code == 0, err
    assert "Pager rules." in out and "Main agent rules." not in out


def test_a_defaults_workspace_holds_each_other_agent_in_a_folder_named_after_it(run_cli, tmp_path, make_workspace):
    shared = make_workspace({"AGENTS.md": "Shared.\n", "pager/AGENTS.md": "Pager folder.\n"}, name="agents")
    path = openclaw_json(
        tmp_path, {"agents": {"defaults": {"workspace": str(shared)}, "list": [{"id": "main"}, {"id": "pager"}]}}
    )
    code, report, _ = run_cli("context", "--config", path, "--agent", "pager")
    assert code == 0
    assert workspace_line(report) == (
        f"Workspace: {shared}/pager (agents.defaults.workspace in {path}, plus the agent id)"
    )
    _, main, _ = run_cli("render", "--config", path)
    assert "Shared." in main and "Pager folder." not in main


def test_an_agents_own_workspace_and_the_workspace_flag_win(run_cli, home, tmp_path, make_workspace):
    own = make_workspace({"AGENTS.md": "Own.\n"}, name="own")
    path = openclaw_json(tmp_path, {"agents": {"list": [{"id": "main", "workspace": str(own)}]}})
    _, report, _ = run_cli("context", "--config", path)
    assert workspace_line(report) == f"Workspace: {own} (agents.list[0].workspace in {path})"
    flag = make_workspace({"AGENTS.md": "Flag.\n"}, name="flag")
    _, report, _ = run_cli("context", "--config", path, "--workspace", flag)
    assert workspace_line(report) == f"Workspace: {flag} (from --workspace)"


def test_a_promptc_config_without_a_workspace_keeps_the_current_directory(run_cli, home, tmp_path, monkeypatch):
    config = tmp_path / "promptc.yaml"
    config.write_text("tools:\n  profile: minimal\n", encoding="utf-8")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    _, report, _ = run_cli("context", "--config", config)
    assert workspace_line(report) == f"Workspace: {here} (the built-in default: the current directory)"


@pytest.fixture
def openclaw_env(home, monkeypatch):
    """None of OpenClaw's own variables set, whatever the environment running the tests holds."""
    for name in ("OPENCLAW_WORKSPACE_DIR", "OPENCLAW_PROFILE", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_a_profile_picks_its_own_default_workspace(run_cli, home, openclaw_env, tmp_path):
    (home / ".openclaw" / "workspace-work").mkdir()
    (home / ".openclaw" / "workspace-work" / "AGENTS.md").write_text("Work profile rules.\n", encoding="utf-8")
    path = openclaw_json(tmp_path, {})
    openclaw_env.setenv("OPENCLAW_PROFILE", " work ")  # OpenClaw trims it
    code, out, err = run_cli("render", "--config", path)
    assert code == 0, err
    assert "Work profile rules." in out and "Main agent rules." not in out
    _, report, _ = run_cli("context", "--config", path)
    assert workspace_line(report) == (
        f"Workspace: {home}/.openclaw/workspace-work"
        " (OpenClaw's default for $OPENCLAW_PROFILE work: the openclaw.json sets no workspace)"
    )
    openclaw_env.setenv("OPENCLAW_PROFILE", "Default")  # the default profile is the plain folder
    _, out, _ = run_cli("render", "--config", path)
    assert "Main agent rules." in out


def test_workspace_dir_state_dir_and_home_variables(run_cli, home, openclaw_env, tmp_path, make_workspace):
    path = openclaw_json(tmp_path, {"agents": {"list": [{"id": "main"}, {"id": "pager"}]}})
    chosen = make_workspace({"AGENTS.md": "Chosen by variable.\n"}, name="chosen")
    openclaw_env.setenv("OPENCLAW_WORKSPACE_DIR", str(chosen))
    _, out, _ = run_cli("render", "--config", path)
    assert "Chosen by variable." in out
    _, report, _ = run_cli("context", "--config", path)
    assert (
        workspace_line(report) == f"Workspace: {chosen} ($OPENCLAW_WORKSPACE_DIR: the openclaw.json sets no workspace)"
    )
    # Another agent's default lives in the state directory, which OPENCLAW_WORKSPACE_DIR does not move.
    _, out, _ = run_cli("render", "--config", path, "--agent", "pager")
    assert "Pager rules." in out
    state = tmp_path / "state"
    (state / "workspace-pager").mkdir(parents=True)
    (state / "workspace-pager" / "AGENTS.md").write_text("Pager in the state dir.\n", encoding="utf-8")
    openclaw_env.setenv("OPENCLAW_STATE_DIR", str(state))
    _, out, _ = run_cli("render", "--config", path, "--agent", "pager")
    assert "Pager in the state dir." in out
    # OPENCLAW_HOME stands for the home directory OpenClaw's folders live in.
    other = tmp_path / "other-home"
    (other / ".openclaw" / "workspace").mkdir(parents=True)
    (other / ".openclaw" / "workspace" / "AGENTS.md").write_text("Other home.\n", encoding="utf-8")
    openclaw_env.delenv("OPENCLAW_WORKSPACE_DIR")
    openclaw_env.setenv("OPENCLAW_HOME", str(other))
    _, out, _ = run_cli("render", "--config", path)
    assert "Other home." in out


def test_a_warm_compiler_follows_a_changed_profile(home, openclaw_env, tmp_path):
    from promptc import Compiler, RunFacts

    (home / ".openclaw" / "workspace-work").mkdir()
    (home / ".openclaw" / "workspace-work" / "AGENTS.md").write_text("Work profile rules.\n", encoding="utf-8")
    compiler = Compiler(config_paths=[openclaw_json(tmp_path, {})])
    try:
        assert "Main agent rules." in compiler.compile(RunFacts()).text
        openclaw_env.setenv("OPENCLAW_PROFILE", "work")
        assert "Work profile rules." in compiler.compile(RunFacts()).text
    finally:
        compiler.close()
