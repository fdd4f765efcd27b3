"""Expectations in a scenario's `expect:` block (features/snapshot/expect.py and verdicts.py): each
kind holds or fails on its own, a failure names its scenario file, line and column, `snapshot
check` exits 1 on one and 0 once it is fixed, and a malformed block is one located error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from promptc.emit import tokens

from support.guardrails import expectations_in, replace_in
from support.paths import SNAPSHOTS

BASE = "telegram-direct"
EVENING = "telegram-evening"
EXPECT = """expect:
  contains: [/srv/agents/household]
  not_contains:
    stable: [attic-pi]
  regex:
    volatile: ['^.*attic-pi.*$']
  sections:
    present: [safety]
    absent: [sandbox]
  files:
    injected: [MEMORY.md]
    left_out: [BOOTSTRAP.md]
  max_tokens:
    stable: 6000
    volatile: 2000
    tiers: [5000, 1000, 1000]
  same_tier_as: {scenario: telegram-direct, tiers: 3}
"""
"""One expectation of each kind, every one true of the evening scenario: the direct chat on
another host (a volatile fact, so the stable part and its three tiers are the direct chat's)."""

BREAKS = {
    "contains": ("contains: [/srv/agents/household]", "contains: [/srv/agents/elsewhere]"),
    "not_contains": ("stable: [attic-pi]", "stable: [household]"),
    "regex": ("'^.*attic-pi.*$'", "'^.*pantry-nuc.*$'"),
    "sections.present": ("present: [safety]", "present: [sandbox]"),
    "sections.absent": ("absent: [sandbox]", "absent: [tooling]"),
    "files.injected": ("injected: [MEMORY.md]", "injected: [BOOTSTRAP.md]"),
    "files.left_out": ("left_out: [BOOTSTRAP.md]", "left_out: [USER.md]"),
    "max_tokens.stable": ("stable: 6000", "stable: 100"),
    "max_tokens.volatile": ("volatile: 2000", "volatile: 10"),
    "max_tokens.tiers": ("tiers: [5000, 1000, 1000]", "tiers: [5000, 10, 1000]"),
    "same_tier_as": ("tiers: 3}", "tiers: 4}"),
}
"""Per kind, the one edit that makes that expectation (and no other) false."""


def _without_expect(text: str) -> str:
    return text.split("\nexpect:\n", 1)[0] + "\n"


@pytest.fixture
def pair(tmp_path) -> Path:
    """A snapshots dir with the direct chat and the evening scenario (generated and current)."""
    root = tmp_path / "snapshots"
    shutil.copytree(SNAPSHOTS / "_fixtures", root / "_fixtures")
    shutil.copytree(SNAPSHOTS / BASE, root / BASE)
    (root / EVENING).mkdir()
    base = _without_expect((SNAPSHOTS / BASE / "scenario.yaml").read_text(encoding="utf-8"))
    assert "host: pantry-nuc\n" in base
    (root / EVENING / "scenario.yaml").write_text(base.replace("host: pantry-nuc", "host: attic-pi") + EXPECT)
    return root


def test_one_expectation_of_each_kind_holds(run_cli, pair):
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 0, out
    assert out.endswith("expectations hold)\n")


@pytest.mark.parametrize("kind", sorted(BREAKS))
def test_one_failing_expectation_exits_1_and_is_named_alone_until_fixed(run_cli, pair, kind):
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    path = pair / EVENING / "scenario.yaml"
    old, new = BREAKS[kind]
    replace_in(path, old, new)
    line = next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if new in text)
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    failures = [text for text in out.splitlines() if ": expect " in text]
    assert len(failures) == 1, out
    assert failures[0].startswith(f"{path}:{line}:")
    assert f": expect {kind}" in failures[0]
    assert out.splitlines()[-1].startswith("snapshot expectations: 1 of ")
    assert "snapshot drift" not in out  # the outputs themselves are current
    replace_in(path, new, old)
    assert run_cli("snapshot", "check", "--dir", pair)[0] == 0


def test_a_failure_line_points_at_the_item_it_names(run_cli, pair):
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    path = pair / EVENING / "scenario.yaml"
    replace_in(path, "injected: [MEMORY.md]", "injected: [MEMORY.md, BOOTSTRAP.md]")
    text = path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(text, 1) if "BOOTSTRAP.md]" in row and "injected" in row)
    column = text[line - 1].index("BOOTSTRAP.md") + 1
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    assert f"{path}:{line}:{column}: expect files.injected BOOTSTRAP.md: left out (missing" in out


def test_memory_md_is_left_out_of_a_group_chat(run_cli, pair):
    path = pair / EVENING / "scenario.yaml"
    replace_in(path, "chat_type: direct", "chat_type: group")
    replace_in(path, "  same_tier_as: {scenario: telegram-direct, tiers: 3}\n", "")
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    assert "expect files.injected MEMORY.md: left out (filtered" in out
    replace_in(path, "injected: [MEMORY.md]", "injected: [AGENTS.md]")
    replace_in(path, "left_out: [BOOTSTRAP.md]", "left_out: [BOOTSTRAP.md, MEMORY.md]")
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 0, out
    assert json.loads((pair / EVENING / "context.json").read_text())["files"][-1]["status"] == "filtered"


def _stable_tokens(root: Path, scenario: str) -> int:
    """The generated stable part's size, counted as `promptc context` counts for the run's model."""
    stable = (root / scenario / "stable.md").read_text(encoding="utf-8").removesuffix("\n")
    model = yaml.safe_load((root / scenario / "scenario.yaml").read_text(encoding="utf-8"))["run"]["model"]
    return tokens.count_for(stable, model)


def test_a_token_limit_holds_at_the_size_and_fails_one_below(run_cli, pair):
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    size = _stable_tokens(pair, EVENING)
    path = pair / EVENING / "scenario.yaml"
    replace_in(path, "stable: 6000", f"stable: {size}")
    assert run_cli("snapshot", "check", "--dir", pair)[0] == 0
    replace_in(path, f"stable: {size}", f"stable: {size - 1}")
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    assert f"expect max_tokens.stable {size - 1:,}: the stable part is {size:,} tokens (" in out
    assert "), 1 over" in out


def test_same_tier_as_names_the_first_unit_that_differs(run_cli, pair):
    path = pair / EVENING / "scenario.yaml"
    replace_in(path, "    - {name: gateway, summary: Inspect or change the runtime configuration}\n", "")
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    assert "expect same_tier_as telegram-direct (tiers 1-3): cache tier 1 differs: first at section tooling" in out


def test_an_unknown_section_file_or_scenario_fails_with_a_suggestion(run_cli, pair):
    path = pair / EVENING / "scenario.yaml"
    replace_in(path, "absent: [sandbox]", "absent: [sandbox, saftey]")
    replace_in(path, "left_out: [BOOTSTRAP.md]", "left_out: [BOOTSTRAP.md, TOOL.md]")
    replace_in(path, "scenario: telegram-direct", "scenario: telegram-dirct")
    assert run_cli("snapshot", "gen", "--dir", pair)[0] == 0
    code, out, _ = run_cli("snapshot", "check", "--dir", pair)
    assert code == 1
    assert "no section 'saftey' in the catalogue (did you mean 'safety'?)" in out
    assert "no bootstrap file 'TOOL.md' (did you mean 'TOOLS.md'?)" in out
    assert "no scenario 'telegram-dirct' (did you mean 'telegram-direct'?)" in out
    assert (
        out.splitlines()[-1] == f"snapshot expectations: 3 of {expectations_in(pair)} expectations failed in 1 scenario"
    )


def test_the_codex_developer_part_can_be_named(run_cli, snapshots):
    path = snapshots / "codex-harness" / "scenario.yaml"
    replace_in(path, "developer: [You are Juniper]", "developer: [You are Juniper]\n    turn: [You are Juniper]")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "expect contains 'You are Juniper' in the turn part: not in the turn part" in out
    replace_in(path, "    turn: [You are Juniper]", "    stable: [You are Juniper]")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert "expect contains 'You are Juniper' in the stable part: not in the stable part" in out


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("expect: [safety]", "'expect' must be a mapping"),
        ("expect: {cntains: [x]}", "unknown key 'expect.cntains' (did you mean 'contains'?)"),
        ("expect: {contains: x}", "'expect.contains' must be a list of texts, or a mapping from a part"),
        ("expect: {contains: {stabel: [x]}}", "unknown key 'expect.contains.stabel' (did you mean 'stable'?)"),
        ("expect: {contains: [1]}", "'expect.contains' must be a list of non-empty texts"),
        ("expect: {regex: ['(']}", "'expect.regex[0]': not a valid regular expression"),
        ("expect: {sections: {presnt: [a]}}", "unknown key 'expect.sections.presnt' (did you mean 'present'?)"),
        ("expect: {max_tokens: {stable: 0}}", "'expect.max_tokens.stable' must be a whole number of at least 1"),
        ("expect: {max_tokens: {tiers: 3}}", "'expect.max_tokens.tiers' must be a list"),
        ("expect: {same_tier_as: {tiers: 2}}", "'expect.same_tier_as.scenario' is required and must be text"),
    ],
)
def test_a_malformed_expect_block_is_one_located_error(run_cli, snapshots, block, message):
    path = snapshots / "cron-job" / "scenario.yaml"
    text = path.read_text(encoding="utf-8").split("\nexpect:\n", 1)[0] + "\n"
    path.write_text(text + block + "\n", encoding="utf-8")
    line = len(text.splitlines()) + 1
    code, out, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {path}:{line}:")
    assert message in err
    assert len(err.splitlines()) == 1
