"""Compile many run-fact variants with one warm state per process, in worker processes.

A batch's state is whatever keeps the pipeline warm for its work (a Compiler, the sources a bundle
build records through): `start()` makes it. Where fork is available (and no other thread runs) the
parent makes it and works on the first variant, then forks, so every worker starts warm (config,
workspace, skills and templates read, the first stable part rendered). Elsewhere each worker calls
`start()` itself. Variants are cut into contiguous chunks, so neighbours that share a stable part
(they differ only in volatile facts) are usually rendered by the same state, once; each worker is
handed its chunks when it starts and sends each result back on its own pipe. A worker that dies
(the OOM killer, a signal) closes its pipe: the parent notices at once, stops the other workers and
fails the batch with one error.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar, cast

from .._lib.errors import PromptcError
from ..model.request import Request
from ..model.runfacts import RunFacts
from .compiler import Compiler

S = TypeVar("S")
T = TypeVar("T")
Work = Callable[[S, Sequence[RunFacts]], T]
"""Work on a run of consecutive variants with a warm state; must be a module-level function."""

MIN_VARIANTS_PER_WORKER = 32
"""Below this many variants per worker, starting processes costs more than it saves."""
CHUNKS_PER_WORKER = 2


class BatchError(PromptcError):
    """A worker process died or failed."""


def default_jobs() -> int:
    """One worker per CPU this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def workers_for(count: int, jobs: int) -> int:
    """How many worker processes a batch of `count` variants uses with `jobs` allowed (1: none)."""
    return max(1, min(jobs, count // MIN_VARIANTS_PER_WORKER))


def compiler_for(request: Request) -> Compiler:
    """A warm Compiler for a batch over `request`: it does not check files between variants, since
    a batch is one snapshot of its inputs (a `start` for `map_chunks`)."""
    return Compiler.from_request(request, check_files=False)


def map_chunks(start: Callable[[], S], variants: Sequence[RunFacts], work: Work[S, T], jobs: int) -> list[T]:
    """`work(state, chunk)` for consecutive chunks of `variants`, results in variant order.

    `start()` makes one process's state; it must be a module-level function or a
    `functools.partial` of one, so that a spawned worker can call it too.
    """
    workers = workers_for(len(variants), jobs)
    if workers <= 1:
        return [work(start(), variants)]
    chunks = _chunks(variants, workers * CHUNKS_PER_WORKER)
    # A fork copies locks held by other threads, never to be released in the child.
    forking = "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1
    state = None
    if forking:
        state = start()
        work(state, variants[:1])  # warm once here; every forked worker inherits it
    context = multiprocessing.get_context("fork" if forking else "spawn")
    assigned = [list(range(index, len(chunks), workers)) for index in range(workers)]
    return _gather(context, (state, start), work, chunks, assigned)


def _gather(
    context: Any,
    source: tuple[Any, Callable[[], Any]],
    work: Work[Any, T],
    chunks: list[Sequence[RunFacts]],
    assigned: list[list[int]],
) -> list[T]:
    """Start one process per list of chunk indexes and collect every chunk's result."""
    results: dict[int, T] = {}
    running: dict[Any, tuple[Any, Connection]] = {}
    try:
        for indexes in assigned:
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_serve, args=(source, work, [(i, chunks[i]) for i in indexes], sender))
            process.start()
            sender.close()
            running[receiver] = (process, receiver)
        while running:  # a worker that dies closes its pipe: the end of file says so at once
            for receiver in wait(list(running)):
                _receive(running, cast(Connection, receiver), results)
    finally:
        for process, receiver in running.values():
            process.kill()
            process.join()
            receiver.close()
    return [results[index] for index in range(len(chunks))]


def _receive(running: dict[Any, tuple[Any, Connection]], receiver: Connection, results: dict[int, Any]) -> None:
    """One message from a worker: a chunk's result, its failure, or (at end of file) its death."""
    process, _ = running[receiver]
    try:
        kind, index, value = receiver.recv()
    except EOFError:
        process.join()
        del running[receiver]
        receiver.close()
        if process.exitcode != 0:
            raise BatchError(
                f"a worker process stopped ({_how(process.exitcode)}) before finishing its variants"
            ) from None
        return
    if kind == "failed":
        raise value if isinstance(value, PromptcError) else BatchError(f"a worker process failed: {value}")
    results[index] = value


def _how(exitcode: int | None) -> str:
    return f"killed by signal {-exitcode}" if exitcode is not None and exitcode < 0 else f"exit code {exitcode}"


def _serve(
    source: tuple[Any, Callable[[], Any]],
    work: Work[Any, Any],
    chunks: list[tuple[int, Sequence[RunFacts]]],
    out: Connection,
) -> None:
    """A worker: work on its chunks with one warm state, sending each result as it is done."""
    try:
        state = source[0] if source[0] is not None else source[1]()
        for index, chunk in chunks:
            out.send(("done", index, work(state, chunk)))
    except PromptcError as exc:
        out.send(("failed", -1, exc))
    except Exception as exc:  # a bug of ours: the parent reports it as one line
        out.send(("failed", -1, f"{type(exc).__name__}: {exc}"))
    finally:
        out.close()


def _chunks(items: Sequence[RunFacts], count: int) -> list[Sequence[RunFacts]]:
    size, extra = divmod(len(items), count)
    bounds, start = [], 0
    for index in range(count):
        end = start + size + (index < extra)
        bounds.append((start, end))
        start = end
    return [items[a:b] for a, b in bounds if b > a]
