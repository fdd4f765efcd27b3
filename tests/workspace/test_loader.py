"""Loading the bootstrap files safely (workspace/loader.py): fixed order and names, decoding,
guarded reads, and no stale reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptc._lib.errors import WorkspaceError
from promptc.model.config import Budgets
from promptc.model.workspace import BOOTSTRAP_FILE_NAMES
from promptc.workspace import budget
from promptc.workspace import loader as workspace

from support.factories import write_files


def by_name(files):
    return {file.name: file for file in files}


# --------------------------------------------------------------------------- order and names


def test_all_eight_files_come_back_in_fixed_order_with_missing_ones(tmp_path: Path) -> None:
    write_files(tmp_path, {"SOUL.md": "soul", "AGENTS.md": "agents"})
    files = workspace.load(tmp_path)
    assert tuple(file.name for file in files) == BOOTSTRAP_FILE_NAMES
    assert [file.status for file in files] == ["ok", "ok"] + ["missing"] * 6
    assert files[0].content == "agents" and files[1].content == "soul"
    assert files[2].content is None
    assert files[2].path == str(tmp_path / "TOOLS.md")


def test_lowercase_memory_is_never_loaded_and_an_absent_memory_says_so(tmp_path: Path) -> None:
    write_files(tmp_path, {"memory.md": "lower"})
    last = workspace.load(tmp_path)[-1]
    assert (last.name, last.status, last.content) == ("MEMORY.md", "missing", None)
    assert last.diagnostics == (
        "memory.md is not loaded: only MEMORY.md is (as in OpenClaw); rename it to MEMORY.md to inject it",
    )


def test_the_lowercase_memory_warning_reaches_the_prompt(run_cli, tmp_path: Path) -> None:
    write_files(tmp_path, {"AGENTS.md": "a\n", "memory.md": "remembered-words\n"})
    code, out, err = run_cli("render", "--workspace", tmp_path)
    assert code == 0 and "remembered-words" not in out
    assert "promptc: warning: memory.md is not loaded: only MEMORY.md is (as in OpenClaw)" in err


def test_uppercase_memory_wins_and_lowercase_never_appears(tmp_path: Path) -> None:
    write_files(tmp_path, {"MEMORY.md": "upper", "memory.md": "lower"})
    files = workspace.load(tmp_path)
    names = [file.name for file in files]
    assert names.count("MEMORY.md") == 1 and "memory.md" not in names
    assert by_name(files)["MEMORY.md"].content == "upper" and by_name(files)["MEMORY.md"].diagnostics == ()


def test_names_match_exactly(tmp_path: Path) -> None:
    write_files(tmp_path, {"agents.md": "lowercase name"})
    assert by_name(workspace.load(tmp_path))["AGENTS.md"].status == "missing"


def test_missing_workspace_is_an_error_naming_the_path(tmp_path: Path) -> None:
    absent = tmp_path / "nowhere"
    with pytest.raises(WorkspaceError) as caught:
        workspace.load(absent)
    assert str(absent) in str(caught.value)
    assert caught.value.location.path == str(absent)


# --------------------------------------------------------------------------- decoding


def test_bom_is_dropped_and_newlines_become_lf(tmp_path: Path) -> None:
    write_files(tmp_path, {"SOUL.md": b"\xef\xbb\xbfone\r\ntwo\rthree\n"})
    soul = by_name(workspace.load(tmp_path))["SOUL.md"]
    assert soul.content == "one\ntwo\nthree\n"
    assert soul.raw_chars == 14
    assert soul.diagnostics == ()


def test_invalid_utf8_becomes_replacement_characters_with_a_diagnostic(tmp_path: Path) -> None:
    write_files(tmp_path, {"USER.md": b"ok \xff\xfe end"})
    user = by_name(workspace.load(tmp_path))["USER.md"]
    assert user.status == "ok"
    assert user.content == "ok \ufffd\ufffd end"
    assert len(user.diagnostics) == 1
    assert "invalid UTF-8 at byte 3" in user.diagnostics[0]


def test_frontmatter_is_removed_and_kept_as_metadata(tmp_path: Path) -> None:
    text = "---\nsummary: persona\n---\n\nBe kind.\n"
    write_files(tmp_path, {"SOUL.md": text})
    soul = by_name(workspace.load(tmp_path))["SOUL.md"]
    assert soul.content == "Be kind.\n"
    assert soul.frontmatter == {"summary": "persona"}
    assert soul.raw_chars == len(text)


def test_unclosed_frontmatter_keeps_the_file_verbatim(tmp_path: Path) -> None:
    text = "---\nsummary: persona\n\nBe kind.\n"
    write_files(tmp_path, {"SOUL.md": text})
    soul = by_name(workspace.load(tmp_path))["SOUL.md"]
    assert soul.content == text
    assert soul.frontmatter is None
    assert any("never closed" in line for line in soul.diagnostics)


def test_template_syntax_stays_literal_through_load_and_budget(tmp_path: Path) -> None:
    write_files(tmp_path, {"SOUL.md": "{{ 7*7 }}\n{% raw %}\n"})
    files = workspace.load(tmp_path)
    assert by_name(files)["SOUL.md"].content == "{{ 7*7 }}\n{% raw %}\n"
    injected = by_name(budget.apply(files, Budgets()))["SOUL.md"]
    assert (injected.status, injected.text) == ("ok", "{{ 7*7 }}\n{% raw %}")


def test_empty_file_is_ok_and_empty(tmp_path: Path) -> None:
    write_files(tmp_path, {"BOOTSTRAP.md": b""})
    bootstrap = by_name(workspace.load(tmp_path))["BOOTSTRAP.md"]
    assert (bootstrap.status, bootstrap.content) == ("ok", "")


# --------------------------------------------------------------------------- guarded reads


def test_file_over_two_mib_is_skipped_as_too_large(tmp_path: Path) -> None:
    write_files(tmp_path, {"MEMORY.md": b"a" * (3 * 1024 * 1024)})
    memory = by_name(workspace.load(tmp_path))["MEMORY.md"]
    assert (memory.status, memory.reason, memory.content) == ("skipped", "too large", None)
    assert "3145728 bytes" in memory.diagnostics[0]


def test_file_of_exactly_two_mib_is_read(tmp_path: Path) -> None:
    write_files(tmp_path, {"MEMORY.md": b"a" * (2 * 1024 * 1024)})
    memory = by_name(workspace.load(tmp_path))["MEMORY.md"]
    assert memory.status == "ok" and memory.raw_chars == 2 * 1024 * 1024


def test_symlink_escaping_the_workspace_is_skipped(tmp_path: Path) -> None:
    secret = write_files(tmp_path / "outside", {"secret.md": "private"}) / "secret.md"
    root = write_files(tmp_path / "ws", {})
    (root / "USER.md").symlink_to(secret)
    user = by_name(workspace.load(root))["USER.md"]
    assert (user.status, user.reason, user.content) == ("skipped", "outside workspace", None)


def test_symlink_within_the_workspace_is_followed(tmp_path: Path) -> None:
    root = write_files(tmp_path, {"notes/user.md": "inside"})
    (root / "USER.md").symlink_to(root / "notes" / "user.md")
    assert by_name(workspace.load(root))["USER.md"].content == "inside"


def test_workspace_reached_through_a_symlink_still_reads_its_files(tmp_path: Path) -> None:
    real = write_files(tmp_path / "real", {"SOUL.md": "soul"})
    (tmp_path / "link").symlink_to(real)
    assert by_name(workspace.load(tmp_path / "link"))["SOUL.md"].content == "soul"


def test_directory_with_a_bootstrap_name_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").mkdir()
    soul = by_name(workspace.load(tmp_path))["SOUL.md"]
    assert (soul.status, soul.reason) == ("skipped", "not a regular file")


def test_dangling_symlink_inside_the_workspace_counts_as_missing(tmp_path: Path) -> None:
    (tmp_path / "TOOLS.md").symlink_to(tmp_path / "gone.md")
    assert by_name(workspace.load(tmp_path))["TOOLS.md"].status == "missing"


# --------------------------------------------------------------------------- no stale reads


def test_a_rewrite_at_the_same_size_with_its_mtime_restored_is_read_again(tmp_path: Path) -> None:
    # (device, inode, size, mtime) cannot tell these two versions apart; the loader
    # keeps nothing between loads (a Compiler keeps the whole stage and checks ctime and content).
    path = write_files(tmp_path, {"SOUL.md": "first"}) / "SOUL.md"
    stamp = path.stat().st_mtime_ns
    assert by_name(workspace.load(tmp_path))["SOUL.md"].content == "first"
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write("FIRST")
    os.utime(path, ns=(stamp, stamp))
    assert by_name(workspace.load(tmp_path))["SOUL.md"].content == "FIRST"
