"""`promptc bundle --shard I/N` and `promptc bundle merge` (features/bundle/shard.py): shards built
apart merge into the bundle one build writes, byte for byte; a merge refuses an incomplete or mixed
set of shards."""

from __future__ import annotations

import pytest

from promptc import Bundle, PromptcError
from promptc.commands import cli

from support.bundles import bundle_files, read_manifest
from support.paths import EXAMPLES

# 5 agents x 4 sessions x 2 providers x 5 channels: 200 variants.
MATRIX = """
agents: [main, helper, scout, scribe, critic]
sessions: [main, subagent, cron, heartbeat]
providers:
  - {provider: anthropic, model: anthropic/claude-sonnet-4-5}
  - {provider: openai, model: openai/gpt-5.5}
channels: [telegram, {channel: discord, chat_type: group}, webchat, slack, signal]
"""
CONFIG = f"""
agents:
  defaults: {{workspace: {EXAMPLES / "workspace"}, heartbeat: {{enabled: true}}}}
  list: [{{id: main}}, {{id: helper}}, {{id: scout}}, {{id: scribe}}, {{id: critic}}]
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The 200-variant matrix built whole into `single` and as three shards (built once for the module)."""
    root = tmp_path_factory.mktemp("shards")
    (root / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    (root / "config.yaml").write_text(CONFIG, encoding="utf-8")
    base = ["bundle", "--matrix", str(root / "matrix.yaml"), "--config", str(root / "config.yaml")]
    base += ["--run", str(EXAMPLES / "run.yaml")]
    assert cli.main([*base, "--out", str(root / "single")]) == 0
    for index in (1, 2, 3):
        assert cli.main([*base, "--shard", f"{index}/3", "--out", str(root / f"shard{index}")]) == 0
    return root


@pytest.fixture
def shards(built):
    """The three shard directories."""
    return [built / f"shard{index}" for index in (1, 2, 3)]


def test_three_shards_merge_into_the_single_build_byte_for_byte(run_cli, built, shards, tmp_path):
    single = built / "single"
    assert len(read_manifest(single)["variants"]) == 200
    assert [read_manifest(s)["shard"]["index"] for s in shards] == [1, 2, 3]
    assert [len(read_manifest(s)["variants"]) for s in shards] == [67, 67, 66]
    assert [r for s in shards for r in read_manifest(s)["variants"]] == read_manifest(single)["variants"]
    code, out, _ = run_cli("bundle", "merge", *reversed(shards), "--out", tmp_path / "merged")
    distinct = len(list((single / "stable").iterdir()))
    assert (code, out) == (
        0,
        f"promptc: bundle written to {tmp_path / 'merged'}: 200 variants, {distinct} distinct stable parts,"
        " from 3 shards (0 stale removed)\n",
    )
    assert bundle_files(tmp_path / "merged") == bundle_files(single)
    merged = Bundle.open(tmp_path / "merged")
    assert len(merged.variants) == 200


def test_a_shard_says_which_slice_it_builds_and_is_not_served_before_the_merge(run_cli, shards):
    first = read_manifest(shards[0])
    assert first["shard"]["count"] == 3 and first["shard"]["variants"] == 200
    assert len(first["shard"]["matrix_sha256"]) == 64
    with pytest.raises(PromptcError, match="shard 1/3 of a bundle: merge the shards first"):
        Bundle.open(shards[0])


def test_a_merge_refuses_a_missing_a_repeated_and_a_foreign_shard(run_cli, shards, write_yaml, tmp_path):
    out = tmp_path / "merged"
    code, _, err = run_cli("bundle", "merge", shards[0], shards[2], "--out", out)
    assert (code, err) == (2, "promptc: error: shards missing: 2/3 (all 3 are needed)\n")
    code, _, err = run_cli("bundle", "merge", shards[0], shards[1], shards[1], shards[2], "--out", out)
    assert code == 2 and f"{shards[1]}: shard 2/3 given twice (also in {shards[1]})" in err
    other = write_yaml("other.yaml", "sessions: [main, cron, subagent]\n")
    args = ["bundle", "--matrix", other, "--workspace", EXAMPLES / "workspace", "--shard", "2/3"]
    assert run_cli(*args, "--out", tmp_path / "foreign")[0] == 0
    code, _, err = run_cli("bundle", "merge", shards[0], tmp_path / "foreign", shards[2], "--out", out)
    assert code == 2 and "a shard of another matrix than" in err and err.count("\n") == 1
    code, _, err = run_cli("bundle", "merge", shards[0].parent / "single", "--out", out)
    assert code == 2 and "not a shard's manifest (no 'shard' entry)" in err
    assert not out.exists()


@pytest.mark.parametrize("given", ["0/3", "4/3", "3", "a/b", "1/0"])
def test_a_bad_shard_is_a_usage_error(run_cli, small_args, tmp_path, given):
    code, _, err = run_cli(*small_args, "--shard", given, "--out", tmp_path / "b")
    assert code == 2 and "--shard" in err and "expected I/N" in err


def test_bundle_needs_a_matrix_and_an_out(run_cli, small_args, tmp_path):
    code, _, err = run_cli("bundle", "--out", tmp_path / "b")
    assert code == 2 and "the following arguments are required: --matrix" in err
    code, _, err = run_cli(*small_args)
    assert code == 2 and "the following arguments are required: --out" in err
    code, _, err = run_cli("bundle", "merge", tmp_path)
    assert code == 2 and "--out" in err
