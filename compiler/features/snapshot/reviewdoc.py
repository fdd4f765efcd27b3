"""The review report as a document: Markdown that fits a pull-request comment (a summary table,
then one collapsed `<details>` block per changed scenario), or one self-contained HTML page."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from ..._lib.text import plural
from ...inputs.pricing import ANTHROPIC, RULE_SETS, shown
from . import cost, worddiff
from .drift import Check
from .review import Cost, Count, Review, ScenarioReview, build

DIFF_LINES = 60
"""A changed file's word diff is cut after this many lines."""
MAX_MARKDOWN = 60_000
"""Characters a Markdown report may take (a GitHub comment holds 65,536): past this, the word
diffs of the last scenarios are left out, the rest of their review kept."""
TITLE = "promptc snapshot review"
LEGEND = "`[-removed-]` `{+added+}`"


def document(root: Path, result: Check, path: Path) -> str:
    """The review of `result` in the format `path`'s suffix names (REPORT_FORMATS)."""
    return REPORT_FORMATS[path.suffix.lower()](build(root, result))


# --------------------------------------------------------------------------- words shared by both


def headline(review: Review) -> str:
    """`3 of 11 scenarios changed; 1 of 24 expectations failed.`"""
    total = len(review.scenarios) + len(review.unchanged)
    changed = sum(1 for s in review.scenarios if s.changes)
    text = f"{changed:,} of {plural(total, 'scenario')} changed"
    if review.expectations:
        text += f"; {review.failures:,} of {plural(review.expectations, 'expectation')} failed"
    return text + "."


def _number(value: int | float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f}"


def _change(before: int | float | None, after: int | float | None) -> str:
    if before is None or after is None:
        return ""
    delta = after - before
    return "0" if round(delta) == 0 else f"{delta:+,.0f}"


def _before_after(before: int | float | None, after: int | float | None) -> str:
    change = _change(before, after)
    return f"{_number(before)} -> {_number(after)}" + (f" ({change})" if change else "")


def _money_change(priced: Cost) -> str:
    """The cost's change in money (`+$0.0123`), or its amount for a new scenario."""
    before, after = priced.money(priced.before), priced.money(priced.after)
    assert after is not None
    if before is None:
        return shown(after, priced.currency)
    delta = after - before
    sign = "-" if round(delta, 4) < 0 else "+"
    return sign + shown(abs(delta), priced.currency) if round(delta, 4) else shown(0.0, priced.currency)


def cost_cell(scenario: ScenarioReview) -> str:
    """The summary table's cost column: the change in base input tokens and in money."""
    priced = scenario.cost
    units = _change(priced.before, priced.after) or _number(priced.after)
    return f"{units} ({_money_change(priced)})"


def tiers_cell(scenario: ScenarioReview) -> str:
    """`tier 1 invalidated`, `tiers 2-3 invalidated`, `none invalidated`."""
    found = scenario.invalidated
    if not found:
        return "none invalidated"
    if len(found) == 1:
        return f"tier {found[0]} invalidated"
    return f"tiers {found[0]}-{found[-1]} invalidated"


def summary_line(scenario: ScenarioReview) -> str:
    """What a scenario's collapsed block says before it is opened."""
    if scenario.tiers:
        more = len(scenario.tiers) - 1
        return scenario.tiers[0] + (f" (and {plural(more, 'more tier')})" if more else "")
    if scenario.changes:
        return "the volatile part or the report changed; no cache tier invalidated"
    return f"{plural(len(scenario.failures), 'expectation')} failed"


def cost_sentence(scenario: ScenarioReview) -> str:
    priced = scenario.cost
    rules = priced.rules + (" rules, assumed for this provider" if priced.assumed else " rules")
    text = f"Cost per {cost.TURNS:,} turns ({rules}): {_before_after(priced.before, priced.after)} base input tokens"
    before, after = priced.money(priced.before), priced.money(priced.after)
    assert after is not None
    money = (
        shown(after, priced.currency)
        if before is None
        else f"{shown(before, priced.currency)} -> {shown(after, priced.currency)}"
    )
    text += f" ({money} at the model's {shown(priced.price.input, priced.currency, 2)} per million input tokens)"
    if priced.rewrite:
        text += f", of which {priced.rewrite:,.0f} writes the invalidated tiers again, once"
    if not priced.cached:
        text += "; the stable part is not cached (too short for the model's minimum, or sent with no breakpoint)"
    return text + "."


def assumptions() -> str:
    rules = "; ".join(f"{r.name}: {r.notes[0]}" for r in RULE_SETS.values() if r.notes)
    return (
        f"Costs are in base input tokens (what one uncached input token costs) for {cost.TURNS:,} warm turns:"
        " each reads the cached stable part and sends the volatile part uncached; the first turn after the"
        f" change writes the invalidated tiers again. Money is at each scenario's model's prices in"
        f" templates/pricing.yaml as of {ANTHROPIC.as_of} ({ANTHROPIC.currency}). Rules: {rules}."
    )


def _files_line(scenario: ScenarioReview) -> tuple[str, str]:
    return ", ".join(scenario.sections) or "none", ", ".join(scenario.files) or "none"


def _diff_lines(
    hunks: tuple[worddiff.Hunk, ...],
    mark: Callable[[str, str], str],
    header: Callable[[str], str],
    keep: Callable[[str], str] = str,
) -> list[str]:
    return worddiff.shortened(list(worddiff.render(hunks, mark, header, keep)), DIFF_LINES)


# --------------------------------------------------------------------------- Markdown

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<|#])")


def _md(text: str) -> str:
    """Text that Markdown shows as written (in a table cell too)."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


def markdown(review: Review) -> str:
    """The report as Markdown for a pull-request comment."""
    lines = [f"## {TITLE}", "", f"**{_md(headline(review))}**", ""]
    if review.scenarios:
        lines += [
            "| scenario | stable tokens | volatile tokens | cache | cost change per 1,000 turns |",
            "|---|---:|---:|---|---:|",
        ]
        lines += [_md_row(s) for s in review.scenarios]
        lines.append("")
    lines += [f"- stale output (no scenario generates it): `{rel}`" for rel in review.stale]
    budget = MAX_MARKDOWN - _size(lines) - 2_000
    for position, scenario in enumerate(review.scenarios):
        block = _md_block(scenario, share=budget // (len(review.scenarios) - position))
        budget -= _size(block)
        lines += block
    if review.unchanged:
        lines += ["", "Unchanged: " + ", ".join(f"`{name}`" for name in review.unchanged) + "."]
    lines += ["", f"<sub>{_md(assumptions())}</sub>", ""]
    return "\n".join(lines)


def _md_row(scenario: ScenarioReview) -> str:
    counts = {c.name: c for c in scenario.counts}
    stable, volatile = counts["stable part"], counts["volatile part"]
    cells = [
        f"`{scenario.name}`",
        _before_after(stable.before, stable.after),
        _before_after(volatile.before, volatile.after),
        tiers_cell(scenario),
        cost_cell(scenario),
    ]
    return "| " + " | ".join(cells) + " |"


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _md_block(scenario: ScenarioReview, share: int) -> list[str]:
    """A scenario's collapsed block, its word diffs cut to keep the block within `share` characters."""
    sections, files = _files_line(scenario)
    summary = f"<summary><b>{scenario.name}</b>: {html_lib.escape(summary_line(scenario))}</summary>"
    lines = ["", "<details>", summary, ""]
    lines += [f"**Sections changed:** {_md(sections)}  ", f"**Files changed:** {_md(files)}", ""]
    if scenario.failures:
        lines += ["**Expectations that fail:**", *(f"- {_md(failure.line())}" for failure in scenario.failures), ""]
    lines += _md_counts(scenario.counts, scenario.method)
    lines += [*(f"- {_md(line)}" for line in scenario.tiers), "", _md(cost_sentence(scenario)), ""]
    changes = scenario.changes
    for position, change in enumerate(changes):
        if change.state != "changed":
            lines += [f"**`{change.name}`**: {'new file' if change.state == 'new' else 'no longer generated'}", ""]
            continue
        allowance = (share - _size(lines)) // (len(changes) - position)
        lines += _md_diff(change.name, change.hunks, allowance)
    return [*lines, "</details>"]


def _md_counts(counts: tuple[Count, ...], method: str) -> Iterator[str]:
    yield f"| tokens ({_md(method)}) | before | after | change |"
    yield "|---|---:|---:|---:|"
    for count in counts:
        yield f"| {count.name} | {_number(count.before)} | {_number(count.after)} | {_change(count.before, count.after)} |"
    yield ""


MIN_DIFF = 400
"""Characters below which a word diff is left out of the Markdown rather than cut to nothing."""


def _md_diff(name: str, hunks: tuple[worddiff.Hunk, ...], allowance: int) -> list[str]:
    """A file's word diff in a fenced block: at most DIFF_LINES lines and about `allowance`
    characters, the cut counted on a last line."""
    if allowance < MIN_DIFF:
        return [f"**`{name}`** changed (word diff left out: the report would not fit in a comment).", ""]
    body = list(worddiff.render(hunks, worddiff.plain_mark, str))
    kept: list[str] = []
    for line in body[:DIFF_LINES]:
        if _size([*kept, line]) > allowance - MIN_DIFF // 2:
            break
        kept.append(line)
    if len(kept) < len(body):
        more = len(body) - len(kept)
        kept.append(f"... ({more:,} more diff {'line' if more == 1 else 'lines'})")
    fence = "`" * max(3, 1 + max((len(run) for line in kept for run in re.findall(r"`+", line)), default=0))
    return [f"**`{name}`** (word diff: {LEGEND})", f"{fence}text", *kept, fence, ""]


# --------------------------------------------------------------------------- HTML

_STYLE = """
body { font: 15px/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; color: #1b1b1b; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #bbb; padding: 0.2rem 0.5rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f5f5f5; padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; }
del { background: #ffd7d5; color: #82071e; }
ins { background: #ccffd8; color: #055d20; }
summary { cursor: pointer; }
.wrap { overflow-x: auto; }
"""


def _e(text: object) -> str:
    return html_lib.escape(str(text), quote=True)


def html(review: Review) -> str:
    """The report as one self-contained HTML page (no scripts, no external resources)."""
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{TITLE}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n<main>",
        f"<h1>{TITLE}</h1>\n<p><strong>{_e(headline(review))}</strong></p>",
    ]
    if review.scenarios:
        head = _header_row("scenario", "stable tokens", "volatile tokens", "cache", "cost change per 1,000 turns")
        rows = "".join(_html_row(s) for s in review.scenarios)
        parts.append(f'<div class="wrap"><table>{head}{rows}</table></div>')
    parts += [f"<p>Stale output (no scenario generates it): <code>{_e(rel)}</code></p>" for rel in review.stale]
    parts += [_html_block(s) for s in review.scenarios]
    if review.unchanged:
        parts.append(f"<p>Unchanged: {_e(', '.join(review.unchanged))}.</p>")
    parts += [f"<p><small>{_e(assumptions())}</small></p>", "</main>\n</body>\n</html>\n"]
    return "\n".join(parts)


def _header_row(*names: str) -> str:
    return "<tr>" + "".join(f'<th scope="col">{_e(name)}</th>' for name in names) + "</tr>"


def _html_row(scenario: ScenarioReview) -> str:
    counts = {c.name: c for c in scenario.counts}
    stable, volatile = counts["stable part"], counts["volatile part"]
    priced = cost_cell(scenario)
    cells = [
        f"<td><code>{_e(scenario.name)}</code></td>",
        f'<td class="n">{_e(_before_after(stable.before, stable.after))}</td>',
        f'<td class="n">{_e(_before_after(volatile.before, volatile.after))}</td>',
        f"<td>{_e(tiers_cell(scenario))}</td>",
        f'<td class="n">{_e(priced)}</td>',
    ]
    return "<tr>" + "".join(cells) + "</tr>"


def _html_block(scenario: ScenarioReview) -> str:
    sections, files = _files_line(scenario)
    parts = [f"<details>\n<summary><strong>{_e(scenario.name)}</strong>: {_e(summary_line(scenario))}</summary>"]
    parts.append(f"<h2>{_e(scenario.name)}</h2>")
    parts.append(f"<p>Sections changed: {_e(sections)}<br>Files changed: {_e(files)}</p>")
    if scenario.failures:
        items = "".join(f"<li>{_e(failure.line())}</li>" for failure in scenario.failures)
        parts.append(f"<p>Expectations that fail:</p><ul>{items}</ul>")
    rows = "".join(
        f'<tr><td>{_e(c.name)}</td><td class="n">{_number(c.before)}</td><td class="n">{_number(c.after)}</td>'
        f'<td class="n">{_e(_change(c.before, c.after))}</td></tr>'
        for c in scenario.counts
    )
    head = _header_row(f"tokens ({scenario.method})", "before", "after", "change")
    parts.append(f'<div class="wrap"><table>{head}{rows}</table></div>')
    if scenario.tiers:
        parts.append("<ul>" + "".join(f"<li>{_e(line)}</li>" for line in scenario.tiers) + "</ul>")
    parts.append(f"<p>{_e(cost_sentence(scenario))}</p>")
    for change in scenario.changes:
        if change.state != "changed":
            parts.append(
                f"<p><code>{_e(change.name)}</code>: {'new file' if change.state == 'new' else 'no longer generated'}</p>"
            )
            continue
        body = "\n".join(_diff_lines(change.hunks, _html_mark, _html_header, _e))
        parts.append(f"<h3><code>{_e(change.name)}</code> (word diff)</h3>\n<pre>{body}</pre>")
    parts.append("</details>")
    return "\n".join(parts)


def _html_mark(kind: str, text: str) -> str:
    tag = "del" if kind == worddiff.REMOVED else "ins"
    return f"<{tag}>{_e(text)}</{tag}>"


def _html_header(text: str) -> str:
    return f"<strong>{_e(text)}</strong>"


REPORT_FORMATS: dict[str, Callable[[Review], str]] = {
    ".md": markdown,
    ".markdown": markdown,
    ".html": html,
    ".htm": html,
}
"""Report file suffixes and the renderer each names."""
