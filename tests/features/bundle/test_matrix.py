"""`promptc bundle --matrix`: axes expanded over the base run facts, located errors, variant ids."""

from __future__ import annotations

import pytest

from support.bundles import read_manifest
from support.paths import EXAMPLES


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
    rows = read_manifest(tmp_path / "b")["variants"]
    assert [(r["session"], r["mode"], r["channel"], r["provider"]) for r in rows] == [
        ("main", "full", "telegram", "anthropic"),
        ("cron", "minimal", "telegram", "anthropic"),
    ]


def test_a_modes_axis_overrides_the_session_default(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "sessions: [subagent]\nmodes: [full, none]\n")
    code, _, _ = run_cli("bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b")
    assert code == 0
    rows = read_manifest(tmp_path / "b")["variants"]
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
    [row] = read_manifest(tmp_path / "b")["variants"]
    assert (row["channel"], row["chat_type"], row["provider"]) == ("discord", "group", "anthropic")


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


def test_a_models_axis_sets_the_model(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "providers: [openai]\nmodels: [anthropic/claude-sonnet-4-5, openai/gpt-5.5]\n")
    code, out, _ = run_cli("bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b")
    assert code == 0
    assert out.startswith("promptc: bundle: 2 variants (1 provider x 2 models), one process\n")
    rows = read_manifest(tmp_path / "b")["variants"]
    assert [(r["provider"], r["model"]) for r in rows] == [
        ("openai", "anthropic/claude-sonnet-4-5"),
        ("openai", "openai/gpt-5.5"),
    ]
    assert rows[0]["stable_sha256"] != rows[1]["stable_sha256"]  # the gpt-5 overlay is above the boundary


# Under 1,000 bytes: 10 agents x 4 sessions x 3 modes x 8 providers x 100 channels x 2 chat types.
HUGE = (
    f"agents: [{', '.join(f'a{i}' for i in range(10))}]\nsessions: [main, subagent, cron, heartbeat]\n"
    "modes: [full, minimal, none]\nproviders: [p1, p2, p3, p4, p5, p6, p7, p8]\n"
    f"channels: [{', '.join(f'c{i}' for i in range(100))}]\nchat_types: [direct, group]\n"
)


def test_a_matrix_past_the_cap_is_refused_before_anything_is_built(run_cli, write_yaml, tmp_path):
    assert len(HUGE.encode()) < 1000
    matrix = write_yaml("matrix.yaml", HUGE)
    code, out, err = run_cli(
        "bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b"
    )
    assert (code, out) == (2, "")
    assert err == (
        f"promptc: error: {matrix}:1:1: the matrix expands to 192,000 variants (10 agents x 4 sessions x 3 modes"
        " x 8 providers x 100 channels x 2 chat_types), more than the limit of 10,000: list fewer entries, or"
        " raise the limit with the matrix key max_variants\n"
    )
    assert not (tmp_path / "b").exists()


def test_max_variants_raises_or_lowers_the_cap(run_cli, write_yaml, tmp_path):
    args = ["--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b"]
    lowered = write_yaml("low.yaml", "max_variants: 2\nchannels: [a, b, c]\n")
    code, _, err = run_cli("bundle", "--matrix", lowered, *args)
    assert code == 2 and "expands to 3 variants (3 channels), more than the limit of 2" in err
    raised = write_yaml("high.yaml", "max_variants: 3\nchannels: [a, b, c]\n")
    code, out, _ = run_cli("bundle", "--matrix", raised, *args)
    assert code == 0 and "3 variants, " in out
    bad = write_yaml("bad.yaml", "max_variants: lots\n")
    code, _, err = run_cli("bundle", "--matrix", bad, *args)
    assert code == 2 and "bad.yaml:1:1: max_variants must be a whole number of at least 1, got 'lots'" in err


def test_a_huge_value_is_quoted_short_in_an_error(run_cli, write_yaml, tmp_path):
    channel = "x" * 1_000_000
    matrix = write_yaml("matrix.yaml", f"channels: [{channel}, {channel}]\n")
    code, _, err = run_cli("bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b")
    assert code == 2 and err.count("\n") == 1
    assert len(err) < 400
    assert f"channel={'x' * 60}... (1,000,000 characters)" in err


def test_a_one_variant_bundle_counts_in_the_singular(run_cli, write_yaml, tmp_path):
    matrix = write_yaml("matrix.yaml", "sessions: [main]\n")
    code, out, _ = run_cli("bundle", "--matrix", matrix, "--workspace", EXAMPLES / "workspace", "--out", tmp_path / "b")
    assert code == 0
    assert out.startswith("promptc: bundle: 1 variant (1 session), one process\n")
    assert ": 1 variant, 1 distinct stable part (0 stale removed)\n" in out
