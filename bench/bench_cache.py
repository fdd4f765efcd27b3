"""Prompt-cache cost of the cache layouts on the example trace, as ratios in one run.

For each corpus workspace the shipped trace (examples/trace.jsonl over examples/run.yaml and
examples/config.yaml) is replayed once per layout and priced by Anthropic's rules and prices
(templates/pricing.yaml: write 1.25x for 5m / 2x for 1h, read 0.1x, lifetime refreshed on a hit,
each model's own minimum), with a cache per model: a turn on another model than the last never
reads what that one wrote.

- single breakpoint, 5m: one tier at the boundary (`prompt.cache.tiers: []`, ttl 5m), the baseline;
- default: the shipped config (three tiers; 1h on the first, 5m after);
- one-hour TTL everywhere: the default tiers with `prompt.cache.ttl: 1h`;
- recommended (long-lived agents): examples/cache-long-lived.yaml, its keep-warm pings included;
- recommended, no pings: the same without its keep-warm pings;
- recommended, Anthropic pings: the same with pings after the Anthropic turns only (a runtime
  sends the gpt-5.5 turns to OpenAI, which has no breakpoint to keep warm);
- optimized: what `promptc cache optimize` finds for this workspace and trace (`--no-optimize` skips it).

A layout's keep-warm pings (`prompt.cache.keepWarm`) are requests of their own and are priced in
its cost like turns (their count and money are printed under the table); the no-cache figures
count the trace's turns only.

When OpenClaw is installed (../shared/tools/openclaw-ref), its own prompts are priced too: the
harness runs once per distinct workspace state x turn facts, given the skills promptc lists
(the harness lists none unless told), with one breakpoint at its boundary and a 5m TTL, on the
same per-model caches, and our costs are also given as ratios to it, twice: as they are, and
size-neutral, with every stable unit of promptc's scaled by OpenClaw's mean stable size over
promptc's, so a saving that comes from shorter text is not counted as the layout's. Token
counts: o200k with the `tokens` extra, otherwise the bytes/4 estimate.

    python bench/bench_cache.py [--workspaces okbest2024-backup openclaw-templates-2026.9.6] [--no-openclaw] [--no-optimize]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from promptc import Request, RunFacts, load_run_facts  # noqa: E402
from promptc.features.cache import keepwarm, optimize, replay, simulate, trace  # noqa: E402
from promptc.features.cache.simulate import Turn, Unit  # noqa: E402
from promptc.inputs import runfacts  # noqa: E402
from promptc.inputs.pricing import ANTHROPIC, identity  # noqa: E402
from promptc.model.units import DYNAMIC_UNIT  # noqa: E402
from promptc.skills import discover as skills  # noqa: E402
from promptc.warm.compiler import compile_once as compile_pending  # noqa: E402

SHARED = Path(os.environ.get("PROMPTC_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
HARNESS = SHARED / "tools" / "openclaw-ref" / "harness.mjs"
OPENCLAW_DIR = Path(os.environ.get("OPENCLAW_REF_DIR", "/tmp/openclaw-ref"))
TRACE = REPO / "examples" / "trace.jsonl"
WORKSPACES = ("okbest2024-backup", "openclaw-templates-2026.9.6")
RECOMMENDED = REPO / "examples" / "cache-long-lived.yaml"
"""The README's layout for long-lived agents, as a config layer over the example config."""
RECOMMENDED_NAME = "recommended (long-lived)"
ANTHROPIC_PINGED = "recommended, Anthropic pings"
"""The recommended layout with pings after the Anthropic turns only (the gpt-5.5 turns unpinged)."""
LAYOUTS: dict[str, tuple[str, ...]] = {
    "single breakpoint 5m": ("prompt.cache.tiers=[]", "prompt.cache.ttl=5m", optimize.NO_KEEP_WARM),
    "default": (),
    "one-hour TTL everywhere": ("prompt.cache.ttl=1h",),
    RECOMMENDED_NAME: ("config:" + str(RECOMMENDED),),
    "recommended, no pings": ("config:" + str(RECOMMENDED), optimize.NO_KEEP_WARM),
}
BASELINE = "single breakpoint 5m"
KEPT = Path(tempfile.gettempdir()) / "bench-cache-openclaw"
"""Harness results by content, and the one workspace copy they were made from."""


def request(workspace: Path, layout: tuple[str, ...]) -> Request:
    """The example run and config with a layout: `--set` overrides, or `config:PATH` layers."""
    run = load_run_facts(REPO / "examples" / "run.yaml")
    layers = tuple(Path(item.removeprefix("config:")) for item in layout if item.startswith("config:"))
    overrides = tuple(item for item in layout if not item.startswith("config:"))
    return Request(
        run=run, config_paths=(REPO / "examples" / "config.yaml", *layers), overrides=overrides, workspace=workspace
    )


def price_layouts(workspace: Path, events: tuple[trace.Event, ...]) -> dict[str, tuple[Turn, ...]]:
    """Each layout's turns under Anthropic's rules (the default layout's replay also checks that
    no volatile fact changes the stable part)."""
    turns = {}
    for name, overrides in LAYOUTS.items():
        replayed = replay.replay(request(workspace, overrides), events, TRACE, check_leaks=name == "default")
        assert not replayed.leaks, f"a volatile fact changed the stable part at trace lines {replayed.leaks}"
        turns[name] = replayed.turns(ANTHROPIC)
        if name == RECOMMENDED_NAME:
            turns[ANTHROPIC_PINGED] = _anthropic_pings_only(replayed)
    return turns


def _anthropic_pings_only(replayed: replay.Replay) -> tuple[Turn, ...]:
    """The replay with keep-warm pings after the Anthropic turns only: a runtime sends the other
    providers' turns to OpenAI, which has no breakpoint to keep warm (its 24h retention does that)."""
    schedules = [c.keep_warm if c.model.startswith("anthropic/") else None for c in replayed.events]
    return keepwarm.with_pings(replayed.turns(ANTHROPIC, pings=False), schedules)


def optimized(workspace: Path, events: tuple[trace.Event, ...]) -> tuple[tuple[Turn, ...], list[str]]:
    """The optimizer's layout for this workspace, replayed, and its config lines."""
    found = optimize.optimize(request(workspace, ()), events, TRACE, ANTHROPIC, optimize.DEFAULT_BUDGET)
    laid = request(workspace, found.best.overrides())
    return replay.replay(laid, events, TRACE, check_leaks=False).turns(ANTHROPIC), found.best.snippet()


def stable_tokens(turns: tuple[Turn, ...]) -> float:
    """Mean stable tokens a turn (the Dynamic Project Context a tier may reach is not stable)."""
    sizes = [sum(u.tokens for u in t.units if u.name != DYNAMIC_UNIT) for t in turns]
    return sum(sizes) / len(sizes) if sizes else 0.0


def resized(turns: tuple[Turn, ...], factor: float) -> tuple[Turn, ...]:
    """The turns with every stable unit's tokens scaled by `factor`."""
    return tuple(
        dataclasses.replace(
            t,
            units=tuple(
                u if u.name == DYNAMIC_UNIT else dataclasses.replace(u, tokens=round(u.tokens * factor))
                for u in t.units
            ),
        )
        for t in turns
    )


# --------------------------------------------------------------------------- OpenClaw's own prompts


def listed_skills(workspace: Path) -> list[dict[str, str]]:
    """The skills promptc lists for this workspace, for the harness to list too (it lists none
    unless told, while a real OpenClaw lists the workspace's skills)."""
    prompt, _ = compile_pending(request(workspace, ()))
    listed = {entry.name for entry in prompt.skills.entries if entry.included}
    found, _ = skills.discover([workspace / "skills"])
    return [
        {"name": s.name, "description": s.description, "location": s.location, "version": s.version}
        for s in found
        if s.name in listed
    ]


def harness_facts(run: RunFacts, listed: list[dict[str, str]]) -> dict[str, Any]:
    """Our run facts in the harness's terms (../shared/tools/openclaw-ref/README.md)."""
    facts: dict[str, Any] = {
        "skills": listed,
        "session_kind": run.session,
        "channel": run.channel,
        "chat_type": run.chat_type,
        "capabilities": list(run.capabilities),
        "tools": [{"name": t.name, "summary": t.summary} for t in run.tools],
        "owners": list(run.owners),
        "model": run.model,
        "timezone": "Europe/Lisbon",
        "thinking": run.thinking,
        "runtime": {"host": run.host, "os": run.os, "arch": run.arch, "shell": run.shell},
    }
    if run.extra_prompt:
        facts["extra_system_prompt"] = run.extra_prompt
    if run.reactions:
        facts["reactions"] = {"level": run.reactions, "channel": run.channel}
    if run.light_context:
        facts["context_mode"] = "lightweight"
    return facts


def openclaw_turns(workspace: Path, events: tuple[trace.Event, ...], count: Any) -> tuple[list[Turn], int]:
    """OpenClaw's prompt for every event, as turns with one 5m breakpoint at its boundary; and
    how many harness runs that took. The workspace copy sits at one fixed path (the prompt
    names it), edited in place between states."""
    base = load_run_facts(REPO / "examples" / "run.yaml")
    listed = listed_skills(workspace)
    copy = KEPT / "workspace"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(workspace, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    outputs: dict[str, dict[str, Any]] = {}
    keys: list[str] = []
    models: list[str] = []
    state: dict[str, dict[str, Any]] = {}  # this state's distinct facts, run together
    for event in [*events, None]:
        if event is None or event.edits:
            with ThreadPoolExecutor(max_workers=2) as pool:
                outputs.update(zip(state, pool.map(lambda key: _harness(copy, state[key], key), state)))
            state = {}
            if event is None:
                break
            trace.apply(event.edits, copy, event, TRACE)
        run = dataclasses.replace(base, **{k: getattr(runfacts.from_mapping(event.run), k) for k in event.run})
        facts = harness_facts(run, listed)
        models.append(identity(run.provider, run.model))
        key = hashlib.sha256(
            f"{workspace.name}|{_digest(copy)}|{json.dumps(facts, sort_keys=True)}".encode()
        ).hexdigest()
        state.setdefault(key, facts)
        keys.append(key)
    turns = []
    for event, key, model in zip(events, keys, models):
        out = outputs[key]
        stable = Unit("openclaw:stable", hashlib.sha256(out["stable"].encode()).hexdigest(), count(out["stable"]))
        variant = f"{out['inputs']['sessionKind']}/{out['inputs']['promptMode']}"
        turns.append(Turn(event.at, variant, (stable,), (1,), ("5m",), count(out["dynamic"]), model))
    return turns, len(outputs)


def _digest(workspace: Path) -> str:
    """The bootstrap files' contents: what a harness result depends on besides the facts."""
    files = sorted(p for p in workspace.glob("*.md") if p.is_file())
    return hashlib.sha256(b"".join(p.name.encode() + b"\0" + p.read_bytes() for p in files)).hexdigest()


def _harness(workspace: Path, facts: dict[str, Any], key: str) -> dict[str, Any]:
    """One harness run, kept on disk by content (a run costs about two seconds)."""
    kept = KEPT / f"{key}.json"
    if kept.is_file():
        return json.loads(kept.read_text(encoding="utf-8"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(facts, handle)
    try:
        args = ["node", str(HARNESS), str(workspace), handle.name]
        done = subprocess.run(args, capture_output=True, text=True, check=True, timeout=120)
    finally:
        os.unlink(handle.name)
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text(done.stdout, encoding="utf-8")
    return json.loads(done.stdout)


# --------------------------------------------------------------------------- report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspaces", nargs="+", default=list(WORKSPACES))
    parser.add_argument("--no-openclaw", action="store_true", help="skip pricing OpenClaw's own prompts")
    parser.add_argument("--no-optimize", action="store_true", help="skip the optimizer's layout")
    args = parser.parse_args()
    events = trace.load(TRACE)
    counter = replay._Counter()
    with_openclaw = not args.no_openclaw and HARNESS.is_file() and (OPENCLAW_DIR / "node_modules" / "openclaw").is_dir()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; tokens: {counter.method}"
    )
    print(f"trace: {TRACE.relative_to(REPO)} ({len(events)} turns); Anthropic rules: {ANTHROPIC.notes[0]}")
    print(
        f"money: templates/pricing.yaml as of {ANTHROPIC.as_of} ({ANTHROPIC.currency}), each turn's model; a cache per model"
    )
    for name in args.workspaces:
        workspace = CORPUS / name
        if not workspace.is_dir():
            print(f"\n{name}: not in {CORPUS}, skipped")
            continue
        layouts = price_layouts(workspace, events)
        snippet: list[str] = []
        if not args.no_optimize:
            layouts["optimized"], snippet = optimized(workspace, events)
        openclaw = runs = None
        if with_openclaw:
            turns, runs = openclaw_turns(workspace, events, counter)
            openclaw = (tuple(turns), simulate.simulate(turns, ANTHROPIC))
        _table(name, layouts, openclaw, runs or 0)
        if snippet:
            print("  optimized layout:", *(f"    {line}" for line in snippet), sep="\n")
    if not with_openclaw:
        print("\nOpenClaw is not installed (see ../shared/tools/openclaw-ref/README.md): no OpenClaw column")


def _table(
    name: str,
    layouts: dict[str, tuple[Turn, ...]],
    openclaw: tuple[tuple[Turn, ...], simulate.Result] | None,
    runs: int,
) -> None:
    results = {layout: simulate.simulate(turns, ANTHROPIC) for layout, turns in layouts.items()}
    base = results[BASELINE].cost
    print(f"\n{name}")
    header = f"  {'layout':28} {'cost':>12} {'money':>9} {'cached':>7} {'vs single 5m':>13}"
    if openclaw:
        factor = stable_tokens(openclaw[0]) / stable_tokens(layouts["default"])
        header += f" {'vs OpenClaw':>12} {'size-neutral':>13}"
    print(header)
    rows = list(results.items()) + ([("OpenClaw 2026.7.1 (its boundary, 5m)", openclaw[1])] if openclaw else [])
    for layout, result in rows:
        line = (
            f"  {layout:28} {result.cost:12,.0f} {'$' + format(result.money, ',.3f'):>9} "
            f"{result.cached_share:7.1%} {result.cost / base:12.3f}x"
        )
        if openclaw:
            line += f" {result.money / openclaw[1].money:11.3f}x"
            if layout in layouts:
                neutral = simulate.simulate(resized(layouts[layout], factor), ANTHROPIC)
                line += f" {neutral.money / openclaw[1].money:12.3f}x"
        print(line)
    for layout, result in results.items():
        if result.pings:
            print(f"  ({layout}: {len(result.pings)} keep-warm pings, ${result.ping_money:,.3f} of its money)")
    if openclaw:
        print(
            f"  (OpenClaw: {runs} harness runs, one per distinct workspace state x facts; size-neutral: promptc's "
            f"stable units x {factor:.3f}, OpenClaw's mean stable size over promptc's default)"
        )


if __name__ == "__main__":
    main()
