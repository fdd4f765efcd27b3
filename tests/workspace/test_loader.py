"""Loading bootstrap files safely, and the workspace's setup state."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from promptc._lib.errors import WorkspaceError
from promptc.model.config import Budgets
from promptc.model.workspace import BOOTSTRAP_FILE_NAMES
from promptc.workspace import budget, state
from promptc.workspace import loader as workspace
from promptc.workspace.heartbeat import is_effectively_empty
from tests.factories import write_files


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


def test_lowercase_memory_is_used_only_when_uppercase_is_absent(tmp_path: Path) -> None:
    write_files(tmp_path, {"memory.md": "lower"})
    last = workspace.load(tmp_path)[-1]
    assert (last.name, last.content) == ("memory.md", "lower")


def test_uppercase_memory_wins_and_lowercase_never_appears(tmp_path: Path) -> None:
    write_files(tmp_path, {"MEMORY.md": "upper", "memory.md": "lower"})
    files = workspace.load(tmp_path)
    names = [file.name for file in files]
    assert names.count("MEMORY.md") == 1 and "memory.md" not in names
    assert by_name(files)["MEMORY.md"].content == "upper"


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
    # Issue 14.16: (device, inode, size, mtime) cannot tell these two versions apart; the loader
    # keeps nothing between loads (a Compiler keeps the whole stage and checks ctime and content).
    path = write_files(tmp_path, {"SOUL.md": "first"}) / "SOUL.md"
    stamp = path.stat().st_mtime_ns
    assert by_name(workspace.load(tmp_path))["SOUL.md"].content == "first"
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write("FIRST")
    os.utime(path, ns=(stamp, stamp))
    assert by_name(workspace.load(tmp_path))["SOUL.md"].content == "FIRST"


# --------------------------------------------------------------------------- setup state


def test_state_defaults_to_nothing_seeded(tmp_path: Path) -> None:
    found = state.read_state(tmp_path)
    assert found == state.WorkspaceState(1, None, None)
    assert not found.setup_complete


def test_init_seeds_every_default_file_and_records_the_seed_time(tmp_path: Path) -> None:
    written = state.init(tmp_path / "new", now="2026-01-02T03:04:05Z")
    assert written == [
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
    ]
    recorded = json.loads((tmp_path / "new" / ".promptc" / "workspace-state.json").read_text())
    assert recorded == {"version": 1, "bootstrapSeededAt": "2026-01-02T03:04:05Z"}
    for name in written:
        text = (tmp_path / "new" / name).read_text(encoding="utf-8")
        assert text.strip() and not text.startswith("---")


def test_init_never_overwrites_and_skips_bootstrap_in_a_used_workspace(tmp_path: Path) -> None:
    write_files(tmp_path, {"SOUL.md": "my own soul"})
    written = state.init(tmp_path, now="t1")
    assert "SOUL.md" not in written and "BOOTSTRAP.md" not in written
    assert "AGENTS.md" in written
    assert (tmp_path / "SOUL.md").read_text() == "my own soul"
    assert not (tmp_path / ".promptc").exists()


def test_second_init_writes_nothing_and_keeps_the_first_seed_time(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    assert state.init(tmp_path, now="t2") == []
    assert state.read_state(tmp_path).bootstrap_seeded_at == "t1"


def test_seeded_heartbeat_file_means_no_heartbeat_calls(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    assert is_effectively_empty((tmp_path / "HEARTBEAT.md").read_text(encoding="utf-8"))


def _compile(root: Path, now: str) -> None:
    """One compile through the public API, which records setup completion."""
    from promptc import Request, compile_prompt

    compile_prompt(Request(workspace=root, now=now))


def test_deleting_bootstrap_completes_setup_on_the_next_compile(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    _compile(tmp_path, now="2026-01-02T00:00:00Z")
    assert not state.read_state(tmp_path).setup_complete
    (tmp_path / "BOOTSTRAP.md").unlink()
    _compile(tmp_path, now="2026-01-03T00:00:00Z")
    assert state.read_state(tmp_path) == state.WorkspaceState(1, "t1", "2026-01-03T00:00:00Z")
    _compile(tmp_path, now="2026-01-04T00:00:00Z")  # later compiles keep the first completion time
    assert state.read_state(tmp_path).setup_completed_at == "2026-01-03T00:00:00Z"


def test_compiling_never_writes_into_a_workspace_that_was_not_seeded(tmp_path: Path) -> None:
    _compile(tmp_path, now="2026-01-01T00:00:00Z")
    assert not (tmp_path / ".promptc").exists()


def test_init_after_completed_setup_does_not_bring_bootstrap_back(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    (tmp_path / "BOOTSTRAP.md").unlink()
    _compile(tmp_path, now="2026-01-02T00:00:00Z")
    (tmp_path / "AGENTS.md").unlink()
    assert state.init(tmp_path, now="t3") == ["AGENTS.md"]


def test_invalid_state_file_is_an_error_with_its_location(tmp_path: Path) -> None:
    write_files(tmp_path, {".promptc/workspace-state.json": '{\n  "version": 1,,\n}'})
    with pytest.raises(WorkspaceError) as caught:
        state.read_state(tmp_path)
    location = caught.value.location
    assert location.path.endswith("workspace-state.json")
    assert (location.line, location.column) == (2, 16)


def test_state_field_of_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    write_files(tmp_path, {".promptc/workspace-state.json": '{"version": 1, "setupCompletedAt": 5}'})
    with pytest.raises(WorkspaceError, match="setupCompletedAt"):
        state.read_state(tmp_path)


def test_atomic_write_leaves_only_the_target(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "state.json"
    state.write_json_atomic(target, {"b": 1, "a": [1, 2]})
    assert json.loads(target.read_text()) == {"b": 1, "a": [1, 2]}
    assert [path.name for path in target.parent.iterdir()] == ["state.json"]


# --------------------------------------------------------------------------- unsafe state files (issue 14.5)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "outside"])
def test_a_state_file_that_is_not_a_small_regular_file_inside_is_refused(tmp_path: Path, kind: str) -> None:
    import threading

    root = tmp_path / "ws"
    (root / ".promptc").mkdir(parents=True)
    target = root / ".promptc" / "workspace-state.json"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        (tmp_path / "elsewhere.json").write_text('{"version": 1, "setupCompletedAt": "x"}')
        target.symlink_to(tmp_path / "elsewhere.json")
    found: list[BaseException] = []
    reader = threading.Thread(target=lambda: _catch(lambda: state.read_state(root), found), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "reading the state file blocked"
    assert len(found) == 1 and isinstance(found[0], WorkspaceError)
    expected = "not a regular file" if kind == "fifo" else "outside its root"  # /dev/zero is outside too
    assert expected in str(found[0]) and str(found[0]).startswith(str(target))


def test_a_state_file_linked_inside_the_workspace_is_read(tmp_path: Path) -> None:
    root = write_files(tmp_path / "ws", {"notes/state.json": '{"version": 1, "bootstrapSeededAt": "t0"}'})
    (root / ".promptc").mkdir()
    (root / ".promptc" / "workspace-state.json").symlink_to("../notes/state.json")
    assert state.read_state(root).bootstrap_seeded_at == "t0"


def _catch(action, found: list[BaseException]) -> None:
    try:
        action()
    except BaseException as error:
        found.append(error)
