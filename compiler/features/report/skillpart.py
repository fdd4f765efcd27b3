"""The prompt map's skills part: what was found, listed and left out, and why."""

from __future__ import annotations

from ..._lib.text import plural
from ...emit import inventory
from ...model.prompt import Prompt
from .htmlkit import esc, table


def skills_part(prompt: Prompt) -> str:
    """Counts, then the listed skills, those not listed and the SKILL.md files skipped, each with the reason."""
    summary, block = inventory.skills_summary(prompt), prompt.skills
    counts = (
        f"<p>{plural(summary['found'], 'SKILL.md file')} found, {summary['eligible']:,} eligible, "
        f"{summary['listed']:,} listed.</p>"
    )
    note = f'<p class="note">{esc(block.note)}</p>' if block.note else ""
    listed = [e for e in block.entries if e.included]
    dropped = [e for e in block.entries if not e.included]
    names = "".join(f"<li>{esc(e.name)}</li>" for e in listed)
    parts = [
        '<section aria-labelledby="skills-h"><h2 id="skills-h">Skills</h2>',
        counts,
        note,
        f'<details class="list"><summary>Listed in the prompt ({len(listed):,})</summary><ul class="names">{names}</ul></details>'
        if listed
        else "<p>No skill is listed.</p>",
    ]
    if dropped:
        rows = [(esc(e.name), esc(e.reason or ""), f"<code>{esc(e.location)}</code>") for e in dropped]
        parts.append(table(f"{plural(len(dropped), 'skill')} not listed", ("skill", "why", "location"), rows))
    if block.skipped:
        skipped = [(f"<code>{esc(path)}</code>", esc(why)) for path, why in block.skipped]
        caption = f"{plural(len(block.skipped), 'SKILL.md file')} skipped before they became skills"
        parts.append(table(caption, ("file", "why"), skipped))
    return "".join(parts) + "</section>"
