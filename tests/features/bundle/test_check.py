"""`promptc bundle --check`: a stored bundle compared with a fresh build, its differences grouped
by variant and worded with the sections, files and cache tiers that changed."""

from __future__ import annotations

import shutil
from pathlib import Path

from promptc.emit import tokens

from support.bundles import CONFIG, MATRIX, TIER_FILES, read_manifest
from support.paths import EXAMPLES, REPO


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


def test_check_groups_variants_by_how_their_stable_part_changed_and_shows_what_changed(
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
    assert len(set(before.values())) == 2  # a main and a cron stable part
    (workspace / "SOUL.md").write_text(
        (workspace / "SOUL.md").read_text(encoding="utf-8") + "\nLikes rain.\n", encoding="utf-8"
    )
    code, out, _ = run_cli(*args, "--check", "--templates", edited_safety)
    assert code == 1
    # Both stable parts changed the same way (the safety section and SOUL.md): one group, one diff.
    groups = [line for line in out.splitlines() if line.startswith("stable part changed in")]
    assert groups == ["stable part changed in 6 variants (2 stable parts, each the same way; cache invalidated):"]
    assert "  agent=main session=main mode=full provider=anthropic channel=telegram chat=direct\n" in out
    assert "  ... and 3 more\n" in out
    assert "  sections changed: safety\n  files changed: SOUL.md\n  first change (section safety):\n" in out
    assert out.count("first change") == 1
    assert "    -- Do not seek power," in out and "    +- Do not seek influence," in out
    # The cron prompt has no MEMORY.md tier: the two stable parts' tiers are worded apart, counted.
    assert (
        "  cache tier 1 invalidated by section safety; cache tier 2 invalidated by section safety, SOUL.md (3 variants)\n"
        in out
    )
    assert "stable/" not in out and "recipes/" not in out  # the new and old files follow from the group
    assert len(out.splitlines()) < 40


def _with_trailing_spaces(workspace: Path, names: tuple[str, ...]) -> None:
    """Trailing spaces on every line of these files: the prompt holds them without (text is normalised)."""
    for name in names:
        lines = (workspace / name).read_text(encoding="utf-8").splitlines()
        (workspace / name).write_text("".join(f"{line}   \n" for line in lines), encoding="utf-8")


def test_a_template_edit_alone_names_only_its_section_and_shows_its_diff_once(
    run_cli, write_yaml, tmp_path, edited_safety
):
    workspace = Path(shutil.copytree(EXAMPLES / "workspace", tmp_path / "ws"))
    _with_trailing_spaces(workspace, ("TOOLS.md", "USER.md", "MEMORY.md"))
    config = write_yaml("config.yaml", CONFIG.replace(str(EXAMPLES / "workspace"), str(workspace)))
    args = ["bundle", "--matrix", write_yaml("matrix.yaml", MATRIX), "--config", config, "--run", EXAMPLES / "run.yaml"]
    args += ["--out", tmp_path / "b"]
    assert run_cli(*args)[0] == 0
    code, out, _ = run_cli(*args, "--check", "--templates", edited_safety)
    assert code == 1
    assert [line for line in out.splitlines() if "changed:" in line] == ["  sections changed: safety"]
    assert out.count("first change (section safety):") == 1
    assert out.count("+- Do not seek influence,") == 1
    [head] = [line for line in out.splitlines() if line.startswith("stable part changed in")]
    assert head == "stable part changed in 96 variants (20 stable parts, each the same way; cache invalidated):"
    assert "files changed" not in out


def test_a_volatile_template_edit_that_renders_the_same_is_a_recipe_change(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    runtime = REPO / "templates" / "sections" / "runtime.md.j2"
    edited = tmp_path / "templates" / runtime.name
    edited.parent.mkdir()
    edited.write_text(runtime.read_text(encoding="utf-8") + "{# a note for template authors #}\n", encoding="utf-8")
    code, text, _ = run_cli(*small_args, "--out", out, "--check", "--templates", edited.parent)
    assert code == 1
    assert (
        "the volatile part's recipe changed in 2 variants (texts unchanged: a template or input the turn reads):\n"
        in text
    )
    assert "stable part changed" not in text and "volatile part changed" not in text
    assert "recipes/" not in text  # the new and old recipe files follow from the group


def test_check_asks_for_a_rebuild_of_a_bundle_in_an_older_format(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / "manifest.json").write_text('{"format": 1, "token_method": "x", "variants": []}', encoding="utf-8")
    code, text, _ = run_cli(*small_args, "--out", out, "--check")
    assert code == 1
    assert "manifest.json: format 1, this promptc writes format 2: rebuild the bundle\n" in text
