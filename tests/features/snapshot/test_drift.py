"""`promptc snapshot gen|check` (features/snapshot/drift.py, ondisk.py): the committed snapshots
current, drift accepted by gen, missing and stale outputs, files of the user's never touched, no
write through a link, and generation that is hermetic and byte-identical."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.guardrails import SCENARIOS, expectations_in, replace_in, snapshot_outputs
from support.paths import REPO, SNAPSHOTS


def _current(root: Path) -> str:
    """What a clean check prints, counted from the files under `root`."""
    scenarios, files = len(list(root.glob("*/scenario.yaml"))), len(snapshot_outputs(root))
    return f"promptc: snapshots are current ({scenarios} scenarios, {files} files; {expectations_in(root)} expectations hold)\n"


def test_the_committed_snapshots_are_current(run_cli):
    code, out, _ = run_cli("snapshot", "check", "--dir", SNAPSHOTS)
    assert code == 0
    assert out == _current(SNAPSHOTS)
    assert expectations_in(SNAPSHOTS) > 50  # the committed scenarios say what they are for


def _docs_scenario() -> str:
    """The scenario.yaml example of the snapshots page, as written."""
    page = (REPO / "docs" / "snapshots.md").read_text(encoding="utf-8")
    return page.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_a_scenario_added_as_the_docs_say_generates_and_checks(run_cli, snapshots):
    (snapshots / "my-scenario").mkdir()
    (snapshots / "my-scenario" / "scenario.yaml").write_text(_docs_scenario(), encoding="utf-8")
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, out
    assert f"{len(SCENARIOS) + 1} scenarios" in out
    stable = (snapshots / "my-scenario" / "stable.md").read_text(encoding="utf-8")
    assert "Your working directory is /srv/agents/household." in stable and "- exec:" in stable
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out
    assert out == _current(snapshots)
    assert expectations_in(snapshots) > expectations_in(SNAPSHOTS)  # the example's expectations ran too


def test_gen_accepts_the_drift_and_check_passes_again(run_cli, snapshots, edited_safety):
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0
    assert "snapshots written" in out
    assert "Do not seek influence," in (snapshots / "cron-job" / "stable.md").read_text(encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0, out
    assert run_cli("snapshot", "check", "--dir", snapshots)[0] == 1  # the built-in text now differs


def test_files_of_the_users_in_a_scenario_dir_are_left_alone_and_named(run_cli, snapshots, edited_safety):
    scenario = snapshots / "cron-job"
    (scenario / "NOTES.md").write_text("why this scenario exists\n", encoding="utf-8")
    (scenario / "notes").mkdir()
    (scenario / "notes" / "draft.txt").write_text("a draft\n", encoding="utf-8")
    (scenario / "notes" / "stable.md").write_text("not an output: not beside scenario.yaml\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0
    assert (scenario / "NOTES.md").read_text(encoding="utf-8") == "why this scenario exists\n"
    assert (scenario / "notes" / "draft.txt").read_text(encoding="utf-8") == "a draft\n"
    assert (scenario / "notes" / "stable.md").is_file()
    assert "Do not seek influence," in (scenario / "stable.md").read_text(encoding="utf-8")
    assert "updated, 0 stale removed)" in out
    assert (
        "promptc: left alone (not written by promptc): cron-job/NOTES.md, cron-job/notes/draft.txt,"
        " cron-job/notes/stable.md\n" in out
    )
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", edited_safety)
    assert code == 0, out  # not promptc's files: not stale either


def test_a_stale_output_is_removed_by_name_and_nothing_else(run_cli, snapshots):
    scenario = snapshots / "cron-job"
    (scenario / "developer.md").write_text("left from when this was a codex scenario\n", encoding="utf-8")
    (scenario / "notes.txt").write_text("scratch\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "cron-job/developer.md: stale file" in out and "notes.txt" not in out
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0 and "(0 updated, 1 stale removed)" in out
    assert not (scenario / "developer.md").exists()
    assert (scenario / "notes.txt").read_text(encoding="utf-8") == "scratch\n"
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


def test_a_removed_scenarios_dir_with_files_of_the_users_keeps_them(run_cli, snapshots):
    (snapshots / "cron-job" / "scenario.yaml").unlink()
    (snapshots / "cron-job" / "NOTES.md").write_text("keep me\n", encoding="utf-8")
    code, out, _ = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0
    assert "(0 updated, 3 stale removed)" in out
    assert "left alone (not written by promptc): cron-job/NOTES.md" in out
    assert sorted(p.name for p in (snapshots / "cron-job").iterdir()) == ["NOTES.md"]


def test_gen_never_writes_through_a_linked_scenario_dir(run_cli, snapshots, tmp_path, edited_safety):
    elsewhere = tmp_path / "elsewhere"
    shutil.move(snapshots / "cron-job", elsewhere)
    (snapshots / "cron-job").symlink_to(elsewhere, target_is_directory=True)
    replace_in(
        elsewhere / "scenario.yaml", "workspace: ../_fixtures/household", f"workspace: {snapshots}/_fixtures/household"
    )
    before, outside = snapshot_outputs(snapshots), (elsewhere / "stable.md").read_bytes()
    code, out, err = run_cli("snapshot", "gen", "--dir", snapshots, "--templates", edited_safety)
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {snapshots}/cron-job/")
    assert "refusing to write or delete: " in err and "passes through a symlink (cron-job)" in err
    assert (elsewhere / "stable.md").read_bytes() == outside
    assert snapshot_outputs(snapshots) == before  # refused before the first write


def test_gen_never_deletes_through_a_linked_output(run_cli, snapshots, tmp_path):
    mine = tmp_path / "mine.md"
    mine.write_text("my own file\n", encoding="utf-8")
    (snapshots / "cron-job" / "turn.md").symlink_to(mine)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 2
    assert f"promptc: error: {snapshots}/cron-job/turn.md: refusing to write or delete:" in err
    assert mine.read_text(encoding="utf-8") == "my own file\n"
    assert (snapshots / "cron-job" / "turn.md").is_symlink()


def test_counts_are_written_in_the_singular_for_one(run_cli, tmp_path):
    root = tmp_path / "snapshots"
    shutil.copytree(SNAPSHOTS / "_fixtures", root / "_fixtures")
    (root / "solo").mkdir()
    text = (SNAPSHOTS / "none-mode" / "scenario.yaml").read_text(encoding="utf-8").split("\nexpect:\n")[0]
    (root / "solo" / "scenario.yaml").write_text(text + "\nexpect:\n  sections:\n    present: [identity]\n")
    assert run_cli("snapshot", "gen", "--dir", root)[1] == (
        "promptc: snapshots written: 1 scenario, 3 files (3 updated, 0 stale removed)\n"
    )
    assert run_cli("snapshot", "check", "--dir", root)[1] == (
        "promptc: snapshots are current (1 scenario, 3 files; 1 expectation holds)\n"
    )
    replace_in(root / "solo" / "scenario.yaml", "present: [identity]", "present: [safety]")
    code, out, _ = run_cli("snapshot", "check", "--dir", root)
    assert code == 1
    assert out.splitlines()[-1] == "snapshot expectations: 1 of 1 expectation failed in 1 scenario"


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
