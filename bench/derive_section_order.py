"""Re-derive `openclaw_headings` in templates/section_order.yaml from OpenClaw's real builder.

Not part of CI: it needs OpenClaw installed (../shared/tools/openclaw-ref/README.md) and node.
It runs the harness on a handful of turns chosen so that, between them, every section OpenClaw
can emit appears, in full and minimal mode; merges the heading sequences into one order (a
heading that follows another in any run comes after it); and rewrites the `openclaw_headings`
list of the table in place (the rest of the file is left as it is). Then run
`python -m pytest tests/test_section_order.py` to see whether our `order` values still agree.

    python bench/derive_section_order.py [--check]

`--check` prints the derived list and exits 1 when it differs from the table, writing nothing.
"""

from __future__ import annotations

import argparse
import copy
import sys
from graphlib import TopologicalSorter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openclaw_ref as ref

VARIANT_CHANGES: tuple[dict, ...] = (
    {},
    # Before the delegation variant: the two sections exclude each other, and the builder's own
    # order (the first seen, when nothing else decides) puts this one first.
    {"proactiveSubagentOrchestration": True},
    {
        "channel": "webchat",
        "model_aliases": {"sonnet": "anthropic/claude-sonnet-4-6"},
        "reasoning_tag_hint": True,
        "delegation_mode": "prefer",
        "sandbox": {"enabled": True, "containerWorkspaceDir": "/sandbox"},
        "tools_extra": ["subagents", "skill_workshop"],
    },
)
"""Changes over the harness's example turn; together they switch on every section."""
ALIASES = {"## Subagent Context": "## Conversation Context"}
"""Headings the builder uses for the same slot in another mode: merged as one, listed right after it."""
WORKSPACES = ("openclaw-templates-2026.9.6", "okbest2024-backup")
"""A workspace with a pending BOOTSTRAP.md and one whose MEMORY.md is cut (the truncation notice)."""


def variant(changes: dict) -> dict:
    facts = copy.deepcopy(ref.turn_facts())
    extra = changes.get("tools_extra", [])
    facts.update({k: v for k, v in changes.items() if k != "tools_extra"})
    facts["tools"] = facts["tools"] + [{"name": name} for name in extra]
    return facts


def heading_runs() -> list[list[str]]:
    runs = []
    for ws in WORKSPACES:
        for changes in VARIANT_CHANGES:
            for kind in ("main", "heartbeat"):
                for mode in ("full", "minimal"):
                    runs.append(structural(ref.openclaw(ref.CORPUS / ws, variant(changes), kind, mode)["headings"]))
    return runs


def structural(headings: list[str]) -> list[str]:
    """The section headings of one run: file headings and the dynamic `# Project Context` dropped."""
    kept = []
    for index, heading in enumerate(headings):
        if ref.FILE_HEADING.match(heading):
            continue
        if heading == "# Project Context" and ref._next_file(headings, index) == "HEARTBEAT.md":
            continue
        kept.append(heading)
    return kept


def merge(runs: list[list[str]]) -> list[str]:
    """One order consistent with every run (ties broken by first appearance)."""
    first_seen: dict[str, int] = {}
    graph: dict[str, set[str]] = {}
    for run in ([ALIASES.get(h, h) for h in run] for run in runs):
        for index, heading in enumerate(run):
            first_seen.setdefault(heading, len(first_seen))
            graph.setdefault(heading, set()).update(run[:index])
    sorter = TopologicalSorter(graph)
    sorter.prepare()
    order: list[str] = []
    while sorter.is_active():
        ready = sorted(sorter.get_ready(), key=first_seen.__getitem__)
        order.extend(ready)
        sorter.done(*ready)
    seen = {heading for run in runs for heading in run}
    for alias, primary in ALIASES.items():
        if alias in seen:
            order.insert(order.index(primary) + 1, alias)
    return order


def rewrite(headings: list[str]) -> str:
    text = ref.ORDER_TABLE.read_text(encoding="utf-8")
    head, _, _ = text.partition("openclaw_headings:\n")
    return head + "openclaw_headings:\n" + "".join(f'  - "{h}"\n' for h in headings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the table; write nothing")
    args = parser.parse_args(argv)
    if not ref.HARNESS.is_file() or not ref.CORPUS.is_dir():
        parser.error(f"needs the shared harness and corpus under {ref.SHARED} (set PROMPTC_SHARED)")
    derived = merge(heading_runs())
    current = ref.order_table()["openclaw_headings"]
    print("\n".join(derived))
    if args.check:
        print("table is current" if derived == current else "table differs from the derived order")
        return 0 if derived == current else 1
    ref.ORDER_TABLE.write_text(rewrite(derived), encoding="utf-8")
    print(f"wrote {ref.ORDER_TABLE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
