"""The bundle directory (features/bundle/store.py): written whole and swapped in atomically, stable
files no variant uses removed, and a directory replaced only when it is a bundle promptc wrote."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from support.bundles import (
    bundle_files,
    read_manifest,
)


def test_a_rebuild_removes_stable_files_no_variant_uses(run_cli, bundle_args, edited_safety, tmp_path):
    run_cli(*bundle_args, "--templates", edited_safety)
    out = tmp_path / "bundle"
    edited = {p.name for p in (out / "stable").iterdir()}
    code, message, _ = run_cli(*bundle_args)
    assert code == 0
    current = {p.name for p in (out / "stable").iterdir()}
    assert current.isdisjoint(edited)  # safety is in every full and minimal prompt
    assert f"({len(edited)} stale removed)" in message
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".bundle")) == []


def test_a_directory_that_is_not_a_bundle_is_never_replaced(run_cli, bundle_args, tmp_path):
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run_cli(*bundle_args)
    assert code == 2
    assert "not a promptc bundle (it holds 'notes.txt', which a bundle never does)" in err
    assert (tmp_path / "bundle" / "notes.txt").read_text(encoding="utf-8") == "mine"


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_a_failed_swap_puts_the_old_bundle_back(run_cli, small_args, edited_safety, tmp_path, monkeypatch):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    before = bundle_files(out)
    real_rename, calls = os.rename, []

    def second_call_fails(src, dst):
        calls.append(src)
        if len(calls) == 2:  # the new bundle moving into place
            raise OSError(28, "No space left on device", str(src))
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", second_call_fails)
    code, _, err = run_cli(*small_args, "--out", out, "--templates", edited_safety)
    assert code == 2
    assert err.startswith(f"promptc: error: {out}: cannot write the bundle: No space left on device")
    assert err.count("\n") == 1
    assert bundle_files(out) == before
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("/dev/null/x", "/dev/null/x: cannot create the bundle: /dev/null is not a directory"),
        (".", ".: --out must not be the current directory or one of its parents"),
    ],
)
def test_an_unusable_out_is_a_one_line_error(run_cli, small_args, tmp_path, monkeypatch, out, message):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2
    assert err == f"promptc: error: {message}\n"
    assert list(empty.iterdir()) == []


def test_a_symlinked_out_replaces_the_directory_it_points_to(run_cli, small_args, edited_safety, tmp_path):
    real, link = tmp_path / "real", tmp_path / "link"
    assert run_cli(*small_args, "--out", real)[0] == 0
    link.symlink_to(real, target_is_directory=True)
    code, _, err = run_cli(*small_args, "--out", link, "--templates", edited_safety)
    assert code == 0, err
    assert link.is_symlink() and link.resolve() == real
    assert any(b"Do not seek influence," in text for text in bundle_files(real).values())
    assert _leftovers(tmp_path) == []


# --------------------------------------------------------------------------- only a bundle is replaced


def test_a_directory_with_someone_elses_manifest_is_never_replaced(run_cli, small_args, tmp_path):
    extension = tmp_path / "extension"
    extension.mkdir()
    (extension / "manifest.json").write_text('{"manifest_version": 3, "name": "mine"}', encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", extension)
    assert code == 2 and err.count("\n") == 1
    assert "not a promptc bundle (no .promptc-bundle marker); refusing to replace it" in err
    assert [p.name for p in extension.iterdir()] == ["manifest.json"]
    assert read_manifest(extension)["name"] == "mine"


def test_a_bundle_holds_the_marker_and_a_rebuild_replaces_it(run_cli, small_args, edited_safety, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == [".promptc-bundle", "manifest.json", "recipes", "stable"]
    code, _, err = run_cli(*small_args, "--out", out, "--templates", edited_safety)
    assert code == 0, err
    assert any(b"Do not seek influence," in text for text in bundle_files(out).values())


def test_a_file_added_to_a_bundle_stops_a_rebuild_from_deleting_it(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / "README.txt").write_text("notes", encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and "it holds 'README.txt', which a bundle never does" in err
    assert (out / "README.txt").read_text(encoding="utf-8") == "notes"


@pytest.mark.parametrize(
    "added, named",
    [
        ("stable/extra.txt", "stable/extra.txt"),
        ("stable/sub/keep", "stable/sub/keep"),
        ("stable/" + "0" * 64 + ".md", "stable/" + "0" * 64 + ".md"),  # looks like ours, but no variant uses it
        ("stable/deep/er/still.md", "stable/deep/er/still.md"),
    ],
)
def test_a_file_added_anywhere_inside_a_bundle_stops_a_rebuild_from_deleting_it(
    run_cli, small_args, tmp_path, added, named
):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / added).parent.mkdir(parents=True, exist_ok=True)
    (out / added).write_text("mine", encoding="utf-8")
    before = bundle_files(out)
    code, text, err = run_cli(*small_args, "--out", out)
    assert (code, text) == (2, "promptc: bundle: 2 variants (2 sessions), one process\n")  # the estimate, then nothing
    assert (
        err
        == f"promptc: error: {out}: not a promptc bundle (it holds {named!r}, which a bundle never does); refusing to replace it\n"
    )
    assert bundle_files(out) == before  # the old bundle, the user's file included, untouched


def test_a_link_in_place_of_a_stable_file_stops_a_rebuild(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    stable = min((out / "stable").iterdir())
    (tmp_path / "precious.md").write_bytes(stable.read_bytes())
    stable.unlink()
    stable.symlink_to(tmp_path / "precious.md")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and f"it holds 'stable/{stable.name}'" in err
    assert stable.is_symlink() and (tmp_path / "precious.md").is_file()


def test_a_bundle_with_an_unreadable_manifest_is_not_replaced_over_its_stable_files(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / "manifest.json").write_text("[" * 100_000, encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and "its manifest.json cannot be read, so the files in stable/ promptc wrote are unknown" in err
    assert "internal error" not in err and any((out / "stable").iterdir())


def test_a_legacy_bundle_without_the_marker_is_still_replaced(run_cli, small_args, tmp_path):
    # A bundle from before the marker (format 1): its manifest has exactly these keys.
    out = tmp_path / "b"
    text = "a stable part"
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (out / "stable").mkdir(parents=True)
    (out / "stable" / f"{sha}.md").write_text(text, encoding="utf-8")
    legacy = {"format": 1, "token_method": "o200k_base", "variants": [{"stable_sha256": sha}]}
    (out / "manifest.json").write_text(json.dumps(legacy), encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 0, err
    assert (out / ".promptc-bundle").is_file() and read_manifest(out)["format_version"] == 2
    assert not (out / "stable" / f"{sha}.md").exists()


def test_a_format_2_manifest_without_the_marker_is_not_a_legacy_bundle(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / ".promptc-bundle").unlink()
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and "not a promptc bundle (no .promptc-bundle marker); refusing to replace it" in err
    assert (out / "manifest.json").is_file()


def test_a_file_added_to_the_recipes_stops_a_rebuild_from_deleting_it(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / "recipes" / "notes.json").write_text("{}", encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 2 and "it holds 'recipes/notes.json', which a bundle never does" in err
    assert (out / "recipes" / "notes.json").read_text(encoding="utf-8") == "{}"
