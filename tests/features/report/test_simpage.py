"""The cache timeline page (features/report/simpage.py, `promptc cache simulate --html`): every
turn's read, written and uncached tokens adding up to the simulation's totals, each write with
its cause, the layouts compared, and a clicked turn's details, checked in a real browser."""

from __future__ import annotations

import json

import pytest

from support import browser
from support.pages import BodyRows, assert_self_contained
from support.paths import EXAMPLES

INPUTS = ("--trace", EXAMPLES / "trace.jsonl", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")


@pytest.fixture(scope="module")
def timeline(tmp_path_factory):
    """The example trace simulated once: (the HTML file, the JSON report of the same run, its text report)."""
    import contextlib
    import io

    from promptc.commands import cli

    path = tmp_path_factory.mktemp("timeline") / "timeline.html"
    outputs = []
    for extra in (("--format", "json", "--html", str(path)), ("--format", "json"), ()):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli.main(["cache", "simulate", *map(str, INPUTS), *extra]) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]  # --html adds a file and changes nothing printed
    return path, json.loads(outputs[0]), outputs[2]


def test_the_page_is_self_contained_and_compares_three_layouts(timeline):
    path, data, _ = timeline
    page = path.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert page.count("<tr><td>as configured</td>") == 1
    assert "<code>--set prompt.cache.tiers=[]</code><br><code>--set prompt.cache.ttl=5m</code>" in page
    assert "<code>--set prompt.cache.ttl=1h</code>" in page
    for name, provider in data["providers"].items():
        # The configured layout's cost is the one `cache simulate` prints.
        assert f'data-cost="{provider["cost"]:.3f}"' in page, name
        # ... and its money, at the dated table's prices.
        assert f'data-money="{provider["money"]:.6f}">${provider["money"]:,.4f}</span>' in page, name
    prices = data["prices"]
    assert f"{prices['table']} as of {prices['as_of']} (USD)" in page


def _cause(write: dict) -> str:
    """How a write's cause reads, from the JSON report: `changed: USER.md, section tooling`."""
    named = [
        c.removeprefix("file:") if c.startswith("file:") else "section " + c.removeprefix("section:")
        for c in write["changed"]
    ]
    return write["cause"] + (": " + ", ".join(named) if named else "")


def test_every_write_is_listed_with_its_turn_line_tier_size_cost_and_cause(timeline):
    path, data, _ = timeline
    page = path.read_text(encoding="utf-8")
    for name, provider in data["providers"].items():
        part = page[page.index(f'id="{name}-h"') :]
        rows = BodyRows()
        rows.feed(part[part.index("Every write (") : part.index("</details>")])
        expected = [
            [
                str(w["turn"]),
                str(w["line"]),
                str(w["tier"]),
                f"{w['tokens']:,}",
                f"{w['cost']:,.1f}",
                f"${w['money']:,.4f}",
                _cause(w),
            ]
            for w in provider["writes"]
        ]
        assert rows.rows == expected, name


def test_in_a_browser_the_turns_add_up_and_a_clicked_turn_shows_its_writes(timeline, tmp_path):
    browser.require()
    path, data, _ = timeline
    with browser.browser() as context:
        for name, size in (("wide", browser.WIDE), ("phone", browser.PHONE)):
            seen = browser.visit(context, path, size)
            for provider, expected in data["providers"].items():
                shown = seen.page.evaluate(
                    """(name) => {
                    const n = t => Number(t.replace(/,/g, ''));
                    const section = document.getElementById(name + '-h').parentElement;
                    const turns = [...section.querySelectorAll('svg.chart a')];
                    const sum = k => turns.reduce((s, a) => s + Number(a.dataset[k]), 0);
                    const total = k => n(section.querySelector('[data-total="' + name + '-' + k + '"]').textContent);
                    return {turns: turns.length, read: [sum('read'), total('read')],
                            written: [sum('written'), total('written')], uncached: [sum('uncached'), total('uncached')]};
                }""",
                    provider,
                )
                assert shown["turns"] == data["turns"]
                for key in ("read", "written", "uncached"):
                    assert shown[key] == [expected[key], expected[key]], (provider, key)
            assert seen.page.evaluate(
                "document.documentElement.scrollWidth <= window.innerWidth"
            )  # only the chart scrolls
            seen.page.screenshot(path=str(tmp_path / f"timeline-{name}.png"), full_page=True)
            write = data["providers"]["anthropic"]["writes"][0]
            seen.page.locator(f'svg.chart a[href="#anthropic-t{write["turn"] - 1}"]').click()
            detail = seen.page.locator(".detail:visible")
            assert detail.count() == 1
            text = detail.inner_text()
            assert f"Turn {write['turn']}" in text and f"tier {write['tier']}: {write['tokens']:,} tokens" in text
            assert write["cause"] in text
            seen.page.screenshot(path=str(tmp_path / f"timeline-{name}-selected.png"))
            assert seen.errors == []
            assert seen.requests == [path.resolve().as_uri()]
