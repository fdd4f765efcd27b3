"""The warnings summary `render` prints on standard error: what was cut or left out of the prompt
and what was ignored, a line each, grouped so a workspace with a hundred skipped skills still
gets a short summary (`promptc context` lists every one)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..._lib.text import plural
from ...emit import inventory
from ...model.prompt import Prompt
from ...model.workspace import ContextFile, SkillsBlock
from ...workspace.budget import describe_cuts

HINT = "promptc: `promptc context` with the same flags shows every file and skill; --quiet hides these warnings\n"
"""The line after the warnings."""


def text(prompt: Prompt) -> str:
    """The summary, one `promptc: warning:` line each and a closing hint; empty when there is nothing to say."""
    found = lines(prompt)
    return "".join(f"promptc: warning: {line}\n" for line in found) + HINT if found else ""


def lines(prompt: Prompt) -> list[str]:
    """The warnings for a person: cut and dropped files, skipped and unlisted skills, cut skill
    descriptions, then every other warning of the compile as it was written."""
    found = [_file_line(f) for f in prompt.files if f.status in ("truncated", "dropped")]
    found += _skill_lines(prompt)
    return found + _other_warnings(prompt)


def _file_line(file: ContextFile) -> str:
    if file.status == "dropped":
        return f"{file.name} left out: the total budget was used up before it ({plural(file.raw_chars, 'character')})"
    return f"{file.name} cut from {file.raw_chars:,} to {plural(file.injected_chars, 'character')} ({file.reason})"


def _skill_lines(prompt: Prompt) -> list[str]:
    block, summary = prompt.skills, inventory.skills_summary(prompt)
    found = []
    if block.skipped:
        found.append(f"{plural(len(block.skipped), 'SKILL.md file')} skipped ({_groups(summary['skipped'])})")
    not_listed = sum(summary["not_listed"].values())
    if not_listed:
        eligible = plural(not_listed, "eligible skill")
        found.append(f"{eligible} left out of the skills list ({_groups(summary['not_listed'])})")
    cut = _cut_descriptions(block, summary["listed"])
    if cut:
        found.append(cut)
    return found


def _groups(counts: dict[str, int]) -> str:
    return ", ".join(f"{reason}: {count:,}" for reason, count in counts.items())


def _cut_descriptions(block: SkillsBlock, listed: int) -> str | None:
    """That the listed skills are shown without descriptions, to fit the skills budget."""
    if not block.compact or not listed:
        return None
    return f"skills list in its compact form: the descriptions of all {plural(listed, 'listed skill')} left out to fit the skills budget"


def _other_warnings(prompt: Prompt) -> list[str]:
    """The compile's warnings that the lines above do not already say."""
    said = set(describe_cuts(prompt.files))
    skipped = _skipped_paths(prompt)
    return [w for w in prompt.warnings if w not in said and not _names_skipped_skill(w, skipped)]


def _skipped_paths(prompt: Prompt) -> frozenset[str]:
    """Every SKILL.md path the skipped list names, also as an absolute path below the workspace."""
    files = inventory.every_file(prompt)
    root = os.path.dirname(files[0].path) if files else ""
    paths = [path for path, _ in prompt.skills.skipped]
    return frozenset(paths) | frozenset(os.path.join(root, path) for path in paths if root)


def _names_skipped_skill(warning: str, skipped: frozenset[str]) -> bool:
    """Whether a warning is the diagnostic of a skipped SKILL.md (it starts with the file's path)."""
    return any(warning[:at] in skipped for at in _separators(warning))


def _separators(warning: str) -> Sequence[int]:
    return [match.start() for match in re.finditer(": ", warning)]
