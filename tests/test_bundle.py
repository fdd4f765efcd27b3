"""`promptc bundle`: every matrix variant in the manifest, stable parts stored once by hash."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import EXAMPLES
from guardrail_helpers import edited_safety_dir

from promptc.emit import tokens

AGENTS = ["main", "helper", "scout", "scribe"]
SESSIONS = ["main", "subagent", "cron", "heartbeat"]
PROVIDERS = ["anthropic", "openai"]
CHANNELS = ["telegram", "discord", "webchat"]

CONFIG = f"""
agents:
  defaults:
    workspace: {EXAMPLES / "workspace"}
    heartbeat: {{enabled: true}}
  list:
    - id: main
    - id: helper
    - id: scout
      subagents: {{delegationMode: prefer}}
    - id: scribe
      userTimezone: Europe/Lisbon
"""

MATRIX = """
agents: [main, helper, scout, scribe]
sessions: [main, subagent, cron, heartbeat]
providers:
  - {provider: anthropic, model: anthropic/claude-sonnet-4-5}
  - {provider: openai, model: openai/gpt-5.5}
channels:
  - {channel: telegram, chat_type: direct}
  - {channel: discord, chat_type: group}
  - webchat
"""


@pytest.fixture
def bundle_args(tmp_path, write_yaml):
    """`promptc bundle` arguments for the 96-variant matrix over the example workspace."""
    config, matrix = write_yaml("config.yaml", CONFIG), write_yaml("matrix.yaml", MATRIX)
    return [
        "bundle",
        "--matrix",
        matrix,
        "--config",
        config,
        "--run",
        EXAMPLES / "run.yaml",
        "--out",
        tmp_path / "bundle",
    ]


@pytest.fixture
def small_args(tmp_path, write_yaml):
    """`promptc bundle` arguments for a two-variant matrix, without --out."""
    matrix = write_yaml("matrix.yaml", "sessions: [main, cron]\n")
    return ["bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace"]


@pytest.fixture
def edited_safety(tmp_path) -> Path:
    """A user template dir whose safety section differs from the built-in one by one word."""
    return edited_safety_dir(tmp_path / "templates")


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def test_every_variant_of_the_matrix_is_in_the_manifest(run_cli, bundle_args, tmp_path):
    code, out, _ = run_cli(*bundle_args)
    assert code == 0, out
    rows = _manifest(tmp_path / "bundle")["variants"]
    assert len(rows) == 96
    assert [(r["agent"], r["session"], r["provider"], r["channel"]) for r in rows] == list(
        itertools.product(AGENTS, SESSIONS, PROVIDERS, CHANNELS)
    )
    assert {(r["session"], r["mode"]) for r in rows} == {
        ("main", "full"),
        ("subagent", "minimal"),
        ("cron", "minimal"),
        ("heartbeat", "full"),
    }
    assert {r["model"] for r in rows if r["provider"] == "openai"} == {"openai/gpt-5.5"}
    assert {r["chat_type"] for r in rows if r["channel"] == "discord"} == {"group"}


def test_stable_parts_are_stored_once_and_named_by_their_hash(run_cli, bundle_args, tmp_path):
    run_cli(*bundle_args)
    out = tmp_path / "bundle"
    rows = _manifest(out)["variants"]
    stored = {p.name: p.read_bytes() for p in (out / "stable").iterdir()}
    assert set(stored) == {f"{r['stable_sha256']}.md" for r in rows}
    for row in rows:
        text = stored[f"{row['stable_sha256']}.md"]
        assert hashlib.sha256(text).hexdigest() == row["stable_sha256"]
        assert len(text.decode("utf-8")) == row["stable_chars"]
    # The channel is volatile: outside group chats the channels of one agent/session/provider
    # share a prefix. A group chat is a stable variant of its own where MEMORY.md would be
    # injected (main and heartbeat runs), since MEMORY.md stays out of groups by default.
    for key, group in itertools.groupby(rows, key=lambda r: (r["agent"], r["session"], r["provider"])):
        group = list(group)
        private = {r["stable_sha256"] for r in group if r["chat_type"] != "group"}
        in_group = {r["stable_sha256"] for r in group if r["chat_type"] == "group"}
        assert len(private) == 1, key
        assert (in_group == private) == (key[1] in ("subagent", "cron")), key
        assert len({r["volatile_sha256"] for r in group}) == 3, key
    assert len(stored) < 96


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


def test_a_directory_that_is_not_a_bundle_is_never_replaced(run_cli, bundle_args, tmp_path):
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run_cli(*bundle_args)
    assert code == 2
    assert "not a promptc bundle (it holds 'notes.txt', which a bundle never does)" in err
    assert (tmp_path / "bundle" / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_check_without_a_bundle_is_a_finding(run_cli, bundle_args):
    code, out, _ = run_cli(*bundle_args, "--check")
    assert code == 1
    assert "manifest.json: missing" in out


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ("agents: [main]\nsesions: [cron]\n", "matrix.yaml:2:1: unknown matrix key 'sesions'"),
        ("providers:\n  - {model: openai/gpt-5.5}\n", "matrix.yaml:2:5: a mapping entry here must set 'provider'"),
        ("sessions: [main, nightly]\n", "matrix.yaml:1:18: session: expected one of main, subagent, cron, heartbeat"),
        ("channels: [telegram, telegram]\n", "two variants are identical"),
        ("channels: []\n", "matrix.yaml:1:1: 'channels' must be a non-empty list"),
    ],
)
def test_a_bad_matrix_is_bad_input(run_cli, write_yaml, tmp_path, matrix, message):
    code, _, err = run_cli(
        "bundle",
        "--matrix",
        write_yaml("matrix.yaml", matrix),
        "--workspace",
        EXAMPLES / "workspace",
        "--out",
        tmp_path / "bundle",
    )
    assert code == 2
    assert message in err
    assert not (tmp_path / "bundle").exists()


def test_an_absent_axis_keeps_the_base_run_fact(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "sessions: [main, cron]\n")
    code, _, _ = run_cli(
        "bundle",
        "--matrix",
        matrix,
        "--run",
        EXAMPLES / "run.yaml",
        "--workspace",
        EXAMPLES / "workspace",
        "--out",
        tmp_path / "b",
    )
    assert code == 0
    rows = _manifest(tmp_path / "b")["variants"]
    assert [(r["session"], r["mode"], r["channel"], r["provider"]) for r in rows] == [
        ("main", "full", "telegram", "anthropic"),
        ("cron", "minimal", "telegram", "anthropic"),
    ]


def test_a_modes_axis_overrides_the_session_default(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "sessions: [subagent]\nmodes: [full, none]\n")
    code, _, _ = run_cli("bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b")
    assert code == 0
    rows = _manifest(tmp_path / "b")["variants"]
    assert [(r["session"], r["mode"]) for r in rows] == [("subagent", "full"), ("subagent", "none")]
    none_text = (tmp_path / "b" / "stable" / f"{rows[1]['stable_sha256']}.md").read_text(encoding="utf-8")
    assert (
        none_text
        == "You are a personal AI assistant; the OpenClaw agent runtime hosts you and carries out your tool calls."
    )


def test_run_fact_flags_change_the_base_of_every_variant(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "agents: [main]\n")
    code, _, _ = run_cli(
        "bundle",
        "--matrix",
        matrix,
        "--run",
        EXAMPLES / "run.yaml",
        "--channel",
        "discord",
        "--chat-type",
        "group",
        "--workspace",
        EXAMPLES / "workspace",
        "--out",
        tmp_path / "b",
    )
    assert code == 0
    [row] = _manifest(tmp_path / "b")["variants"]
    assert (row["channel"], row["chat_type"], row["provider"]) == ("discord", "group", "anthropic")


def _files(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_a_failed_swap_puts_the_old_bundle_back(run_cli, small_args, edited_safety, tmp_path, monkeypatch):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    before = _files(out)
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
    assert _files(out) == before
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
    assert any(b"Do not seek influence," in text for text in _files(real).values())
    assert _leftovers(tmp_path) == []


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


# --------------------------------------------------------------------------- only a bundle is replaced (issue 14 item 1)


def test_a_directory_with_someone_elses_manifest_is_never_replaced(run_cli, small_args, tmp_path):
    extension = tmp_path / "extension"
    extension.mkdir()
    (extension / "manifest.json").write_text('{"manifest_version": 3, "name": "mine"}', encoding="utf-8")
    code, _, err = run_cli(*small_args, "--out", extension)
    assert code == 2 and err.count("\n") == 1
    assert "not a promptc bundle (no .promptc-bundle marker); refusing to replace it" in err
    assert [p.name for p in extension.iterdir()] == ["manifest.json"]
    assert json.loads((extension / "manifest.json").read_text(encoding="utf-8"))["name"] == "mine"


def test_a_bundle_holds_the_marker_and_a_rebuild_replaces_it(run_cli, small_args, edited_safety, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == [".promptc-bundle", "manifest.json", "stable"]
    code, _, err = run_cli(*small_args, "--out", out, "--templates", edited_safety)
    assert code == 0, err
    assert any(b"Do not seek influence," in text for text in _files(out).values())


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
    before = _files(out)
    code, text, err = run_cli(*small_args, "--out", out)
    assert (code, text) == (2, "")
    assert (
        err
        == f"promptc: error: {out}: not a promptc bundle (it holds {named!r}, which a bundle never does); refusing to replace it\n"
    )
    assert _files(out) == before  # the old bundle, the user's file included, untouched


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


def test_a_bundle_written_before_the_marker_existed_is_still_replaced(run_cli, small_args, tmp_path):
    out = tmp_path / "b"
    assert run_cli(*small_args, "--out", out)[0] == 0
    (out / ".promptc-bundle").unlink()  # what a bundle looked like before the marker
    code, _, err = run_cli(*small_args, "--out", out)
    assert code == 0, err
    assert (out / ".promptc-bundle").is_file()


def test_worker_processes_build_the_same_bundle_byte_for_byte(run_cli, bundle_args, tmp_path, monkeypatch):
    from promptc.warm import batch

    serial = [*bundle_args[:-1], tmp_path / "serial"]
    assert run_cli(*serial, "--jobs", "1")[0] == 0
    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 1)  # the 96 variants would fit one worker
    code, out, _ = run_cli(*bundle_args[:-1], tmp_path / "parallel", "--jobs", "3")
    assert code == 0 and "96 variants" in out
    assert _files(tmp_path / "parallel") == _files(tmp_path / "serial")


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_whole_number(run_cli, bundle_args, jobs):
    code, _, err = run_cli(*bundle_args, "--jobs", jobs)
    assert code == 2 and "--jobs" in err and "a whole number of at least 1" in err


TIER_FILES = {
    "AGENTS.md": "# Rules\n",
    "SOUL.md": "# Persona\n\nYou are Wren, calm and brief.\n",
    "USER.md": "# User\n",
    "MEMORY.md": "# Memory\n\n- A note.\n",
}


def test_the_manifest_has_every_variant_s_cache_tiers(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(TIER_FILES)
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main]\nchat_types: [direct, group]\n", encoding="utf-8")
    assert run_cli("bundle", "--matrix", matrix, "--out", tmp_path / "b", "--workspace", workspace)[0] == 0
    direct, group = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))["variants"]
    stable = (tmp_path / "b" / "stable" / f"{direct['stable_sha256']}.md").read_text(encoding="utf-8")
    assert sum(t["chars"] for t in direct["tiers"]) == len(stable) + 2
    assert [u["name"] for u in direct["tiers"][2]["units"]] == ["file:MEMORY.md", "section:silent_replies"]
    assert [t["key"] for t in group["tiers"][:2]] == [t["key"] for t in direct["tiers"][:2]]
    assert group["tiers"][2]["key"] != direct["tiers"][2]["key"]  # MEMORY.md stays out of groups


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


# --------------------------------------------------------------------------- issue 9: a check that reads


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
    before = {r["session"]: r["stable_sha256"] for r in _manifest(tmp_path / "b")["variants"]}
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


def test_a_variant_id_names_each_set_fact():
    from promptc.features import bundle

    key = ("main", "main", "full", "anthropic", "anthropic/claude-sonnet-4-5", "telegram", "direct")
    assert (
        bundle.variant_id(key, with_model=False)
        == "agent=main session=main mode=full provider=anthropic channel=telegram chat=direct"
    )
    assert "model=anthropic/claude-sonnet-4-5 channel=telegram" in bundle.variant_id(key)
    assert (
        bundle.variant_id(("main", "cron", "minimal", None, None, None, None)) == "agent=main session=cron mode=minimal"
    )
