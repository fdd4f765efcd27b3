"""A scenario's expected files (features/snapshot/outputs.py): the prompt's parts and surfaces, the
configured workspace shown instead of the local clone, and any local path left in them refused."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.guardrails import replace_in, snapshot_outputs
from support.paths import REPO, SNAPSHOTS


def test_the_codex_harness_writes_its_developer_and_turn_surfaces():
    developer = (SNAPSHOTS / "codex-harness" / "developer.md").read_text(encoding="utf-8")
    stable = (SNAPSHOTS / "codex-harness" / "stable.md").read_text(encoding="utf-8")
    assert "## SOUL.md" in developer and "You are Juniper" in developer
    assert "You are Juniper" not in stable and "## AGENTS.md" not in stable
    assert "memory_search" in (SNAPSHOTS / "codex-harness" / "turn.md").read_text(encoding="utf-8")
    assert not (SNAPSHOTS / "telegram-direct" / "developer.md").exists()


def test_outputs_show_the_configured_workspace_not_the_clone():
    stable = (SNAPSHOTS / "telegram-direct" / "stable.md").read_text(encoding="utf-8")
    assert "Your working directory is /srv/agents/household." in stable
    for text in snapshot_outputs(SNAPSHOTS).values():
        assert str(REPO).encode() not in text


def test_a_scenario_that_would_leak_the_clone_path_is_refused(run_cli, snapshots):
    path = snapshots / "none-mode" / "scenario.yaml"
    text = path.read_text(encoding="utf-8").replace("mode: none", "mode: full")
    path.write_text(text.replace("workspace: /srv/agents/household", "userTimezone: UTC"), encoding="utf-8")
    before = snapshot_outputs(snapshots)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 2
    assert "none-mode/scenario.yaml" in err and "would contain the local path" in err
    assert snapshot_outputs(snapshots) == before  # nothing written when one scenario fails


def test_the_leak_guard_matches_whole_paths_not_prefixes(run_cli, tmp_path):
    snapshots = Path(shutil.copytree(SNAPSHOTS, tmp_path.resolve() / "snap"))
    archive = f"{snapshots}-archive/household"  # starts with the snapshots dir's path, is not inside it
    replace_in(
        snapshots / "telegram-direct" / "scenario.yaml", "workspace: /srv/agents/household", f"workspace: {archive}"
    )
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, err
    outputs = snapshots / "telegram-direct"
    assert f"Your working directory is {archive}." in (outputs / "stable.md").read_text(encoding="utf-8")
    assert "<snapshots>-archive" not in (outputs / "context.json").read_text(encoding="utf-8")
