"""`promptc context`: what went into the prompt, file by file and section by section (SPEC 7)."""

from __future__ import annotations

from typing import Any, Sequence

from ..model import Prompt
from . import tokens


def report(prompt: Prompt) -> dict[str, Any]:
    """The context report as plain data (the `--format json` document)."""
    chosen = tokens.method(prompt.model)
    exact = chosen.exact and tokens.count("", chosen.encoding) is not None
    total = len(prompt.stable) + len(prompt.volatile)
    model = prompt.model
    return {
        "agent": prompt.agent,
        "session": prompt.session,
        "mode": prompt.mode,
        "tokens": {"method": tokens.describe(model), "exact": exact},
        "files": [_file(f) for f in prompt.files],
        "sections": [
            {"id": s.id, "side": s.side, "chars": len(s.text), "tokens": token_count(s.text, model)} for s in prompt.sections
        ],
        "skills": [{"name": e.name, "included": e.included, "reason": e.reason} for e in prompt.skills.entries],
        "skills_note": prompt.skills.note,
        "totals": {
            "stable_chars": len(prompt.stable),
            "volatile_chars": len(prompt.volatile),
            "stable_tokens": token_count(prompt.stable, model),
            "volatile_tokens": token_count(prompt.volatile, model),
            "stable_share": round(len(prompt.stable) / total, 4) if total else 0.0,
            "files_raw_chars": sum(f.raw_chars for f in prompt.files),
            "files_injected_chars": sum(f.injected_chars for f in prompt.files),
        },
        "heartbeat": {"skip": prompt.heartbeat_skip},
        "settings": dict(prompt.settings),
        "warnings": list(prompt.warnings),
    }


def token_count(text: str, model: str | None = None) -> int:
    """Tokens as the report labels them for `model` (None: o200k), bytes / 4 without the extra."""
    return tokens.count_for(text, model)


def _file(f) -> dict[str, Any]:
    return {
        "name": f.name,
        "status": f.status,
        "reason": f.reason,
        "raw_chars": f.raw_chars,
        "injected_chars": f.injected_chars,
        "frontmatter": f.frontmatter is not None,
    }


def format_text(prompt: Prompt, detail: bool = False) -> str:
    """A readable report: files, sides, skills; `detail` adds every section and skill."""
    data = report(prompt)
    lines = [f"Context for agent {prompt.agent}, session {prompt.session}, mode {prompt.mode}"]
    lines.append(f"Tokens: {data['tokens']['method']}")
    lines += ["", *_files_table(data)]
    lines += ["", *_sides(data)]
    if detail:
        lines += ["", *_sections_table(data)]
    lines += ["", *_skills(data, detail)]
    lines += ["", f"Heartbeat: {'skip (HEARTBEAT.md is effectively empty)' if prompt.heartbeat_skip else 'run'}"]
    lines += ["", *_settings(data["settings"])]
    if prompt.warnings:
        lines += ["", "Warnings:", *(f"  - {w}" for w in prompt.warnings)]
    return "\n".join(lines) + "\n"


def _files_table(data: dict[str, Any]) -> list[str]:
    rows = [("file", "status", "raw", "injected", "note")]
    for f in data["files"]:
        note = ", ".join(filter(None, [f["reason"], "frontmatter stripped" if f["frontmatter"] else None]))
        rows.append((f["name"], f["status"], str(f["raw_chars"]), str(f["injected_chars"]), note))
    totals = data["totals"]
    rows.append(("total", "", str(totals["files_raw_chars"]), str(totals["files_injected_chars"]), ""))
    s = data["settings"]
    budget = f"budget {s['bootstrapMaxChars']} per file, {s['bootstrapTotalMaxChars']} in total"
    return [f"Bootstrap files (chars; {budget}):", *_table(rows, right={2, 3})]


def _sides(data: dict[str, Any]) -> list[str]:
    t = data["totals"]
    share = t["stable_share"] * 100
    return [
        "Prompt:",
        f"  stable    {t['stable_chars']:>8} chars  {t['stable_tokens']:>7} tokens  ({share:.1f}% of the prompt, cacheable)",
        f"  volatile  {t['volatile_chars']:>8} chars  {t['volatile_tokens']:>7} tokens  ({100 - share:.1f}%)",
    ]


def _sections_table(data: dict[str, Any]) -> list[str]:
    rows = [("section", "side", "chars", "tokens")]
    rows += [(s["id"], s["side"], str(s["chars"]), str(s["tokens"])) for s in data["sections"]]
    return ["Sections:", *_table(rows, right={2, 3})]


def _skills(data: dict[str, Any], detail: bool) -> list[str]:
    skills = data["skills"]
    listed = sum(1 for s in skills if s["included"])
    lines = [f"Skills: {listed} listed, {len(skills) - listed} not listed"]
    if data["skills_note"]:
        lines.append(f"  note: {data['skills_note']}")
    if detail:
        for s in skills:
            lines.append(f"  {'+' if s['included'] else '-'} {s['name']}" + (f" ({s['reason']})" if s["reason"] else ""))
    return lines


def _settings(settings: dict[str, Any]) -> list[str]:
    limits = ", ".join(f"{k}={v}" for k, v in sorted(settings["contextLimits"].items())) or "none set"
    return [
        f"Truncation notice: {settings['bootstrapPromptTruncationWarning']}",
        f"Time format (reported only): {settings['timeFormat']}",
        f"Context limits (reported only): {limits}",
    ]


def _table(rows: Sequence[tuple[str, ...]], right: set[int]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.rjust(widths[i]) if i in right else cell.ljust(widths[i]) for i, cell in enumerate(row)]
        out.append("  " + "  ".join(cells).rstrip())
    return out


def section_list(prompt: Prompt) -> str:
    """One line per section in catalogue order: rendered or omitted, and why (`--list-sections`)."""
    chars = {s.id: f"{s.side}, {len(s.text)} chars" for s in prompt.sections}
    width = max(len(section_id) for section_id, _, _ in prompt.outline)
    lines = []
    for section_id, rendered, why in prompt.outline:
        state = "active" if rendered else "inactive"
        detail = f"{why}; {chars[section_id]}" if rendered else why
        lines.append(f"{section_id:<{width}}  {state:<8}  {detail}\n")
    return "".join(lines)
