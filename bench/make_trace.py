"""Write the example session trace `examples/trace.jsonl` (deterministic: a fixed seed).

Two hundred turns of one agent's day: direct and group chats on two channels, owner and model
switches, MEMORY.md appended every 15-20 turns, USER.md and SOUL.md edited twice each, one tool
added and removed, heartbeat and cron runs, and gaps over five minutes (and one over an hour).

    python bench/make_trace.py [--turns 200] [--out examples/trace.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent

CHATS = [
    {"channel": "telegram", "chat_type": "direct"},
    {"channel": "discord", "chat_type": "group", "extra_prompt": "You are in the family group chat."},
]
OWNERS = [["+351900000001"], ["+351900000001", "+351900000002"]]
MODELS = [
    {"provider": "anthropic", "model": "anthropic/claude-sonnet-4-5"},
    {"provider": "anthropic", "model": "anthropic/claude-opus-4-1"},
    {"provider": "openai", "model": "openai/gpt-5.5"},
]
EXTRA_TOOL = {"name": "browser", "summary": "Drive a web browser"}


def trace(turns: int, seed: int, base_tools: list) -> list[dict]:
    """The events, in order; `base_tools` is the base run's tool list (a turn may add one)."""
    rng = random.Random(seed)
    at, events = 0, []
    next_memory = rng.randint(15, 20)
    file_edits = {t: f for f, ts in (("USER.md", (40, 140)), ("SOUL.md", (75, 170))) for t in ts}
    for index in range(turns):
        at += _gap(rng, index)
        event: dict = {"at": at, "run": _facts(rng, index, base_tools)}
        edits = []
        if index == next_memory:
            edits.append({"file": "MEMORY.md", "append": f"- {index}: noted something worth keeping (entry {index})"})
            next_memory += rng.randint(15, 20)
        if index in file_edits:
            edits.append({"file": file_edits[index], "append": f"- Preference noted on turn {index}."})
        if edits:
            event["edits"] = edits
        events.append(event)
    return events


def _gap(rng: random.Random, index: int) -> int:
    """Seconds since the previous turn: mostly a conversation's pace, sometimes a pause."""
    if index == 0:
        return 0
    if index == 120:
        return 2 * 3600 + 600  # an evening away
    if rng.random() < 0.12:
        return rng.randint(6 * 60, 40 * 60)
    return rng.randint(15, 150)


def _facts(rng: random.Random, index: int, base_tools: list) -> dict:
    """This turn's run-fact overrides over examples/run.yaml."""
    if index % 33 == 32:
        return {"session": "heartbeat", "light_context": True}
    if index % 50 == 49:
        return {"session": "cron"}
    facts = {**(CHATS[1] if rng.random() < 0.2 else CHATS[0])}
    facts["owners"] = OWNERS[1] if rng.random() < 0.3 else OWNERS[0]
    roll = rng.random()
    facts.update(MODELS[2] if roll < 0.1 else MODELS[1] if roll < 0.25 else MODELS[0])
    if 90 <= index < 110:
        facts["tools"] = [*base_tools, EXTRA_TOOL]
    return facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=REPO / "examples" / "trace.jsonl")
    args = parser.parse_args()
    base_tools = yaml.safe_load((REPO / "examples" / "run.yaml").read_text(encoding="utf-8"))["tools"]
    lines = [json.dumps(event, sort_keys=True) for event in trace(args.turns, args.seed, base_tools)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} events to {args.out}")


if __name__ == "__main__":
    main()
