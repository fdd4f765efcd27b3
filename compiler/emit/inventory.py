"""What a compiled prompt holds, counted for a person: the bootstrap files in load order, and the
skills found, listed and left out. `promptc context`, the prompt map and the warnings summary
`render` prints all say it from here (the summary without loading the context report)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..model.prompt import Prompt
from ..model.workspace import BOOTSTRAP_FILE_NAMES, ContextFile


def every_file(prompt: Prompt) -> list[ContextFile]:
    """The bootstrap files in load order: those that reached the budget, and those a filter left out."""
    rank = {name: index for index, name in enumerate(BOOTSTRAP_FILE_NAMES)}
    files = [*prompt.files, *prompt.filtered_files]
    return sorted(files, key=lambda f: rank.get(f.name if f.name != "memory.md" else "MEMORY.md", len(rank)))


def skills_summary(prompt: Prompt) -> dict[str, Any]:
    """Counts: SKILL.md files found, made skills, eligible, listed; why the rest are not listed
    (grouped), and why files were skipped before they became skills (grouped)."""
    entries, skipped = prompt.skills.entries, prompt.skills.skipped
    ineligible = [
        e.reason.removeprefix("ineligible: ") for e in entries if e.reason and e.reason.startswith("ineligible: ")
    ]
    return {
        "found": len(entries) + len(skipped),
        "eligible": len(entries) - len(ineligible),
        "listed": sum(1 for e in entries if e.included),
        "not_listed": _grouped(
            e.reason for e in entries if not e.included and e.reason and not e.reason.startswith("ineligible: ")
        ),
        "ineligible": _grouped(reason.split(":")[0].split(" (")[0] for reason in ineligible),
        "skipped": _grouped(why for _, why in skipped),
    }


def _grouped(reasons: Iterable[str]) -> dict[str, int]:
    """Reason -> count, most common first (ties by reason, so the order is fixed)."""
    counts = Counter(reasons)
    return {reason: counts[reason] for reason in sorted(counts, key=lambda r: (-counts[r], r))}
