"""`promptc context`: what went into the prompt, file by file and section by section."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import tiers as cache_tiers
from .._lib.errors import one_line
from .._lib.frozen import thaw
from .._lib.text import plural
from ..model.prompt import Prompt
from ..model.request import Request
from ..model.workspace import ContextFile
from . import payloads, tokens
from .inventory import every_file, skills_summary


@dataclass(frozen=True, slots=True)
class ReadFrom:
    """Where a compile's inputs were read from, for a report's header."""

    workspace: str | None
    """The directory the bootstrap files were read from; None when none were (none mode)."""
    config_files: tuple[str, ...]
    """The `--config` files (and `<stdin>`), lowest precedence first; the built-in defaults lie under them."""
    overrides: int
    """How many `--set KEY=VALUE` overrides were laid over them."""
    workspace_reason: str | None = None
    """Why that directory: `--workspace`, the config key that named it, or whose default."""

    @property
    def shown_workspace(self) -> str:
        """The workspace as a report names it, with why when known."""
        if not self.workspace:
            return "none read (none mode reads no workspace)"
        return f"{self.workspace} ({self.workspace_reason})" if self.workspace_reason else self.workspace

    @property
    def shown_config(self) -> str:
        """The config files and overrides as a report names them, lowest first."""
        shown = (
            f"{', '.join(self.config_files)} over the built-in defaults"
            if self.config_files
            else "the built-in defaults"
        )
        return shown + (f", then {plural(self.overrides, '--set override')}" if self.overrides else "")

    def lines(self) -> list[str]:
        """`Workspace: DIR` and `Config: ...`, as the text report's header shows them."""
        return [f"Workspace: {self.shown_workspace}", f"Config: {self.shown_config}"]


def read_from(request: Request, prompt: Prompt) -> ReadFrom:
    """The workspace and config files `prompt` was compiled from (`request` made it)."""
    files = every_file(prompt)
    workspace = str(Path(files[0].path).parent) if files else None
    labels = tuple(str(path) for path in request.config_paths) + tuple(layer.label for layer in request.config_layers)
    return ReadFrom(workspace, labels, len(request.overrides), (prompt.workspace_reason or None) if workspace else None)


def report(prompt: Prompt, *, section_tokens: bool = True) -> dict[str, Any]:
    """The context report as plain data (the `--format json` document). `section_tokens=False`
    leaves out each section's token count (the text report shows them only with `--detail`;
    counting is most of what the report costs)."""
    chosen = tokens.method(prompt.model)
    exact = chosen.exact and tokens.count("", chosen.encoding) is not None
    total = len(prompt.stable) + len(prompt.volatile)
    model = prompt.model
    return {
        "agent": prompt.agent,
        "session": prompt.session,
        "mode": prompt.mode,
        "tokens": {"method": tokens.describe(model), "exact": exact},
        "files": [_file(f, model) for f in every_file(prompt)],
        "sections": [
            {
                "id": s.id,
                "side": s.side,
                "chars": len(s.text),
                **({"tokens": token_count(s.text, model)} if section_tokens else {}),
            }
            for s in prompt.sections
        ],
        "skills": [{"name": e.name, "included": e.included, "reason": e.reason} for e in prompt.skills.entries],
        "skills_note": prompt.skills.note,
        "skills_format": "compact" if prompt.skills.compact else "full",
        "skills_bundled": prompt.skills.bundled,
        "skills_summary": skills_summary(prompt),
        "variables": [
            {"name": v.name, "side": v.side, "value": thaw(v.value), "origin": v.origin} for v in prompt.variables
        ],
        "totals": {
            "stable_chars": len(prompt.stable),
            "volatile_chars": len(prompt.volatile),
            "stable_tokens": token_count(prompt.stable, model),
            "volatile_tokens": token_count(prompt.volatile, model),
            "stable_share": round(len(prompt.stable) / total, 4) if total else 0.0,
            "files_raw_chars": sum(f.raw_chars for f in every_file(prompt)),
            "files_injected_chars": sum(f.injected_chars for f in prompt.files),
        },
        "heartbeat": {"skip": prompt.heartbeat_skip, "message": prompt.heartbeat_message},
        "cache_merges": [dataclasses.asdict(m) for m in cache_merges(prompt)],
        "keep_warm": prompt.keep_warm.as_data() if prompt.keep_warm else None,
        "settings": dict(prompt.settings),
        "warnings": list(prompt.warnings),
    }


def cache_merges(prompt: Prompt) -> tuple[cache_tiers.Merge, ...]:
    """The tiers too short for the model's cache, joined to a later tier's breakpoint in the
    Anthropic and Bedrock payloads (none when the session kind is sent uncached)."""
    return cache_tiers.merges(prompt.tiers, cache_tiers.min_tokens(prompt.model)) if prompt.breakpoints else ()


def token_count(text: str, model: str | None = None) -> int:
    """Tokens as the report labels them for `model` (None: o200k), bytes / 4 without the extra."""
    return tokens.count_for(text, model)


def _file(f: ContextFile, model: str | None) -> dict[str, Any]:
    return {
        "name": f.name,
        "status": f.status,
        "reason": f.reason,
        "raw_chars": f.raw_chars,
        "injected_chars": f.injected_chars,
        "tokens": token_count(f.text, model) if f.text else 0,
        "frontmatter": f.frontmatter is not None,
    }


def format_text(prompt: Prompt, detail: bool = False, read: ReadFrom | None = None) -> str:
    """A readable report: where its inputs came from (`read`), files, sides, skills; `detail`
    adds every section and skill."""
    data = report(prompt, section_tokens=detail)
    lines = [f"Context for agent {prompt.agent}, session {prompt.session}, mode {prompt.mode}"]
    lines += read.lines() if read is not None else []
    lines.append(f"Tokens: {data['tokens']['method']}")
    lines += ["", *_files_table(data)]
    lines += ["", *_sides(data)]
    if detail:
        lines += ["", *_sections_table(data)]
    lines += ["", *_skills(data, detail)]
    if data["variables"]:
        lines += ["", *_variables(data)]
    lines += ["", f"Heartbeat: {'skip (HEARTBEAT.md is effectively empty)' if prompt.heartbeat_skip else 'run'}"]
    if prompt.heartbeat_message is not None:
        lines.append(f"Heartbeat message (the turn's input, not in the prompt): {one_line(prompt.heartbeat_message)}")
    if merges := cache_merges(prompt):
        lines += ["", "Cache tiers:", *(f"  {cache_tiers.describe_merge(m, prompt.model)}" for m in merges)]
    if warm := data["keep_warm"]:
        lines += [
            "",
            f"Keep-warm: while the model is idle, a ping every {warm['every']} for up to {warm['window']} after its "
            "last turn (prompt.cache.keepWarm; `promptc render --format anthropic --ping` prints the request)",
        ]
    lines += ["", *_settings(data["settings"])]
    if prompt.warnings:
        lines += ["", "Warnings:", *(f"  - {w}" for w in prompt.warnings)]
    return "\n".join(lines) + "\n"


def _files_table(data: dict[str, Any]) -> list[str]:
    rows = [("file", "status", "raw", "injected", "tokens", "note")]
    for f in data["files"]:
        note = ", ".join(filter(None, [f["reason"], "frontmatter stripped" if f["frontmatter"] else None]))
        rows.append((f["name"], f["status"], str(f["raw_chars"]), str(f["injected_chars"]), str(f["tokens"]), note))
    t, file_tokens = data["totals"], sum(f["tokens"] for f in data["files"])
    rows.append(("total", "", str(t["files_raw_chars"]), str(t["files_injected_chars"]), str(file_tokens), ""))
    s = data["settings"]
    budget = f"budget {s['bootstrapMaxChars']} per file, {s['bootstrapTotalMaxChars']} in total"
    return [
        f"Bootstrap files (raw and injected characters, injected tokens; {budget}):",
        *_table(rows, right={2, 3, 4}),
    ]


def _sides(data: dict[str, Any]) -> list[str]:
    t = data["totals"]
    share = t["stable_share"] * 100
    return [
        "Prompt:",
        f"  stable    {_sized(t['stable_chars'], t['stable_tokens'])}  ({share:.1f}% of the prompt, cacheable)",
        f"  volatile  {_sized(t['volatile_chars'], t['volatile_tokens'])}  ({100 - share:.1f}%)",
    ]


def _sized(chars: int, token_total: int) -> str:
    """`  72984 chars    29400 tokens`, the words agreeing with the counts."""
    return (
        f"{chars:>8} {'char ' if chars == 1 else 'chars'}  {token_total:>7} {'token' if token_total == 1 else 'tokens'}"
    )


def _sections_table(data: dict[str, Any]) -> list[str]:
    rows = [("section", "side", "chars", "tokens")]
    rows += [(s["id"], s["side"], str(s["chars"]), str(s["tokens"])) for s in data["sections"]]
    return ["Sections:", *_table(rows, right={2, 3})]


def _skills(data: dict[str, Any], detail: bool) -> list[str]:
    summary = data["skills_summary"]
    lines = [f"Skills: {summary['found']} SKILL.md found, {summary['eligible']} eligible, {summary['listed']} listed"]
    if data["skills_format"] == "compact":
        lines[0] += " in the compact form (names and locations; descriptions omitted to fit the skills budget)"
    for label, key in (("not listed", "not_listed"), ("not eligible", "ineligible"), ("skipped", "skipped")):
        if summary[key]:
            total = sum(summary[key].values())
            lines.append(f"  {label}: {total} ({', '.join(f'{reason}: {n}' for reason, n in summary[key].items())})")
    if data["skills_bundled"]:
        lines.append(f"  bundled skills: {data['skills_bundled']}")
    if data["skills_note"]:
        lines.append(f"  note: {data['skills_note']}")
    if detail:
        for s in data["skills"]:
            lines.append(
                f"  {'+' if s['included'] else '-'} {s['name']}" + (f" ({s['reason']})" if s["reason"] else "")
            )
    return lines


def _variables(data: dict[str, Any]) -> list[str]:
    rows = [("variable", "side", "value", "from")]
    for v in data["variables"]:
        value = payloads.dumps(v["value"]).strip().replace("\n", " ")
        rows.append((f"vars.{v['name']}", v["side"], value if len(value) <= 40 else value[:37] + "...", v["origin"]))
    return ["User variables:", *_table(rows, right=set())]


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


def section_rows(prompt: Prompt) -> list[dict[str, Any]]:
    """Every section in catalogue order with its fate, order, size, source file and the built-in
    it replaces (`render --list-sections --format json`)."""
    rendered = {s.id: s for s in prompt.sections}
    origins = {o.id: o for o in prompt.section_origins}
    rows = []
    for section_id, active, why in prompt.outline:
        section, origin = rendered.get(section_id), origins.get(section_id)
        rows.append(
            {
                "id": section_id,
                "active": active,
                "why": why,
                "order": origin.order if origin else None,
                "side": section.side if section else None,
                "chars": len(section.text) if section else 0,
                "source": section.source if section else (origin.source if origin else None),
                "overrides": origin.overrides if origin else None,
            }
        )
    return rows


def section_list(prompt: Prompt) -> str:
    """One line per section in catalogue order: rendered or omitted, its order, why, then where
    it comes from (`--list-sections`)."""
    rows = section_rows(prompt)
    width = max(len(row["id"]) for row in rows)
    order_width = max(len(str(row["order"])) for row in rows)
    lines = []
    for row in rows:
        state = "active" if row["active"] else "inactive"
        size = plural(row["chars"], "char")
        detail = f"{row['why']}; {row['side']}, {size}" if row["active"] else row["why"]
        source = f"{row['source']}, overrides {row['overrides']}" if row["overrides"] else row["source"]
        order = f"order {row['order']!s:>{order_width}}"
        lines.append(f"{row['id']:<{width}}  {state:<8}  {order}  {detail}  [{source}]\n")
    return "".join(lines)
