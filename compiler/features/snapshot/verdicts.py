"""What each kind of expectation checks in a compiled scenario: each function returns why the
expectation fails, or None when it holds."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..._lib.errors import did_you_mean, one_line
from ...model.prompt import Prompt
from ...model.units import label as unit_label
from ...model.workspace import BOOTSTRAP_FILE_NAMES, ContextFile
from . import cost

PARTS = ("prompt", "stable", "volatile", "developer", "turn")
"""Where a text expectation looks: the whole prompt, or one part of it (the codex harness alone
has a developer and a turn part)."""
WHOLE_FILE = ("ok", "truncated")
"""File statuses of a file whose text (whole or cut) reaches the prompt (unless a harness takes it)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """A compiled scenario, and the other scenarios' compiles (for `same_tier_as`)."""

    prompt: Prompt
    """The scenario's prompt."""
    others: Mapping[str, Prompt]
    """Every scenario's prompt, by scenario name."""


def parts(prompt: Prompt) -> dict[str, str]:
    """The prompt's parts by name: stable, volatile and the codex harness's surfaces."""
    found = {"stable": prompt.stable, "volatile": prompt.volatile}
    found.update({name: text for name, text in (prompt.surfaces or {}).items() if name != "instructions"})
    return found


def _looked_in(prompt: Prompt, part: str) -> dict[str, str]:
    every = parts(prompt)
    return every if part == "prompt" else {part: every[part]} if part in every else {}


def _where(part: str) -> str:
    return "the prompt" if part == "prompt" else f"the {part} part"


def contains(text: str, part: str, seen: Seen) -> str | None:
    looked = _looked_in(seen.prompt, part)
    if not looked:
        return f"the prompt has no {part} part"
    return None if any(text in body for body in looked.values()) else f"not in {_where(part)}"


def not_contains(text: str, part: str, seen: Seen) -> str | None:
    for name, body in _looked_in(seen.prompt, part).items():
        at = body.find(text)
        if at >= 0:
            return f"found in the {name} part, line {body.count(chr(10), 0, at) + 1}"
    return None


def regex(pattern: re.Pattern[str], part: str, seen: Seen) -> str | None:
    looked = _looked_in(seen.prompt, part)
    if not looked:
        return f"the prompt has no {part} part"
    return None if any(pattern.search(body) for body in looked.values()) else f"no match in {_where(part)}"


def section(section_id: str, present: bool, seen: Seen) -> str | None:
    outline = {sid: (rendered, why) for sid, rendered, why in seen.prompt.outline}
    if section_id not in outline:
        return f"no section '{section_id}' in the catalogue{did_you_mean(section_id, outline)}"
    rendered, why = outline[section_id]
    if present and not rendered:
        return f"not in the prompt ({why})"
    if not present and rendered:
        side = next(s.side for s in seen.prompt.sections if s.id == section_id)
        return f"in the prompt (the {side} part)"
    return None


def file(name: str, injected: bool, seen: Seen) -> str | None:
    files = {f.name: f for f in (*seen.prompt.files, *seen.prompt.filtered_files)}
    found = files.get(name) or (files.get("memory.md") if name == "MEMORY.md" else None)
    if found is None:
        known = (*BOOTSTRAP_FILE_NAMES, "memory.md", *files)
        if name in known:
            return "left out (not loaded)" if injected else None
        return f"no bootstrap file '{name}'{did_you_mean(name, known)}"
    shown = found.status in WHOLE_FILE and any(
        found.text and found.text in body for body in parts(seen.prompt).values()
    )
    if injected and not shown:
        return f"left out ({found.status}{_why_left_out(found)})"
    if not injected and shown:
        return f"injected ({found.status}, {found.injected_chars:,} characters)"
    return None


def _why_left_out(found: ContextFile) -> str:
    if found.reason:
        return f": {one_line(found.reason)}"
    return ", but its text is not in the prompt" if found.status in WHOLE_FILE else ""


def part_tokens(part: str, limit: int, seen: Seen) -> str | None:
    text = parts(seen.prompt).get(part, "")
    return _over(f"the {part} part", cost.count(text, seen.prompt.model), limit, seen.prompt.model)


def tier_tokens(index: int, limit: int, seen: Seen) -> str | None:
    tiers = seen.prompt.tiers
    if index > len(tiers):
        return f"the prompt has no cache tier {index} (it has {len(tiers)})"
    return _over(f"cache tier {index}", cost.count(tiers[index - 1].text, seen.prompt.model), limit, seen.prompt.model)


def _over(what: str, count: int, limit: int, model: str | None) -> str | None:
    if count <= limit:
        return None
    return f"{what} is {count:,} tokens ({cost.method(model)}), {count - limit:,} over"


def same_tiers(other: str, count: int, seen: Seen) -> str | None:
    if other not in seen.others:
        return f"no scenario '{other}'{did_you_mean(other, seen.others)}"
    mine, theirs = seen.prompt.tiers, seen.others[other].tiers
    if min(len(mine), len(theirs)) < count:
        return f"this prompt has {len(mine)} cache tiers and {other} has {len(theirs)}, fewer than {count}"
    for index in range(count):
        if mine[index].key != theirs[index].key:
            return f"cache tier {index + 1} differs{_first_difference(seen.prompt, seen.others[other], index)}"
    return None


def _first_difference(mine: Prompt, theirs: Prompt, index: int) -> str:
    """`: first at section tooling`: the first unit through tier `index` (0-based) whose name or
    text differs between the two prompts."""
    through = sum(len(tier.units) for tier in mine.tiers[: index + 1])
    for a, b in zip(mine.units[:through], theirs.units):
        if (a.name, a.text) != (b.name, b.text):
            return f": first at {unit_label(a.name)}"
    return ""
