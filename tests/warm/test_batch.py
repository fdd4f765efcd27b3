"""Many variants in worker processes with one warm state each (warm/batch.py): results in variant
order, a small batch kept in this process, and a worker that dies (as under the OOM killer) ending
the batch at once with one error."""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import time

import pytest

from promptc import Request, RunFacts
from promptc.warm import batch

VICTIM = "channel-victim"
"""The variant whose worker kills itself."""


def _texts(compiler, variants):
    return [(os.getpid(), compiler.compile_pending(run)[0].text) for run in variants]


def _killed_on_the_victim(compiler, variants):
    """Work that dies of SIGKILL in a worker when it reaches the victim (never in this process)."""
    for run in variants:
        if run.channel == VICTIM and os.getpid() != PARENT:
            os.kill(os.getpid(), signal.SIGKILL)
    return _texts(compiler, variants)


PARENT = os.getpid()


def test_results_come_back_in_variant_order_from_several_processes(make_workspace, monkeypatch):
    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 2)
    request = Request(workspace=make_workspace({"AGENTS.md": "Rules.\n"}), env={})
    variants = [RunFacts(channel=f"channel-{i}") for i in range(12)]
    chunks = batch.map_chunks(functools.partial(batch.compiler_for, request), variants, _texts, jobs=3)
    results = [item for chunk in chunks for item in chunk]
    assert [text for _, text in results] == [batch.Compiler.from_request(request).compile(run).text for run in variants]
    assert len({pid for pid, _ in results}) > 1 and os.getpid() not in {pid for pid, _ in results}


def test_a_small_batch_stays_in_this_process(make_workspace):
    request = Request(workspace=make_workspace({}), env={})
    start = functools.partial(batch.compiler_for, request)
    chunks = batch.map_chunks(start, [RunFacts(), RunFacts(channel="x")], _texts, jobs=8)
    assert len(chunks) == 1 and {pid for pid, _ in chunks[0]} == {os.getpid()}


def test_a_worker_killed_mid_batch_ends_it_at_once_with_one_error(make_workspace, monkeypatch):
    monkeypatch.setattr(batch, "MIN_VARIANTS_PER_WORKER", 2)
    request = Request(workspace=make_workspace({"AGENTS.md": "Rules.\n"}), env={})
    variants = [RunFacts(channel=f"channel-{i}") for i in range(40)]
    variants[25] = RunFacts(channel=VICTIM)
    started = time.monotonic()
    with pytest.raises(batch.BatchError) as raised:
        batch.map_chunks(functools.partial(batch.compiler_for, request), variants, _killed_on_the_victim, jobs=2)
    assert time.monotonic() - started < 10
    assert str(raised.value) == "a worker process stopped (killed by signal 9) before finishing its variants"
    assert multiprocessing.active_children() == []  # the other worker was stopped too
