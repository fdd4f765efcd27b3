"""Many variants in worker processes with one warm Compiler each (warm/batch.py)."""

from __future__ import annotations

import os

from promptc import Request, RunFacts
from promptc.warm import batch


def _texts(compiler, variants):
    return [(os.getpid(), compiler.compile_pending(run)[0].text) for run in variants]


def test_results_come_back_in_variant_order_from_several_processes(make_workspace, monkeypatch):
    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 2)
    request = Request(workspace=make_workspace({"AGENTS.md": "Rules.\n"}), env={})
    variants = [RunFacts(channel=f"channel-{i}") for i in range(12)]
    chunks = batch.map_chunks(request, variants, _texts, jobs=3)
    results = [item for chunk in chunks for item in chunk]
    assert [text for _, text in results] == [batch.Compiler.from_request(request).compile(run).text for run in variants]
    assert len({pid for pid, _ in results}) > 1 and os.getpid() not in {pid for pid, _ in results}


def test_a_small_batch_stays_in_this_process(make_workspace):
    request = Request(workspace=make_workspace({}), env={})
    chunks = batch.map_chunks(request, [RunFacts(), RunFacts(channel="x")], _texts, jobs=8)
    assert len(chunks) == 1 and {pid for pid, _ in chunks[0]} == {os.getpid()}
