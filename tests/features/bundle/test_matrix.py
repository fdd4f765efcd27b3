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
