"""How long one compile takes for a runtime calling the API every turn.

Reports each case as a ratio against the cold compile measured in the same run (every
cache cleared before each compile), so numbers compare across machines.

    python bench/bench_compile.py [--repeat N]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from promptc import Request, compile_prompt  # noqa: E402
from promptc.config import layers as config
from promptc.config import runfacts
from promptc.sections import catalogue as sections
from promptc.sections import render
from promptc.workspace import loader as workspace
from promptc.workspace import skills

CORPUS = REPO.parent / "shared" / "corpus"


def clear_caches() -> None:
    """Forget everything a long-running process would have cached."""
    config._LAYER_CACHE.clear()
    sections._DIR_CACHE.clear()
    skills._SKILL_CACHE.clear()
    skills._LISTING_CACHE.clear()
    workspace._read_cache.clear()
    render._STABLE_CACHE.clear()
    render._GATES.clear()
    render.ENV.cache.clear()


def timed(fn, repeat: int) -> float:
    """Median seconds of `repeat` calls."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def cases(request: Request) -> dict[str, object]:
    channels = ["telegram", "discord", "webchat", "signal"]
    turn = iter(range(10**9))

    def new_turn() -> None:
        run = dataclasses.replace(request.run, channel=channels[next(turn) % 4], owners=(str(next(turn)),))
        compile_prompt(dataclasses.replace(request, run=run))

    def cold() -> None:
        clear_caches()
        compile_prompt(request)

    return {"cold (all caches cleared)": cold, "warm, same inputs": lambda: compile_prompt(request), "warm, new volatile facts each turn": new_turn}


def report(label: str, request: Request, repeat: int) -> None:
    compile_prompt(request)
    results = {name: timed(fn, repeat) for name, fn in cases(request).items()}
    base = results["cold (all caches cleared)"]
    print(f"\n{label}")
    for name, seconds in results.items():
        print(f"  {name:<36} {seconds * 1000:8.3f} ms   {base / seconds:6.1f}x faster than cold")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    example = REPO / "examples"
    run = runfacts.load(example / "run.yaml", {})
    report("examples/ (config + run facts)", Request(run=run, config_paths=(example / "config.yaml",)), args.repeat)
    largest = CORPUS / "okbest2024-backup"
    if largest.is_dir():
        report("corpus okbest2024-backup (135k chars, 127 skills)", Request(run=run, workspace=largest, env={}), args.repeat // 4)
    else:
        print("\n(corpus not found at ../shared/corpus: skipped the large-workspace case)")


if __name__ == "__main__":
    main()
