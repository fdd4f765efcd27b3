"""Compile many run-fact variants with one warm Compiler per process, in worker processes.

Where fork is available (and no other thread runs) the parent compiles the first variant and
then forks, so every worker starts with the parent's Compiler already warm (config, workspace,
skills and templates read, the first stable part rendered). Elsewhere each worker builds its own
from the request.
Variants are handed out in contiguous chunks, so neighbours that share a stable part (they
differ only in volatile facts) are usually rendered by the same Compiler, once.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..model.runfacts import RunFacts
from ..pipeline import Request
from .compiler import Compiler

T = TypeVar("T")
Chunk = Callable[[Compiler, Sequence[RunFacts]], T]
"""Work on a run of consecutive variants with a warm Compiler; must be a module-level function."""

MIN_VARIANTS_PER_WORKER = 32
"""Below this many variants per worker, starting processes costs more than it saves."""
CHUNKS_PER_WORKER = 2


def default_jobs() -> int:
    """One worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def map_chunks(request: Request, variants: Sequence[RunFacts], work: Chunk[T], jobs: int) -> list[T]:
    """`work(compiler, chunk)` for consecutive chunks of `variants`, results in variant order.

    The Compiler does not check files between variants: a bundle is one snapshot of its inputs.
    """
    compiler = Compiler.from_request(request, check_files=False)
    workers = min(jobs, len(variants) // MIN_VARIANTS_PER_WORKER)
    if workers <= 1:
        return [work(compiler, variants)]
    chunks = _chunks(variants, workers * CHUNKS_PER_WORKER)
    # A fork copies locks held by other threads, never to be released in the child.
    forking = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    if forking:
        compiler.compile_pending(variants[0])  # warm once here; every forked worker inherits it
    context = multiprocessing.get_context("fork" if forking else "spawn")
    with context.Pool(workers, initializer=_start_worker, initargs=(compiler if forking else request,)) as pool:
        return pool.map(_run, [(work, chunk) for chunk in chunks])


def _chunks(items: Sequence[RunFacts], count: int) -> list[Sequence[RunFacts]]:
    size, extra = divmod(len(items), count)
    bounds, start = [], 0
    for index in range(count):
        end = start + size + (index < extra)
        bounds.append((start, end))
        start = end
    return [items[a:b] for a, b in bounds if b > a]


_worker_compiler: Compiler | None = None
"""The warm Compiler of this worker process (set once by the pool's initializer)."""


def _start_worker(source: Compiler | Request) -> None:
    global _worker_compiler
    _worker_compiler = source if isinstance(source, Compiler) else Compiler.from_request(source, check_files=False)


def _run(task: tuple[Chunk[T], Sequence[RunFacts]]) -> T:
    work, chunk = task
    assert _worker_compiler is not None
    return work(_worker_compiler, chunk)
