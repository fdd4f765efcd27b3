"""`promptc snapshot gen|check`: committed scenarios, drift, stale files and hermetic generation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO
from guardrail_helpers import copy_safety, edited_safety_dir, replace_in

from promptc.features import snapshot

SNAPSHOTS = REPO / "snapshots"
SCENARIOS = sorted(p.parent.name for p in SNAPSHOTS.glob("*/scenario.yaml"))


@pytest.fixture
def snapshots(tmp_path) -> Path:
    """A private copy of the committed snapshots (scenarios, fixtures and outputs)."""
    return Path(shutil.copytree(SNAPSHOTS, tmp_path / "snapshots"))


@pytest.fixture
def edited_safety(tmp_path) -> Path:
    """A user template dir whose safety section differs from the built-in one by one word."""
    return edited_safety_dir(tmp_path / "templates")


def _outputs(root: Path) -> dict[str, bytes]:
    files = sorted(root.glob("*/*"))
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files if p.name in snapshot.OUTPUT_NAMES}


def test_the_committed_snapshots_are_current(run_cli):
    code, out, _ = run_cli("snapshot", "check", "--dir", SNAPSHOTS)
    assert code == 0
    assert out == f"promptc: snapshots are current ({len(SCENARIOS)} scenarios, {len(_outputs(SNAPSHOTS))} files)\n"


def _readme_scenario() -> str:
    """The scenario.yaml example in the README's Snapshots section, as written."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Snapshots") : readme.index("### Bundles")]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_a_scenario_added_as_the_readme_says_generates_and_checks(run_cli, snapshots):
    (snapshots / "my-scenario").mkdir()
    (snapshots / "my-scenario" / "scenario.yaml").write_text(_readme_scenario(), encoding="utf-8")
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, out
    assert f"{len(SCENARIOS) + 1} scenarios" in out
    stable = (snapshots / "my-scenario" / "stable.md").read_text(encoding="utf-8")
    assert "Your working directory is /srv/agents/household." in stable and "- exec:" in stable
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out
    assert out == f"promptc: snapshots are current ({len(SCENARIOS) + 1} scenarios, {len(_outputs(snapshots))} files)\n"


def test_one_word_in_a_stable_template_is_drift_in_stable_md(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "telegram-direct/stable.md: differs from the generated output; the STABLE part changed" in out
    assert "cache invalidation" in out
    assert "--- telegram-direct/stable.md (committed)" in out
    assert "-- Do not seek power, resources" in out
    assert "+- Do not seek influence, resources" in out
    # The safety section is stable and absent from none mode: those files cannot drift.
    assert "telegram-direct/volatile.md" not in out
    assert "none-mode/" not in out
    invalidated = [name for name in SCENARIOS if name != "none-mode"]
    assert out.splitlines()[-1] == f"cache invalidated: the stable part changed in {', '.join(invalidated)}"


def test_gen_accepts_the_drift_and_check_passes_again(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0
    assert "snapshots written" in out
    assert "Do not seek influence," in (snapshots / "cron-job" / "stable.md").read_text(encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0, out
    assert run_cli("snapshot", "check", "--dir", snapshots)[0] == 1  # the built-in text now differs


def test_an_extra_file_is_stale_and_gen_removes_only_it(run_cli, snapshots):
    (snapshots / "cron-job" / "notes.txt").write_text("scratch\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "cron-job/notes.txt: stale file" in out
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0 and "(0 updated, 1 stale removed)" in out
    assert not (snapshots / "cron-job" / "notes.txt").exists()
    assert (snapshots / "cron-job" / "scenario.yaml").is_file()
    assert (snapshots / "provider-contribution" / "contribution.yaml").is_file()
    assert run_cli("snapshot", "check", "--dir", snapshots)[0] == 0


def test_a_deleted_output_is_missing(run_cli, snapshots):
    (snapshots / "none-mode" / "volatile.md").unlink()
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "none-mode/volatile.md: missing" in out
    assert "0 differ, 1 missing, 0 stale" in out
    assert "cache invalidated" not in out
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0 and "(1 updated, 0 stale removed)" in out
    assert (snapshots / "none-mode" / "volatile.md").is_file()


def test_outputs_left_behind_by_a_removed_scenario_are_stale(run_cli, snapshots):
    (snapshots / "cron-job" / "scenario.yaml").unlink()
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "cron-job/stable.md: stale file" in out
    run_cli("snapshot", "gen", "--dir", snapshots)
    assert not (snapshots / "cron-job").exists()


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
    for text in _outputs(SNAPSHOTS).values():
        assert str(REPO).encode() not in text


def _hermetic_env(tz: str, lang: str, seed: str, home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(REPO),
        "TZ": tz,
        "LANG": lang,
        "LC_ALL": lang,
        "PYTHONHASHSEED": seed,
        "HOME": str(home),
    }


def test_generation_is_byte_identical_across_processes_and_matches_the_committed_files(tmp_path, snapshots):
    results = []
    for tz, lang, seed in (("Pacific/Kiritimati", "C.UTF-8", "1"), ("America/Adak", "POSIX", "4242")):
        for rel in _outputs(snapshots):
            (snapshots / rel).unlink()
        env = _hermetic_env(tz, lang, seed, tmp_path / "no-such-home")
        done = subprocess.run(
            [sys.executable, "-m", "promptc", "snapshot", "gen", "--dir", str(snapshots)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        results.append(_outputs(snapshots))
    assert results[0] == results[1]
    assert results[0] == _outputs(SNAPSHOTS)


def test_generation_never_looks_at_the_home_directory(monkeypatch, tmp_path, run_cli, snapshots):
    def refuse(*_args):
        raise AssertionError("snapshot generation looked at the home directory")

    monkeypatch.setenv("HOME", str(tmp_path / "no-such-home"))
    monkeypatch.setattr(Path, "home", classmethod(refuse))
    monkeypatch.setattr(os.path, "expanduser", refuse)
    for rel in _outputs(snapshots):
        (snapshots / rel).unlink()
    assert run_cli("snapshot", "gen", "--dir", snapshots)[0] == 0
    assert _outputs(snapshots) == _outputs(SNAPSHOTS)


def test_a_scenario_that_would_leak_the_clone_path_is_refused(run_cli, snapshots):
    path = snapshots / "none-mode" / "scenario.yaml"
    text = path.read_text(encoding="utf-8").replace("mode: none", "mode: full")
    path.write_text(text.replace("workspace: /srv/agents/household", "userTimezone: UTC"), encoding="utf-8")
    before = _outputs(snapshots)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 2
    assert "none-mode/scenario.yaml" in err and "would contain the local path" in err
    assert _outputs(snapshots) == before  # nothing written when one scenario fails


def test_an_unknown_scenario_key_names_its_line(run_cli, snapshots):
    path = snapshots / "cron-job" / "scenario.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "worskpace: elsewhere\n", encoding="utf-8")
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    line = len(path.read_text(encoding="utf-8").splitlines())
    assert f"cron-job/scenario.yaml:{line}:1: unknown scenario key 'worskpace' (did you mean 'workspace'?)" in err


def test_a_missing_snapshots_dir_is_bad_input(run_cli, tmp_path):
    code, _, err = run_cli("snapshot", "check", "--dir", tmp_path / "nowhere")
    assert code == 2
    assert "snapshots directory not found" in err


def test_snapshot_without_a_command_is_a_usage_error(run_cli):
    code, _, err = run_cli("snapshot")
    assert code == 2
    assert err == "promptc: error: choose a snapshot command: gen or check\n"


def _use_config_file(scenario: Path, extra: dict) -> None:
    """Move a scenario's inline config into config.yaml beside it, with `extra` keys added."""
    data = yaml.safe_load((scenario / "scenario.yaml").read_text(encoding="utf-8"))
    (scenario / "config.yaml").write_text(yaml.safe_dump({**data.pop("config"), **extra}), encoding="utf-8")
    (scenario / "scenario.yaml").write_text(yaml.safe_dump({**data, "config": "config.yaml"}), encoding="utf-8")


def test_dirs_named_by_a_scenario_config_file_are_inputs_never_stale(run_cli, snapshots):
    scenario = snapshots / "cron-job"
    section = copy_safety(scenario / "sections")
    replace_in(section, "Do not seek power,", "Do not seek influence,")
    (scenario / "extra-skills").mkdir()
    (scenario / "extra-skills" / "README.md").write_text("skills go here\n", encoding="utf-8")
    extra = {"prompt": {"templateDirs": ["sections"]}, "skills": {"load": {"extraDirs": ["extra-skills"]}}}
    _use_config_file(scenario, extra)
    code, out, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, err
    assert "0 stale removed" in out
    assert section.is_file() and (scenario / "extra-skills" / "README.md").is_file()
    assert "Do not seek influence," in (scenario / "stable.md").read_text(encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out


def test_inline_config_paths_resolve_against_the_scenario_dir_not_the_cwd(run_cli, snapshots, tmp_path, monkeypatch):
    scenario = snapshots / "cron-job"
    replace_in(copy_safety(scenario / "sections"), "Do not seek power,", "Do not seek influence,")
    copy_safety(tmp_path / "sections")  # what `sections` would mean relative to the cwd
    tools = "  tools:\n    experimental:"
    replace_in(scenario / "scenario.yaml", tools, "  prompt:\n    templateDirs: [sections]\n" + tools)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, err
    assert "Do not seek influence," in (scenario / "stable.md").read_text(encoding="utf-8")
    assert run_cli("snapshot", "check", "--dir", snapshots)[0] == 0


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_an_inline_config_error_names_its_line_in_scenario_yaml(run_cli, snapshots):
    path = snapshots / "cron-job" / "scenario.yaml"
    replace_in(path, "planTool: true", "planTool: maybe")
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    assert f"cron-job/scenario.yaml:{_line_of(path, 'planTool')}:" in err
    assert "tools.experimental.planTool" in err and "--set" not in err


def test_a_home_relative_path_in_a_scenario_is_refused(run_cli, snapshots, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = snapshots / "webchat-control-ui" / "scenario.yaml"
    replace_in(path, "docsPath: /srv/docs/runtime", "docsPath: ~/docs")
    before = _outputs(snapshots)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 2
    assert f"webchat-control-ui/scenario.yaml:{_line_of(path, 'docsPath')}:" in err
    assert "'~/docs': a scenario may not use '~' paths" in err
    assert _outputs(snapshots) == before


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


def test_a_drifted_stable_part_names_the_cache_tier_and_the_file_behind_it(run_cli, snapshots):
    user = snapshots / "_fixtures" / "household" / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Prefers tea after six.\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    lines = out.splitlines()
    assert (
        "telegram-direct/stable.md: cache tier 2 invalidated by USER.md; cache tier 3 invalidated by USER.md (in an earlier tier)"
        in lines
    )


def test_a_template_change_names_the_section_in_the_first_tier(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 1
    assert "cron-job/stable.md: cache tier 1 invalidated by section safety;" in out
