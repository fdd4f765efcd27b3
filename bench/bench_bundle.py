"""Benchmark `promptc bundle` on a 96-variant matrix against two naive baselines, in one run.

    python bench/bench_bundle.py [--sample N]

Baselines: (1) `compile_prompt` called once per variant with a fresh request, the way a
script would loop over the library (it computes no hashes or token counts, so it is a floor
for the in-process work); (2) one `promptc render` process per variant, the way a shell loop
would (timed on a sample and scaled to the whole matrix). One-off costs are paid before timing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from promptc import pipeline  # noqa: E402
from promptc.commands import bundle
from promptc.config import runfacts
from promptc.emit import context  # noqa: E402

EXAMPLES = REPO / "examples"
CONFIG = """
agents:
  defaults:
    workspace: {workspace}
    heartbeat: {{enabled: true}}
  list:
    - id: main
    - id: helper
    - id: scout
      subagents: {{delegationMode: prefer}}
    - id: scribe
      userTimezone: Europe/Lisbon
"""
MATRIX = """
agents: [main, helper, scout, scribe]
sessions: [main, subagent, cron, heartbeat]
providers:
  - {provider: anthropic, model: anthropic/claude-sonnet-4-5}
  - {provider: openai, model: openai/gpt-5.5}
channels: [telegram, discord, webchat]
"""


def main() -> None:
    """Time the three paths and print variants per second and the speed-ups."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=8, help="variants timed for the per-process baseline")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        config, matrix = _inputs(Path(scratch))
        variants = bundle.load_matrix(matrix, runfacts.load(EXAMPLES / "run.yaml", {}))
        request = pipeline.Request(config_paths=(config,))
        _warm_up(variants[0], request)
        bundled = _time(lambda: bundle.write(bundle.build(variants, request), Path(scratch) / "out"))
        looped = _time(lambda: [pipeline.compile_prompt(_naive_request(config, run)) for run in variants])
        sample = variants[:: max(1, len(variants) // options.sample)][: options.sample]
        per_process = _time(lambda: [_render_process(config, run, Path(scratch)) for run in sample]) * len(variants) / len(sample)
    _report(len(variants), bundled, looped, per_process, len(sample))


def _inputs(scratch: Path) -> tuple[Path, Path]:
    config, matrix = scratch / "config.yaml", scratch / "matrix.yaml"
    config.write_text(CONFIG.format(workspace=EXAMPLES / "workspace"), encoding="utf-8")
    matrix.write_text(MATRIX, encoding="utf-8")
    return config, matrix


def _warm_up(run: runfacts.RunFacts, request: pipeline.Request) -> None:
    """Pay the one-off costs (imports, template compilation, tokenizer load) before timing."""
    prompt = pipeline.compile_prompt(dataclasses.replace(request, run=run))
    context.token_count(prompt.stable)


def _naive_request(config: Path, run: runfacts.RunFacts) -> pipeline.Request:
    """What a caller without the bundle builds for each variant: a new request from scratch."""
    return pipeline.Request(run=dataclasses.replace(run), config_paths=(config,))


def _render_process(config: Path, run: runfacts.RunFacts, scratch: Path) -> None:
    flags = {"agent": run.agent, "session": run.session, "channel": run.channel, "model": run.model}
    argv = [sys.executable, "-m", "promptc", "render", "--config", str(config), "--run", str(EXAMPLES / "run.yaml")]
    argv += list(itertools.chain.from_iterable((f"--{key}", value) for key, value in flags.items() if value))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(argv, cwd=scratch, env=env, check=True, stdout=subprocess.DEVNULL)


def _time(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _report(count: int, bundled: float, looped: float, per_process: float, sample: int) -> None:
    rows = [
        ("promptc bundle (build + write)", bundled),
        ("compile_prompt per variant, fresh request", looped),
        (f"promptc render per variant, one process each (scaled from {sample})", per_process),
    ]
    print(f"{count} variants")
    for label, seconds in rows:
        print(f"  {label:<62} {seconds:8.3f} s  {count / seconds:8.1f} variants/s  x{seconds / bundled:5.2f}")
    print("  (x = time relative to the bundle path; above 1 means the bundle is that many times faster)")


if __name__ == "__main__":
    main()
