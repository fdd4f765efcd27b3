"""What both HTML pages share: escaping, the page shell with its inline style and its one small
script, the panel that shows a selected item's details, and the tier colours with their patterns.

A page loads nothing: no external script, style, font or image. Text from the prompt is shown as
text, never as a link; a `://` in it is written as a character reference, so the file holds no
address a tool could mistake for a resource (the browser shows the same characters).
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from ..._lib.text import replace_surrogates

TIER_STYLES = 6
"""Tiers past this many reuse the last style (promptc allows at most three)."""


def esc(value: object) -> str:
    """Text (or a number) as HTML text or an attribute value: markup characters and quotes
    escaped, lone surrogates replaced, `://` written with character references."""
    text = html.escape(replace_surrogates(str(value)), quote=True)
    return text.replace("://", "&#58;&#47;&#47;")


def num(value: int | float, places: int = 0) -> str:
    """A figure with thousands separators (`12,345`, `1,234.5`)."""
    return f"{value:,.{places}f}"


def tier_class(tier: int | None) -> str:
    """The CSS class that colours and patterns a tier (`t1`, ...; `tu`: sent uncached)."""
    return "tu" if tier is None else f"t{min(tier, TIER_STYLES)}"


def tier_name(tier: int | None) -> str:
    """`tier 2`, or `uncached`."""
    return "uncached" if tier is None else f"tier {tier}"


def detail(anchor: str, heading: str, body: str) -> str:
    """A details panel entry, shown when a link to `#anchor` is followed (or clicked)."""
    return (
        f'<section class="detail" id="{esc(anchor)}" tabindex="-1" aria-labelledby="{esc(anchor)}-h">'
        f'<h3 id="{esc(anchor)}-h">{heading}</h3>{body}'
        '<p class="back"><a href="#top">Back to the top</a></p></section>'
    )


def table(caption: str, head: Iterable[str], rows: Iterable[Iterable[str]], numeric: Iterable[int] = ()) -> str:
    """A table with a caption and column headers; cells are HTML already; `numeric` columns align right."""
    right = set(numeric)

    def cells(row: Iterable[str], tag: str) -> str:
        out = []
        for index, cell in enumerate(row):
            scope = ' scope="col"' if tag == "th" else ""
            align = ' class="n"' if index in right else ""
            out.append(f"<{tag}{scope}{align}>{cell}</{tag}>")
        return "".join(out)

    body = "".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
    return (
        f'<div class="scroll"><table><caption>{caption}</caption>'
        f"<thead><tr>{cells(head, 'th')}</tr></thead><tbody>{body}</tbody></table></div>"
    )


def page(title: str, body: str) -> str:
    """A whole, self-contained HTML document."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head>"
        f'<body id="top">{body}<script>{SCRIPT}</script></body></html>\n'
    )


STYLE = """
:root{--ink:#1f2328;--muted:#57606a;--line:#d0d7de;--paper:#fff;--soft:#f6f8fa;--accent:#0969da;
--t1:#1f6feb;--t2:#1a7f37;--t3:#9a6700;--t4:#8250df;--t5:#bf3989;--t6:#0a7e8c;--tu:#6e7781}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--paper)}
header,main{max-width:90rem;margin:0 auto;padding:0 1rem}
header{padding-top:1rem;border-bottom:1px solid var(--line)}
h1,h2,h3{overflow-wrap:anywhere}
h1{font-size:1.6rem;margin:.5rem 0}
h2{font-size:1.3rem;margin:2rem 0 .5rem;border-bottom:1px solid var(--line);padding-bottom:.25rem}
h3{font-size:1.05rem;margin:1rem 0 .25rem}
a{color:var(--accent)}
a:focus-visible,section:focus-visible,g:focus-visible{outline:3px solid #bf8700;outline-offset:2px}
.facts{color:var(--muted);margin:.25rem 0}
dl.inputs{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.5rem 0 1rem}
dl.inputs dt{font-weight:600}dl.inputs dd{margin:0;overflow-wrap:anywhere}
ul.totals{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin:.5rem 0 1rem}
ul.totals li{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:.3rem .7rem}
ul.totals b{font-size:1.15rem}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;margin:.5rem 0}
.legend li{display:flex;align-items:center;gap:.4rem}
.sw{display:inline-block;width:1.1rem;height:1.1rem;border:1px solid var(--ink)}
.t1{--pat:var(--t1)}
.t2{--pat:repeating-linear-gradient(45deg,var(--t2) 0 3px,#fff 3px 4px)}
.t3{--pat:repeating-linear-gradient(0deg,var(--t3) 0 3px,#fff 3px 4px)}
.t4{--pat:repeating-linear-gradient(90deg,var(--t4) 0 3px,#fff 3px 4px)}
.t5{--pat:repeating-linear-gradient(-45deg,var(--t5) 0 3px,#fff 3px 4px)}
.t6{--pat:repeating-linear-gradient(45deg,var(--t6) 0 2px,#fff 2px 4px)}
.tu{--pat:radial-gradient(#fff 1px,var(--tu) 1.5px) 0 0/4px 4px}
.cut{--pat:repeating-linear-gradient(135deg,#000 0 2px,#ffd33d 2px 4px)}
.sw,.squares i,.bar{background:var(--pat)}
.layout{display:grid;grid-template-columns:minmax(0,3fr) minmax(18rem,2fr);gap:1.5rem;align-items:start}
.details{position:sticky;top:0;max-height:100vh;overflow:auto;border:1px solid var(--line);border-radius:6px;padding:0 1rem 1rem;background:var(--soft)}
.detail{display:none}.detail:target{display:block}.js .detail:target:not(.shown){display:none}.detail.shown{display:block}
.details:has(.detail.shown) .hint,.details:has(.detail:target) .hint{display:none}
.detail pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--paper);border:1px solid var(--line);padding:.5rem;font-size:.8rem;max-height:60vh;overflow:auto}
.detail mark{background:#ffd33d;color:#000}
.back{display:none}
.lane{margin:0 0 1rem}
ul.chips{list-style:none;padding:0;margin:.1rem 0 0;display:flex;flex-wrap:wrap;gap:.1rem .9rem;font-size:.85rem;color:var(--muted)}
.squares{line-height:15px;margin:.25rem 0}
.squares a{display:inline;text-decoration:none}
.squares i{display:inline-block;vertical-align:top;width:13px;height:13px;margin:0 1px 2px 0}
.squares a:nth-of-type(even) i{filter:brightness(1.3) saturate(.8)}
.squares a i:first-child{margin-left:4px;box-shadow:inset 2px 0 0 #000}
.squares a i.cut{filter:none}
.squares a:hover i,.squares a:focus-visible i,.squares a[aria-current] i{filter:brightness(.7)}
.boundary{display:flex;align-items:center;gap:.75rem;margin:1rem 0;font-weight:600}
.boundary::before,.boundary::after{content:"";flex:1;border-top:3px dashed var(--ink)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.5rem 0 1rem;min-width:60%}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border-bottom:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:.7rem;min-width:1px;vertical-align:middle;border:1px solid var(--ink)}
details.list{margin:.25rem 0 .75rem}details.list summary{cursor:pointer;font-weight:600}
ul.names{columns:16rem;margin:.25rem 0}
.note{color:var(--muted)}
svg.chart{width:100%;height:auto;border:1px solid var(--line);background:var(--paper)}
svg.chart a:hover rect,svg.chart a:focus rect{opacity:.6}
svg.chart a[aria-current] rect:first-of-type{fill:#ffd33d}
@media (max-width:56rem){.layout{grid-template-columns:minmax(0,1fr)}.details{position:static;max-height:none}.back{display:block}
.squares{line-height:17px}.squares i{width:15px;height:15px}body{font-size:15px}}
"""
"""The pages' whole style: tiers differ in colour and in pattern, so colour is never the only signal."""

SCRIPT = """
(function(){var root=document.documentElement;root.classList.add('js');
function show(id,focus){var d=document.getElementById(id);if(!d||!d.classList.contains('detail'))return false;
document.querySelectorAll('.detail.shown').forEach(function(e){e.classList.remove('shown')});
document.querySelectorAll('[aria-current]').forEach(function(e){e.removeAttribute('aria-current')});
d.classList.add('shown');document.querySelectorAll('a[href="#'+id+'"]').forEach(function(a){a.setAttribute('aria-current','true')});
var r=d.getBoundingClientRect();if(r.top<0||r.top>window.innerHeight-48)d.scrollIntoView({block:'start'});
if(focus)d.focus({preventScroll:true});return true}
document.addEventListener('click',function(e){var a=e.target.closest('a[href^="#"]');if(!a)return;
var id=a.getAttribute('href').slice(1);if(show(id,true)){e.preventDefault();history.replaceState(null,'','#'+id)}});
if(location.hash)show(location.hash.slice(1),false)})();
"""
"""Shows a selected item's details beside the map without jumping the page (without the script,
the `:target` rule shows the same panel)."""
