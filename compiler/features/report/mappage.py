"""The prompt map (`promptc report`, `promptc context --html`): one self-contained HTML page that
draws every section and workspace file as a block sized by its tokens, split at the cache
boundary and coloured by cache tier, with what was cut, what is left out and why, and the skills."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..._lib.text import plural
from ...emit import context
from ...model.config import duration
from ...model.prompt import Prompt
from .blocks import BOUNDARY, STABLE, VOLATILE, Block, PromptMap, build
from .htmlkit import detail, esc, num, table, tier_class, tier_name
from .htmlkit import page as html_page
from .skillpart import skills_part

MAX_SQUARES = 1200
"""About how many squares the whole map may use; each stands for a round number of tokens."""
SCALES = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000)
"""The token counts one square may stand for, smallest first."""


def page(prompt: Prompt, read: context.ReadFrom) -> str:
    """The prompt map of a compiled prompt, as a whole HTML document."""
    prompt_map = build(prompt, read)
    title = f"Prompt map: agent {prompt.agent}, {prompt.session} session, {prompt.mode} mode"
    body = _header(prompt_map, title) + "<main>" + _map_part(prompt_map) + _blocks_part(prompt_map)
    body += _cut_part(prompt_map) + _left_out_part(prompt) + skills_part(prompt) + _warnings_part(prompt) + "</main>"
    return html_page(title, body)


def scale(total: int) -> int:
    """Tokens per square: the smallest of SCALES that keeps the map within MAX_SQUARES."""
    return next((s for s in SCALES if total / s <= MAX_SQUARES), SCALES[-1])


# --------------------------------------------------------------------------- header


def _header(m: PromptMap, title: str) -> str:
    facts = (
        ("Workspace", m.read.shown_workspace),
        ("Config", m.read.shown_config),
        ("Model", m.prompt.model or "not given"),
        ("Tokens", m.method),
    )
    inputs = "".join(f"<dt>{name}</dt><dd>{esc(value)}</dd>" for name, value in facts)
    stable, marker, volatile = (m.side_tokens(side) for side in (STABLE, BOUNDARY, VOLATILE))
    share = f" ({stable / m.total:.1%})" if m.total else ""
    totals = [
        f'<li>Whole prompt: <b data-total="prompt">{num(m.total)}</b> tokens</li>',
        f'<li>Above the boundary, cacheable: <b data-total="stable">{num(stable)}</b>{share}</li>',
        f'<li>Boundary marker: <b data-total="boundary">{num(marker)}</b></li>' if m.prompt.boundary else "",
        f'<li>Below the boundary: <b data-total="volatile">{num(volatile)}</b></li>',
        f"<li>{_tiers_line(m)}</li>",
    ]
    return (
        f"<header><h1>{esc(title)}</h1>"
        f'<dl class="inputs">{inputs}</dl><ul class="totals">{"".join(totals)}</ul></header>'
    )


def _tiers_line(m: PromptMap) -> str:
    count = len(m.tiers)
    line = plural(count, "cache tier")
    if not m.prompt.breakpoints:
        return line + "; this session kind is sent without breakpoints (prompt.cache.uncachedSessions)"
    if m.breakpoints != count:
        line += f", sent as {plural(m.breakpoints, 'breakpoint')} (a tier too short to cache joins the next)"
    if warm := m.prompt.keep_warm:
        line += f"; kept warm by a ping every {duration(warm.every)}, for up to {duration(warm.window)} idle"
    return line


# --------------------------------------------------------------------------- the map


def _map_part(m: PromptMap) -> str:
    per = scale(m.total)
    intro = (
        f"<p>Each square stands for about {plural(per, 'token')}; every block has at least one. "
        "Blocks run in prompt order, a dark edge where each begins. Select a block to see its text and where it "
        "comes from.</p>"
    )
    lanes = "".join(_lane(m, tier, side, blocks, per) for tier, side, blocks in _lanes(m.blocks))
    aside = (
        '<aside class="details" aria-label="Selected block"><p class="hint">Select a block on the map or in the '
        "table to see its text here.</p>" + "".join(_block_detail(m, i, b) for i, b in enumerate(m.blocks)) + "</aside>"
    )
    return (
        '<section aria-labelledby="map-h"><h2 id="map-h">Where the tokens go</h2>'
        f'{intro}{_legend(m)}<div class="layout"><div class="map">{lanes}</div>{aside}</div></section>'
    )


def _legend(m: PromptMap) -> str:
    items = [
        f'<li><span class="sw {tier_class(t.index)}" aria-hidden="true"></span>Tier {t.index}: cached for {t.ttl}, '
        f"{num(t.tokens)} tokens</li>"
        for t in m.tiers
    ]
    items.append('<li><span class="sw tu" aria-hidden="true"></span>Uncached: sent again on every turn</li>')
    if any(b.cut_at is not None for b in m.blocks):
        items.append('<li><span class="sw cut" aria-hidden="true"></span>Cut point of a truncated file</li>')
    return f'<ul class="legend" aria-label="Legend">{"".join(items)}</ul>'


def _lanes(blocks: tuple[Block, ...]) -> Iterator[tuple[int | None, str, list[tuple[int, Block]]]]:
    """Runs of blocks that share a lane: a tier above the boundary, the marker, the part below."""

    def lane(item: tuple[int, Block]) -> tuple[int | None, str]:
        block = item[1]
        return (block.tier if block.side == STABLE else None, block.side)

    for (tier, side), run in itertools.groupby(enumerate(blocks), key=lane):
        yield tier, side, list(run)


def _lane(m: PromptMap, tier: int | None, side: str, blocks: list[tuple[int, Block]], per: int) -> str:
    tokens = sum(b.tokens for _, b in blocks)
    if side == BOUNDARY:
        index, block = blocks[0]
        return (
            f'<div class="boundary" role="separator" data-side="{side}" data-lane-tokens="{tokens}">'
            f'<a href="#b{index}" class="marker" data-tokens="{block.tokens}">Cache boundary '
            f"({plural(block.tokens, 'token')})</a></div>"
        )
    heading = _lane_heading(m, tier, side, blocks, tokens)
    squares = "".join(_block_link(index, block, per) for index, block in blocks)
    chips = "".join(
        f'<li><a href="#b{index}">{esc(block.label)}</a> {num(block.tokens)}</li>' for index, block in blocks
    )
    return (
        f'<section class="lane" data-side="{side}" data-lane-tokens="{tokens}" aria-label="{esc(heading)}">'
        f'<h3>{esc(heading)}</h3><p class="squares">{squares}</p>'
        f'<ul class="chips" aria-label="Blocks of this lane, with their tokens">{chips}</ul></section>'
    )


def _lane_heading(m: PromptMap, tier: int | None, side: str, blocks: list[tuple[int, Block]], tokens: int) -> str:
    count = plural(len(blocks), "block")
    if side == STABLE and tier is not None:
        ttl = next(t.ttl for t in m.tiers if t.index == tier)
        return f"Tier {tier}, cached for {ttl}: {num(tokens)} tokens in {count}"
    if side == STABLE:
        return f"Above the boundary, in no cache tier: {num(tokens)} tokens in {count}"
    cached = [b for _, b in blocks if b.tier is not None]
    also = f"; {cached[0].label} is cached with tier {cached[0].tier}" if cached else ""
    return f"Below the boundary, sent on every turn: {num(tokens)} tokens in {count}{also}"


def _block_link(index: int, block: Block, per: int) -> str:
    count = max(1, round(block.tokens / per))
    cut = None if block.cut_at is None else min(count - 1, block.cut_at * count // max(1, len(block.text)))
    squares = "".join('<i class="cut"></i>' if i == cut else "<i></i>" for i in range(count))
    label = _block_label(block)
    return (
        f'<a href="#b{index}" class="blk {tier_class(block.tier)}" data-tokens="{block.tokens}" '
        f'title="{esc(label)}" aria-label="{esc(label)}">{squares}</a>'
    )


def _block_label(block: Block) -> str:
    cut = ", truncated" if block.file is not None and block.file.status == "truncated" else ""
    return f"{block.label}: {block.kind}, {tier_name(block.tier)}, {plural(block.tokens, 'token')}{cut}"


WHAT = {"section": "the section", "file": "the workspace file"}
"""How a block's details name its kind, before its id or file name."""


def _block_detail(m: PromptMap, index: int, block: Block) -> str:
    rows = [("What", _what(block)), ("Where", _where(m, block))]
    rows += [
        ("Size", f"{num(block.tokens)} tokens, {num(len(block.text))} characters"),
        ("Source", f"<code>{esc(block.source)}</code>"),
    ]
    if block.file is not None:
        rows.append(("File", esc(_file_fate(block))))
    facts = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows)
    return detail(f"b{index}", esc(block.label), f'<dl class="inputs">{facts}</dl><pre>{_shown_text(block)}</pre>')


def _what(block: Block) -> str:
    if block.side == BOUNDARY:
        return "the cache boundary marker"
    return f"{WHAT[block.kind]} <code>{esc(block.key.split(':', 1)[-1])}</code>"


def _where(m: PromptMap, block: Block) -> str:
    if block.side == BOUNDARY:
        return "between the cached part and the per-turn part (provider payloads leave it out)"
    side = "above the cache boundary" if block.side == STABLE else "below the cache boundary"
    ttl = next((t.ttl for t in m.tiers if t.index == block.tier), None)
    return f"{side}, " + (f"in tier {block.tier}, cached for {ttl}" if ttl else "sent uncached on every turn")


def _file_fate(block: Block) -> str:
    file = block.file
    assert file is not None
    if file.status == "missing":
        return "not in the workspace: a marker line stands in for it"
    if file.status != "truncated":
        return f"injected whole: {num(file.injected_chars)} characters"
    kept = f"cut from {num(file.raw_chars)} to {num(file.injected_chars)} characters ({file.reason})"
    return kept + ("; the cut-marker line is highlighted" if block.cut_at is not None else "")


def _shown_text(block: Block) -> str:
    """The block's text, a cut file's marker line highlighted."""
    if block.cut_at is None:
        return esc(block.text)
    end = block.text.find("\n", block.cut_at)
    end = len(block.text) if end < 0 else end
    head, marker, tail = block.text[: block.cut_at], block.text[block.cut_at : end], block.text[end:]
    return f"{esc(head)}<mark>{esc(marker)}</mark>{esc(tail)}"


# --------------------------------------------------------------------------- tables


def _blocks_part(m: PromptMap) -> str:
    biggest = max((b.tokens for b in m.blocks), default=1) or 1
    rows = [
        (
            str(index + 1),
            f'<a href="#b{index}">{esc(b.label)}</a>',
            b.kind,
            {STABLE: "above", BOUNDARY: "marker", VOLATILE: "below"}[b.side],
            tier_name(b.tier),
            num(b.tokens),
            num(len(b.text)),
            f'<span class="bar {tier_class(b.tier)}" style="width:{max(1, round(8 * b.tokens / biggest))}rem" '
            'aria-hidden="true"></span>',
        )
        for index, b in enumerate(m.blocks)
    ]
    head = ("#", "block", "kind", "boundary", "cache", "tokens", "characters", "size")
    return (
        '<section aria-labelledby="blocks-h"><h2 id="blocks-h">Every block in prompt order</h2>'
        + table("The map as a table: each block, its side of the boundary, its tier and size", head, rows, (0, 5, 6))
        + "</section>"
    )


def _cut_part(m: PromptMap) -> str:
    first: dict[str, int] = {}
    for index, block in enumerate(m.blocks):
        if block.file is not None:
            first.setdefault(block.file.name, index)
    cut = [f for f in m.prompt.files if f.status in ("truncated", "dropped", "skipped")]
    if not cut:
        return '<section aria-labelledby="cut-h"><h2 id="cut-h">Cut files</h2><p>No file was cut.</p></section>'
    rows = [
        (
            f'<a href="#b{first[f.name]}">{esc(f.name)}</a>' if f.name in first else esc(f.name),
            f.status,
            num(f.raw_chars),
            num(f.injected_chars),
            f"{f.injected_chars / f.raw_chars:.0%}" if f.raw_chars else "",
            esc(f.reason or ""),
        )
        for f in cut
    ]
    head = ("file", "status", "characters in the file", "injected", "kept", "why")
    return (
        '<section aria-labelledby="cut-h"><h2 id="cut-h">Cut files</h2>'
        + table("Files the budgets cut, dropped or refused", head, rows, (2, 3, 4))
        + "</section>"
    )


def _left_out_part(prompt: Prompt) -> str:
    sections = [r for r in context.section_rows(prompt) if not r["active"]]
    section_rows = [
        (esc(r["id"]), str(r["order"]), esc(r["why"]), f"<code>{esc(r['source'])}</code>") for r in sections
    ]
    files = prompt.filtered_files
    file_rows = [(esc(f.name), f.status, num(f.raw_chars), esc(f.reason or "")) for f in files]
    parts = ['<section aria-labelledby="out-h"><h2 id="out-h">Not in this prompt</h2>']
    parts.append(
        table(
            f"{plural(len(sections), 'section')} left out",
            ("section", "order", "why", "source"),
            section_rows,
            (1,),
        )
        if sections
        else "<p>Every section of the catalogue is in the prompt.</p>"
    )
    parts.append(
        table(
            f"{plural(len(files), 'file')} left out by a filter",
            ("file", "status", "characters", "why"),
            file_rows,
            (2,),
        )
        if files
        else "<p>No filter left a bootstrap file out.</p>"
    )
    return "".join(parts) + "</section>"


def _warnings_part(prompt: Prompt) -> str:
    if not prompt.warnings:
        return '<section aria-labelledby="warn-h"><h2 id="warn-h">Warnings</h2><p>None.</p></section>'
    items = "".join(f"<li>{esc(w)}</li>" for w in prompt.warnings)
    return f'<section aria-labelledby="warn-h"><h2 id="warn-h">Warnings</h2><ul>{items}</ul></section>'
