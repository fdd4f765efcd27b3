"""`promptc bundle --check`: a stored bundle compared with a fresh build, its differences grouped
by variant and worded with the sections, files and cache tiers that changed."""

from __future__ import annotations

import shutil
from pathlib import Path

from promptc.emit import tokens

from support.bundles import TIER_FILES, read_manifest
from support.paths import EXAMPLES


def test_check_passes_on_a_fresh_bundle_and_fails_after_a_template_edit(run_cli, bundle_args, edited_safety):
    run_cli(*bundle_args)
    code, out, _ = run_cli(*bundle_args, "--check")
    assert code == 0
    assert "is current (96 variants" in out
    code, out, _ = run_cli(*bundle_args, "--check", "--templates", edited_safety)
    assert code == 1
    # The matrix varies the model with the provider, so the ids name it.
    assert (
        "  agent=main session=main mode=full provider=anthropic model=anthropic/claude-sonnet-4-5 channel=telegram chat=direct\n"
        in out
    )
    assert "cache invalidated" in out and "sections changed: safety\n" in out
    assert ": missing" not in out and ": stale" not in out  # each follows from a group above
    assert "is out of date" in out


def test_check_reports_a_tampered_and_an_extra_stable_file(run_cli, bundle_args, tmp_path):
    run_cli(*bundle_args)
    stable = tmp_path / "bundle" / "stable"
    victim = min(stable.iterdir())
    victim.write_text("tampered", encoding="utf-8")
    (stable / f"{'0' * 64}.md").write_text("left over", encoding="utf-8")
    code, out, _ = run_cli(*bundle_args, "--check")
    assert code == 1
    assert f"stable/{victim.name}: content does not match its name" in out
    assert f"stable/{'0' * 64}.md: stale" in out


def test_check_without_a_bundle_is_a_finding(run_cli, bundle_args):
    code, out, _ = run_cli(*bundle_args, "--check")
    assert code == 1
    assert "manifest.json: missing" in out


def test_check_passes_where_tokens_are_counted_another_way(run_cli, small_args, tmp_path, monkeypatch):
    out = tmp_path / "b"
    monkeypatch.setattr(
        tokens, "count", lambda text, encoding=None: len(text)
    )  # "exact" counts, as with the `tokens` extra
    assert run_cli(*small_args, "--out", out)[0] == 0
    monkeypatch.setattr(tokens, "count", lambda _text, encoding=None: None)  # the extra missing: estimates
    code, out_text, _ = run_cli(*small_args, "--out", out, "--check")
    assert code == 0, out_text
    assert "is current" in out_text


def test_directories_in_the_stable_dir_are_not_stable_files(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    run_cli(*small_args, "--out", out)
    victim = min((out / "stable").iterdir())
    victim.unlink()
    victim.mkdir()
    (out / "stable" / "notes.md").mkdir()
    code, text, _ = run_cli(*small_args, "--out", out, "--check")
    assert code == 1
    assert f"stable/{victim.name}: missing" in text
    assert "notes" not in text
    code, _, err = run_cli(*small_args, "--out", out)  # directories promptc did not make: kept
    assert code == 2 and f"it holds 'stable/{victim.name}/', which a bundle never does" in err
    victim.rmdir()
    (out / "stable" / "notes.md").rmdir()
    code, text, _ = run_cli(*small_args, "--out", out)
    assert code == 0
    assert "(0 stale removed)" in text


def test_check_says_which_cache_tier_an_edit_invalidated(run_cli, make_workspace, tmp_path):
    before = make_workspace(TIER_FILES)
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main]\nchat_types: [direct]\n", encoding="utf-8")
    bundle = tmp_path / "bundle"
    assert run_cli("bundle", "--matrix", matrix, "--out", bundle, "--workspace", before)[0] == 0
    (before / "SOUL.md").write_text("# Persona\n\nYou are Wren, warm and brief.\n", encoding="utf-8")
    code, out, err = run_cli("bundle", "--matrix", matrix, "--out", bundle, "--workspace", before, "--check")
    assert code == 1
    assert "cache tier 2 invalidated by SOUL.md; cache tier 3 invalidated by SOUL.md (in an earlier tier)" in out + err


def test_check_groups_variants_by_their_stable_change_and_shows_what_changed(
    run_cli, write_yaml, tmp_path, edited_safety
):
    workspace = Path(shutil.copytree(EXAMPLES / "workspace", tmp_path / "ws"))
    matrix = write_yaml("m.yaml", "sessions: [main, cron]\nchannels: [telegram, discord, webchat]\n")
    args = [
        "bundle",
        "--matrix",
        matrix,
        "--workspace",
        workspace,
        "--run",
        EXAMPLES / "run.yaml",
        "--out",
        tmp_path / "b",
    ]
    assert run_cli(*args)[0] == 0
    before = {r["session"]: r["stable_sha256"] for r in read_manifest(tmp_path / "b")["variants"]}
    (workspace / "SOUL.md").write_text(
        (workspace / "SOUL.md").read_text(encoding="utf-8") + "\nLikes rain.\n", encoding="utf-8"
    )
    code, out, _ = run_cli(*args, "--check", "--templates", edited_safety)
    assert code == 1
    groups = [line for line in out.splitlines() if line.startswith("stable part changed in")]
    assert len(groups) == 2  # one per distinct stable part, not one per channel
    main = out[out.index(f"({before['main'][:12]} in the bundle") :]
    main = main[: main.index("stable part changed in") if "stable part changed in" in main else len(main)]
    assert "  agent=main session=main mode=full provider=anthropic channel=telegram chat=direct\n" in main
    assert "  agent=main session=main mode=full provider=anthropic channel=webchat chat=direct\n" in main
    assert (
        "  sections changed: safety, project_context\n  files changed: SOUL.md\n  first change (section safety):\n"
        in main
    )
    assert "    -- Do not seek power," in main and "    +- Do not seek influence," in main
    assert "stable/" not in out  # the new and old stable files follow from the groups
    assert len(out.splitlines()) < 40
