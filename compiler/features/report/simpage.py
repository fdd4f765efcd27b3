"""The cache timeline (`promptc cache simulate --html`): one self-contained HTML page with, per
rule set, every turn's tokens read from the cache, written to it and sent uncached, the cause of
each write, and what the trace costs under each cache layout."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..._lib.text import plural
from ...inputs.pricing import shown
from ...model.request import Request
from ..cache import report
from ..cache.replay import Replay
from ..cache.simulate import CHANGED, EXPIRED, EXPIRED_AND_CHANGED, FIRST_USE, Result, TurnCost
from ..cache.trace import Event
from .htmlkit import detail, esc, num, table
from .htmlkit import page as html_page
from .timeline import Timeline, build

COLUMN, HEIGHT, BAND = 6, 220, 30
"""Chart geometry in SVG units: the width of one turn, the bars' height, the band of write markers above them."""
MIN_PIXELS = 4
"""The narrowest a turn's column is drawn on a screen; a narrower screen scrolls the chart sideways."""
MARKERS: Mapping[str, tuple[str, str]] = {
    EXPIRED: ("circle", "#cf222e"),
    FIRST_USE: ("triangle", "#8250df"),
    CHANGED: ("square", "#bf8700"),
    EXPIRED_AND_CHANGED: ("diamond", "#0a7e8c"),
}
"""Each write cause's marker shape and colour (the shape alone tells them apart)."""
PARTS = (("read", "read from the cache"), ("written", "written to the cache"), ("uncached", "sent uncached"))
"""The three ways a turn's tokens are sent, bottom of a bar first."""


def page(request: Request, events: Sequence[Event], trace_path: Path, replayed: Replay) -> str:
    """The cache timeline of a replayed trace, as a whole HTML document."""
    timeline = build(request, events, trace_path, replayed)
    title = f"Cache timeline: {timeline.trace}"
    body = _header(timeline, title) + "<main>" + _layouts_part(timeline)
    body += "".join(_provider_part(timeline, name, result) for name, result in timeline.results.items())
    return html_page(title, body + "</main>")


def _header(t: Timeline, title: str) -> str:
    doc: Mapping[str, Any] = t.document
    leaks = doc["volatile_fact_changed_stable"]
    facts = (
        ("Trace", t.trace),
        ("Turns", num(doc["turns"])),
        ("Tokens", doc["token_method"]),
        ("Stable part changed by a volatile fact", f"{leaks['count']} of {doc['turns']} turns"),
        ("Prices", _prices(doc)),
    )
    items = "".join(f"<dt>{esc(name)}</dt><dd>{esc(value)}</dd>" for name, value in facts)
    return f'<header><h1>{esc(title)}</h1><dl class="inputs">{items}</dl></header>'


def _prices(doc: Mapping[str, Any]) -> str:
    prices = doc["prices"]
    if not prices:
        return "none (an empty trace)"
    return f"{prices['table']} as of {prices['as_of']} ({prices['currency']}), at each turn's model's prices"


def _money(t: Timeline, amount: float) -> str:
    """An amount in the price table's currency."""
    rules = next(iter(t.results.values()), None)
    return shown(amount, rules.rules.currency if rules else "USD")


# --------------------------------------------------------------------------- layouts compared


def _layouts_part(t: Timeline) -> str:
    names = list(t.results)
    most = max((r.cost for layout in t.layouts for r in layout.results.values()), default=1.0) or 1.0
    rows = []
    for layout in t.layouts:
        cells = [esc(layout.name), "<br>".join(f"<code>--set {esc(o)}</code>" for o in layout.overrides) or "none"]
        for name in names:
            result = layout.results[name]
            ratio = result.cost / result.total_tokens if result.total_tokens else 0.0
            width = max(1, round(10 * result.cost / most))
            cells.append(
                f'<span data-cost="{result.cost:.3f}">{num(result.cost, 1)}</span> units, '
                f'<span data-money="{result.money:.6f}">{_money(t, result.money)}</span> ({ratio:.3f}x, '
                f'{result.cached_share:.1%} cached)<br><span class="bar t1" style="width:{width}rem" aria-hidden="true"></span>'
            )
        rows.append(cells)
    head = ["layout", "made with", *(f"{name}: cost" for name in names)]
    caption = (
        "What the whole trace costs, in base-input token units (sending every token uncached costs the token"
        " count) and in money at each turn's model's prices"
    )
    return (
        '<section aria-labelledby="layouts-h"><h2 id="layouts-h">Cost of each layout</h2>'
        + table(caption, head, rows)
        + "</section>"
    )


# --------------------------------------------------------------------------- one rule set


def _provider_part(t: Timeline, name: str, result: Result) -> str:
    data: Mapping[str, Any] = t.document["providers"][name]  # type: ignore[index]
    totals = "".join(
        f'<li>{esc(label.capitalize())}: <b data-total="{esc(name)}-{key}">{num(getattr(result, key))}</b> tokens</li>'
        for key, label in PARTS
    )
    totals += (
        f'<li>Cost: <b data-total="{esc(name)}-cost">{num(result.cost, 1)}</b> units '
        f"({_money(t, result.money)}) of {num(result.total_tokens)} uncached ({_money(t, result.money_without_cache)})</li>"
    )
    if result.pings:
        totals += (
            f'<li>Keep-warm pings: <b data-total="{esc(name)}-pings">{num(len(result.pings))}</b>, '
            f"{_money(t, result.ping_money)}, in the totals above and not in the turns below</li>"
        )
    notes = "".join(f"<li>{esc(note)}</li>" for note in data["rules"])
    details = "".join(_turn_detail(t, name, index, turn) for index, turn in enumerate(result.turns))
    aside = (
        f'<aside class="details" aria-label="Selected turn under {esc(name)}"><p class="hint">Select a turn on the '
        f"chart or in the table to see what it sent and why.</p>{details}</aside>"
    )
    return (
        f'<section aria-labelledby="{esc(name)}-h"><h2 id="{esc(name)}-h">Under {esc(name)} rules</h2>'
        f'<ul class="note">{notes}</ul><ul class="totals">{totals}</ul>{_legend()}{_chart(t, name, result)}'
        f'<div class="layout"><div>{_causes_table(t, data)}{_writes_table(t, name, result)}</div>{aside}</div></section>'
    )


def _legend() -> str:
    parts = [
        f'<li><span class="sw {cls}" aria-hidden="true"></span>Tokens {label}</li>'
        for cls, (_, label) in zip(("t1", "t3", "tu"), PARTS)
    ]
    parts += [
        f'<li><svg width="16" height="16" viewBox="0 0 10 10" aria-hidden="true">{_marker(shape, colour, 5, 5)}</svg>'
        f"A write: {esc(cause)}</li>"
        for cause, (shape, colour) in MARKERS.items()
    ]
    return f'<ul class="legend" aria-label="Legend">{"".join(parts)}</ul>'


def _chart(t: Timeline, name: str, result: Result) -> str:
    turns = result.turns
    tallest = max((x.read + x.written + x.uncached for x in turns), default=1) or 1
    width = COLUMN * max(1, len(turns))
    columns = "".join(_column(t, name, index, turn, tallest) for index, turn in enumerate(turns))
    writes = sum(len(turn.writes) for turn in turns)
    description = (
        f"{plural(len(turns), 'turn')} under {name} rules: {num(result.read)} tokens read from the cache, "
        f"{num(result.written)} written in {plural(writes, 'write')}, {num(result.uncached)} sent uncached."
    )
    return (
        f'<div class="scroll"><svg class="chart" viewBox="0 0 {width} {BAND + HEIGHT}" style="min-width:{MIN_PIXELS * len(turns)}px" '
        f'role="group" aria-labelledby="{esc(name)}-ct {esc(name)}-cd">'
        f'<title id="{esc(name)}-ct">Tokens per turn under {esc(name)} rules</title><desc id="{esc(name)}-cd">{esc(description)}</desc>'
        f"{_patterns()}{columns}</svg></div>"
        f'<p class="note">Turns 1 to {len(turns)} from left to right; a full-height bar is {num(tallest)} tokens. '
        "Markers above a bar are its writes, by cause. Select a turn to see what it sent and why.</p>"
    )


def _patterns() -> str:
    return (
        '<defs><pattern id="pw" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
        '<rect width="4" height="4" fill="#9a6700"/><rect width="1" height="4" fill="#fff"/></pattern>'
        '<pattern id="pu" width="3" height="3" patternUnits="userSpaceOnUse"><rect width="3" height="3" fill="#6e7781"/>'
        '<circle cx="1.5" cy="1.5" r=".6" fill="#fff"/></pattern></defs>'
    )


def _column(t: Timeline, name: str, index: int, turn: TurnCost, tallest: int) -> str:
    x, y = index * COLUMN, BAND + HEIGHT
    bars = []
    for key, fill in (("read", "#1f6feb"), ("written", "url(#pw)"), ("uncached", "url(#pu)")):
        height = HEIGHT * getattr(turn, key) / tallest
        y -= height
        if height > 0:
            bars.append(f'<rect x="{x}" y="{y:.2f}" width="{COLUMN - 1}" height="{height:.2f}" fill="{fill}"/>')
    causes = list(dict.fromkeys(w.cause for w in turn.writes))
    marks = "".join(
        _marker(*MARKERS[cause], x + (COLUMN - 1) / 2, BAND - 4 - 7 * position)
        for position, cause in enumerate(causes[:4])
    )
    label = _turn_label(t, index, turn)
    return (
        f'<a href="#{esc(name)}-t{index}" data-read="{turn.read}" data-written="{turn.written}" '
        f'data-uncached="{turn.uncached}" aria-label="{esc(label)}"><title>{esc(label)}</title>'
        f'<rect x="{x}" y="0" width="{COLUMN}" height="{BAND + HEIGHT}" fill="transparent"/>{"".join(bars)}{marks}</a>'
    )


def _marker(shape: str, colour: str, cx: float, cy: float) -> str:
    if shape == "circle":
        return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="2.6" fill="{colour}"/>'
    if shape == "square":
        return f'<rect x="{cx - 2.4:.1f}" y="{cy - 2.4:.1f}" width="4.8" height="4.8" fill="{colour}"/>'
    points = (
        [(cx, cy - 3), (cx + 3, cy + 2.5), (cx - 3, cy + 2.5)]
        if shape == "triangle"
        else [(cx, cy - 3.2), (cx + 3.2, cy), (cx, cy + 3.2), (cx - 3.2, cy)]
    )
    return f'<polygon points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in points)}" fill="{colour}"/>'


def _turn_label(t: Timeline, index: int, turn: TurnCost) -> str:
    event = t.replayed.events[index].event
    wrote = f", {len(turn.writes)} {'write' if len(turn.writes) == 1 else 'writes'}" if turn.writes else ""
    return (
        f"Turn {index + 1} (trace line {event.line}): read {num(turn.read)}, written {num(turn.written)}, "
        f"uncached {num(turn.uncached)} tokens{wrote}"
    )


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _turn_detail(t: Timeline, name: str, index: int, turn: TurnCost) -> str:
    compiled = t.replayed.events[index]
    facts = (
        ("Trace line", str(compiled.event.line)),
        ("At", _clock(compiled.event.at)),
        ("Variant", esc(compiled.variant)),
        ("Read", f"{num(turn.read)} tokens"),
        ("Written", f"{num(turn.written)} tokens"),
        ("Uncached", f"{num(turn.uncached)} tokens"),
        ("Cost", f"{num(turn.cost, 1)} units ({_money(t, turn.money)})"),
    )
    rows = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in facts)
    writes = "".join(
        f"<li>tier {w.tier}: {num(w.tokens)} tokens, cost {num(w.cost, 1)} units ({_money(t, w.money)}): "
        f"{esc(report.cause_of(w))}</li>"
        for w in turn.writes
    )
    said = f"<p>Writes:</p><ul>{writes}</ul>" if writes else "<p>Nothing was written: every cached tier was read.</p>"
    return detail(f"{name}-t{index}", f"Turn {index + 1}", f'<dl class="inputs">{rows}</dl>{said}')


def _causes_table(t: Timeline, data: Mapping[str, Any]) -> str:
    rows = [
        (
            esc(g["cause"]),
            num(g["writes"]),
            num(g["tokens"]),
            num(g["cost"], 1),
            _money(t, g["money"]),
            f"{g['share']:.1%}",
        )
        for g in data["causes"]
    ]
    if not rows:
        return "<p>Nothing was written to the cache.</p>"
    head = ("cause", "writes", "tokens", "cost (units)", "money", "share of write cost")
    return table("Writes by cause, costliest first", head, rows, (1, 2, 3, 4, 5))


def _writes_table(t: Timeline, name: str, result: Result) -> str:
    rows = [
        (
            f'<a href="#{esc(name)}-t{w.turn}">{w.turn + 1}</a>',
            str(t.replayed.events[w.turn].event.line),
            str(w.tier),
            num(w.tokens),
            num(w.cost, 1),
            _money(t, w.money),
            esc(report.cause_of(w)),
        )
        for w in result.writes
    ]
    if not rows:
        return ""
    head = ("turn", "trace line", "tier", "tokens", "cost (units)", "money", "cause")
    listed = table(f"Every write under {esc(name)} rules", head, rows, (0, 1, 2, 3, 4, 5))
    return f'<details class="list"><summary>Every write ({len(rows):,})</summary>{listed}</details>'
