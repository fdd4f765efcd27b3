"""Which cache tier two compiles do not share and why (features/cache/diff.py): the comparison, the
words every command uses, and `promptc cache diff` over run facts, workspaces and bundles."""

from __future__ import annotations

import json

import pytest

from promptc.features.cache import diff

from support.tiers import FILES, HEARTBEAT_FILES, HEARTBEATS_ON, REACH_TIERS


def entry(index, key, *units):
    return {"index": index, "key": key, "units": [{"name": n, "sha256": d, "chars": 1} for n, d in units]}


BEFORE = [
    entry(1, "k1", ("section:a", "a1"), ("file:AGENTS.md", "g1")),
    entry(2, "k2", ("file:USER.md", "u1")),
    entry(3, "k3", ("file:MEMORY.md", "m1")),
]


def test_an_edit_invalidates_its_tier_and_every_later_one_naming_the_file():
    after = [BEFORE[0], entry(2, "k2b", ("file:USER.md", "u2")), entry(3, "k3b", ("file:MEMORY.md", "m1"))]
    changes = diff.compare(BEFORE, after)
    assert [diff.describe(c) for c in changes] == [
        "cache tier 1 unchanged",
        "cache tier 2 invalidated by USER.md",
        "cache tier 3 invalidated by USER.md (in an earlier tier)",
    ]
    assert (
        diff.summary(changes)
        == "cache tier 2 invalidated by USER.md; cache tier 3 invalidated by USER.md (in an earlier tier)"
    )


def test_causes_accumulate_and_sections_are_named_as_sections():
    after = [
        entry(1, "k1b", ("section:a", "a2"), ("file:AGENTS.md", "g1")),
        BEFORE[1] | {"key": "k2b"},
        entry(3, "k3b", ("file:MEMORY.md", "m2")),
    ]
    changes = diff.compare(BEFORE, after)
    assert [c.causes for c in changes] == [("section:a",), ("section:a",), ("section:a", "file:MEMORY.md")]
    assert diff.describe(changes[2]) == "cache tier 3 invalidated by section a, MEMORY.md"


def test_a_removed_file_is_a_cause_in_the_tier_it_left():
    after = [BEFORE[0], BEFORE[1], entry(3, "k3b")]
    changes = diff.compare(BEFORE, after)
    assert [(c.changed, c.causes) for c in changes] == [(False, ()), (False, ()), (True, ("file:MEMORY.md",))]


def test_nothing_changed_is_said_once():
    assert diff.summary(diff.compare(BEFORE, BEFORE)) == "no cache tier invalidated"


# --------------------------------------------------------------------------- the command


@pytest.fixture
def workspaces(make_workspace):
    before = make_workspace(FILES, name="before")
    after = make_workspace({**FILES, "USER.md": "# User\n\nSam, who likes long answers.\n"}, name="after")
    return before, after


def test_cache_diff_of_two_workspaces_names_the_file_and_shows_its_diff(run_cli, workspaces):
    before, after = workspaces
    code, out, err = run_cli("cache", "diff", "--workspaces", before, after, "--chat-type", "direct")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0] == "cache tier 1 unchanged"
    assert lines[1] == "cache tier 2 invalidated by USER.md"
    assert "  --- USER.md (before)" in lines and "  +++ USER.md (after)" in lines
    assert "  -Sam, who likes short answers." in lines and "  +Sam, who likes long answers." in lines
    assert lines[-1] == "cache tier 3 invalidated by USER.md (in an earlier tier)"


def test_cache_diff_exits_0_when_no_tier_changed(run_cli, workspaces, write_yaml):
    before, _ = workspaces
    direct = write_yaml("direct.yaml", "channel: telegram\nchat_type: direct\n")
    other = write_yaml("other.yaml", "channel: discord\nchat_type: direct\nowners: ['+1']\n")
    code, out, _ = run_cli("cache", "diff", "--runs", direct, other, "--workspace", before)
    assert code == 0
    assert out.splitlines() == ["cache tier 1 unchanged", "cache tier 2 unchanged", "cache tier 3 unchanged"]


def test_cache_diff_of_two_run_files_names_the_section(run_cli, workspaces, write_yaml):
    before, _ = workspaces
    one = write_yaml("one.yaml", "chat_type: direct\ntools: [read]\n")
    two = write_yaml("two.yaml", "chat_type: direct\ntools: [read, exec]\n")
    code, out, _ = run_cli("cache", "diff", "--runs", one, two, "--workspace", before)
    assert code == 1
    assert out.splitlines()[0] == "cache tier 1 invalidated by section tooling"
    assert "  +++ section tooling (after)" in out.splitlines()


def test_cache_diff_compares_a_bundle_variant_with_the_current_templates(run_cli, workspaces, tmp_path):
    before, _ = workspaces
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main]\nchat_types: [direct]\n", encoding="utf-8")
    bundle = tmp_path / "bundle"
    code, _, err = run_cli("bundle", "--matrix", matrix, "--out", bundle, "--workspace", before)
    assert code == 0, err
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    assert [t["index"] for t in manifest["variants"][0]["tiers"]] == [1, 2, 3]
    code, out, _ = run_cli("cache", "diff", "--bundle", bundle, "--workspace", before, "--chat-type", "direct")
    assert (code, out.splitlines()) == (
        0,
        ["cache tier 1 unchanged", "cache tier 2 unchanged", "cache tier 3 unchanged"],
    )
    (before / "MEMORY.md").write_text("# Memory\n\n- Sam's sister is Jo.\n", encoding="utf-8")
    code, out, _ = run_cli("cache", "diff", "--bundle", bundle, "--workspace", before, "--chat-type", "direct")
    assert code == 1
    assert out.splitlines()[:2] == ["cache tier 1 unchanged", "cache tier 2 unchanged"]
    assert out.splitlines()[2] == "cache tier 3 invalidated by MEMORY.md"
    assert "  -- Sam's sister is Alex." in out.splitlines() and "  +- Sam's sister is Jo." in out.splitlines()


def test_cache_diff_needs_one_pair_and_a_bundle_with_the_variant(run_cli, workspaces, tmp_path):
    before, _ = workspaces
    code, _, err = run_cli("cache", "diff", "--workspace", before)
    assert code == 2 and "one of the arguments --runs --workspaces --bundle is required" in err
    code, _, err = run_cli("cache", "diff", "--bundle", tmp_path, "--workspace", before)
    assert (code, err) == (2, f"promptc: error: {tmp_path}: not a promptc bundle (no .promptc-bundle marker)\n")


def test_cache_diff_names_heartbeat_md_when_the_last_tier_reaches_it(run_cli, make_workspace, tmp_path):
    flags = ("--set", HEARTBEATS_ON, "--set", REACH_TIERS, "--chat-type", "direct")
    before = make_workspace(HEARTBEAT_FILES, name="before")
    after = make_workspace({**HEARTBEAT_FILES, "HEARTBEAT.md": "# Heartbeat\n\n- Water the plant.\n"}, name="after")
    code, out, _ = run_cli("cache", "diff", "--workspaces", before, after, *flags)
    lines = out.splitlines()
    assert code == 1 and lines[:2] == ["cache tier 1 unchanged", "cache tier 2 unchanged"]
    assert lines[2] == "cache tier 3 invalidated by HEARTBEAT.md (Dynamic Project Context)"
    assert "  +- Water the plant." in lines
    # A bundle keeps only stable parts: the verdict is the same, without a diff to show.
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main]\nchat_types: [direct]\n", encoding="utf-8")
    code, _, err = run_cli("bundle", "--matrix", matrix, "--out", tmp_path / "bundle", "--workspace", before, *flags)
    assert code == 0, err
    (before / "HEARTBEAT.md").write_text("# Heartbeat\n\n- Water the plant.\n", encoding="utf-8")
    code, out, _ = run_cli("cache", "diff", "--bundle", tmp_path / "bundle", "--workspace", before, *flags)
    assert code == 1 and out.splitlines()[2:] == [
        "cache tier 3 invalidated by HEARTBEAT.md (Dynamic Project Context)",
        "  (the bundle keeps no volatile text to compare with)",
    ]


# --------------------------------------------------------------------------- a cache is per model


def test_cache_diff_between_runs_differing_only_in_model_rewrites_every_tier(run_cli, workspaces, write_yaml):
    before, _ = workspaces
    sonnet = write_yaml("sonnet.yaml", "chat_type: direct\nprovider: anthropic\nmodel: anthropic/claude-sonnet-4-5\n")
    opus = write_yaml("opus.yaml", "chat_type: direct\nprovider: anthropic\nmodel: anthropic/claude-opus-4-1\n")
    code, out, _ = run_cli("cache", "diff", "--runs", sonnet, opus, "--workspace", before)
    assert code == 1
    assert out.splitlines() == [
        "model changed: anthropic/claude-sonnet-4-5 -> anthropic/claude-opus-4-1: every tier rewritten",
        "cache tier 1 invalidated by the model change",
        "cache tier 2 invalidated by the model change",
        "cache tier 3 invalidated by the model change",
    ]
    # The same model on both sides shares the cache: nothing is rewritten.
    code, out, _ = run_cli("cache", "diff", "--runs", opus, opus, "--workspace", before)
    assert code == 0 and "model changed" not in out


def test_cache_diff_names_a_provider_switch(run_cli, workspaces, write_yaml):
    before, _ = workspaces
    anthropic = write_yaml("a.yaml", "chat_type: direct\nprovider: anthropic\nmodel: claude-sonnet-4-5\n")
    bedrock = write_yaml("b.yaml", "chat_type: direct\nprovider: bedrock\nmodel: claude-sonnet-4-5\n")
    code, out, _ = run_cli("cache", "diff", "--runs", anthropic, bedrock, "--workspace", before)
    assert code == 1
    assert out.splitlines()[0] == "provider changed: anthropic -> bedrock: every tier rewritten"
    assert out.splitlines()[1] == "cache tier 1 invalidated by the provider change"
