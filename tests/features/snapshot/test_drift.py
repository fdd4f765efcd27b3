"""`promptc snapshot gen|check` (features/snapshot/drift.py): the committed snapshots current, drift
accepted by gen, missing and stale files, and generation that is hermetic and byte-identical."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.guardrails import SCENARIOS, snapshot_outputs
from support.paths import REPO, SNAPSHOTS


def test_the_committed_snapshots_are_current(run_cli):
    code, out, _ = run_cli("snapshot", "check", "--dir", SNAPSHOTS)
    assert code == 0
    assert (
        out
        == f"promptc: snapshots are current ({len(SCENARIOS)} scenarios, {len(snapshot_outputs(SNAPSHOTS))} files)\n"
    )


def _documented_scenario() -> str:
    """The scenario.yaml example of the getting-started guide, as written."""
    guide = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    return guide.split("**`mysnapshots/direct/scenario.yaml`**\n\n```yaml\n", 1)[1].split("```", 1)[0]


def test_a_scenario_added_as_the_docs_say_generates_and_checks(run_cli, snapshots):
    shutil.copytree(REPO / "examples", snapshots.parent / "examples")  # the guide's scenario reads ../../examples
    (snapshots / "my-scenario").mkdir()
    (snapshots / "my-scenario" / "scenario.yaml").write_text(_documented_scenario(), encoding="utf-8")
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, out
    assert f"{len(SCENARIOS) + 1} scenarios" in out
    stable = (snapshots / "my-scenario" / "stable.md").read_text(encoding="utf-8")
    assert "Your working directory is /srv/agents/example." in stable and "- exec:" in stable
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out
    assert (
        out
        == f"promptc: snapshots are current ({len(SCENARIOS) + 1} scenarios, {len(snapshot_outputs(snapshots))} files)\n"
    )


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
        for rel in snapshot_outputs(snapshots):
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
        results.append(snapshot_outputs(snapshots))
    assert results[0] == results[1]
    assert results[0] == snapshot_outputs(SNAPSHOTS)


def test_generation_never_looks_at_the_home_directory(monkeypatch, tmp_path, run_cli, snapshots):
    def refuse(*_args):
        raise AssertionError("snapshot generation looked at the home directory")

    monkeypatch.setenv("HOME", str(tmp_path / "no-such-home"))
    monkeypatch.setattr(Path, "home", classmethod(refuse))
    monkeypatch.setattr(os.path, "expanduser", refuse)
    for rel in snapshot_outputs(snapshots):
        (snapshots / rel).unlink()
    assert run_cli("snapshot", "gen", "--dir", snapshots)[0] == 0
    assert snapshot_outputs(snapshots) == snapshot_outputs(SNAPSHOTS)


def test_a_missing_snapshots_dir_is_bad_input(run_cli, tmp_path):
    code, _, err = run_cli("snapshot", "check", "--dir", tmp_path / "nowhere")
    assert code == 2
    assert "snapshots directory not found" in err


def test_snapshot_without_a_command_is_a_usage_error(run_cli):
    code, _, err = run_cli("snapshot")
    assert code == 2
    assert err == "promptc: error: choose a snapshot command: gen or check\n"
