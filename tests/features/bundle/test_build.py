"""Building a bundle (features/bundle/build.py): every variant of the matrix in the manifest with its
cache tiers, each distinct stable part stored once and named by its hash, the same bytes from any
number of worker processes."""

from __future__ import annotations

import hashlib
import itertools
import os
import time

import pytest

from support.bundles import (
    AGENTS,
    CHANNELS,
    PROVIDERS,
    SESSIONS,
    TIER_FILES,
    bundle_files,
    read_manifest,
)
from support.paths import EXAMPLES


def test_every_variant_of_the_matrix_is_in_the_manifest(run_cli, bundle_args, tmp_path):
    code, out, _ = run_cli(*bundle_args)
    assert code == 0, out
    rows = read_manifest(tmp_path / "bundle")["variants"]
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
    rows = read_manifest(out)["variants"]
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


def test_worker_processes_build_the_same_bundle_byte_for_byte(run_cli, bundle_args, tmp_path, monkeypatch):
    from promptc.warm import batch

    serial = [*bundle_args[:-1], tmp_path / "serial"]
    assert run_cli(*serial, "--jobs", "1")[0] == 0
    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 1)  # the 96 variants would fit one worker
    code, out, _ = run_cli(*bundle_args[:-1], tmp_path / "parallel", "--jobs", "3")
    assert code == 0 and "96 variants" in out
    assert bundle_files(tmp_path / "parallel") == bundle_files(tmp_path / "serial")


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_a_positive_whole_number(run_cli, bundle_args, jobs):
    code, _, err = run_cli(*bundle_args, "--jobs", jobs)
    assert code == 2 and "--jobs" in err and "a whole number of at least 1" in err


def test_the_manifest_has_every_variant_s_cache_tiers(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(TIER_FILES)
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main]\nchat_types: [direct, group]\n", encoding="utf-8")
    assert run_cli("bundle", "--matrix", matrix, "--out", tmp_path / "b", "--workspace", workspace)[0] == 0
    direct, group = read_manifest(tmp_path / "b")["variants"]
    stable = (tmp_path / "b" / "stable" / f"{direct['stable_sha256']}.md").read_text(encoding="utf-8")
    assert sum(t["chars"] for t in direct["tiers"]) == len(stable) + 2
    assert [u["name"] for u in direct["tiers"][2]["units"]] == ["file:MEMORY.md", "section:silent_replies"]
    assert [t["key"] for t in group["tiers"][:2]] == [t["key"] for t in direct["tiers"][:2]]
    assert group["tiers"][2]["key"] != direct["tiers"][2]["key"]  # MEMORY.md stays out of groups


KILLER = """
import os, signal


def hook(files, context):
    if context.agent_id == "victim" and os.getpid() != int(os.environ["BUNDLE_TEST_PARENT"]):
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer does
    return files
"""


def test_a_worker_killed_mid_build_fails_in_one_line_and_keeps_the_old_bundle(
    run_cli, write_yaml, tmp_path, monkeypatch
):
    from promptc.warm import batch

    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 1)
    (tmp_path / "bundle_killer.py").write_text(KILLER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BUNDLE_TEST_PARENT", str(os.getpid()))
    agents = ["main", "one", "two", "three", "victim", "four"]
    listed = "".join(f"    - id: {agent}\n" for agent in agents)
    plain = write_yaml(
        "plain.yaml", f"agents:\n  defaults:\n    workspace: {EXAMPLES / 'workspace'}\n  list:\n{listed}"
    )
    hooked = write_yaml("hooked.yaml", "hooks:\n  bootstrap: ['bundle_killer:hook']\n")
    matrix = write_yaml("matrix.yaml", f"agents: [{', '.join(agents)}]\nchannels: [telegram, discord]\n")
    out = tmp_path / "bundle"
    args = ["bundle", "--matrix", matrix, "--config", plain, "--out", out, "--jobs", "2"]
    assert run_cli(*args)[0] == 0
    before = bundle_files(out)
    started = time.monotonic()
    code, _, err = run_cli(*args, "--config", hooked)
    assert time.monotonic() - started < 10
    assert (code, err) == (
        2,
        "promptc: error: a worker process stopped (killed by signal 9) before finishing its variants\n",
    )
    assert bundle_files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".bundle")) == []
