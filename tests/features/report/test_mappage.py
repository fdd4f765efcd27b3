"""The prompt map page (features/report/mappage.py, `promptc report`, `promptc context --html`): one
self-contained HTML file, every block drawn and listed with figures that add up, the text of a
block shown when it is clicked, readable at 1280 px and on a phone, checked in a real browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import browser
from support.pages import assert_self_contained
from support.paths import CORPUS, EXAMPLES

OKBEST = CORPUS / "okbest2024-backup"
EXAMPLE_INPUTS = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")
MAX_BYTES = 2 * 1024 * 1024


def _report(run_cli, out: Path, *inputs) -> str:
    code, stdout, stderr = run_cli("report", *inputs, "--out", out)
    assert (code, stdout, stderr) == (0, "", "")
    return out.read_text(encoding="utf-8")


def _first_line(path: Path) -> str:
    """The first line of a workspace file with text on it, past any frontmatter (read here, not by promptc)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0] == "---":
        lines = lines[lines.index("---", 1) + 1 :]
    return next(line.strip() for line in lines if line.strip())


# --------------------------------------------------------------------------- in a browser


def _figures(page) -> dict:
    """What the page shows, read from the DOM: the header totals and every block's figure, by lane."""
    return page.evaluate(
        """() => {
        const n = t => Number(t.replace(/,/g, ''));
        const total = k => n(document.querySelector('[data-total="' + k + '"]').textContent);
        const lanes = [...document.querySelectorAll('.map [data-lane-tokens]')].map(l => ({
            side: l.dataset.side, said: Number(l.dataset.laneTokens),
            heading: l.querySelector('h3') ? l.querySelector('h3').textContent : l.textContent,
            blocks: [...l.querySelectorAll('[data-tokens]')].map(b => Number(b.dataset.tokens))}));
        const rows = [...document.querySelectorAll('#blocks-h ~ div table tbody tr')].map(r => n(r.cells[5].textContent));
        const boundary = document.querySelector('[data-total="boundary"]');
        return {prompt: total('prompt'), stable: total('stable'), volatile: total('volatile'),
                boundary: boundary ? n(boundary.textContent) : 0, lanes, rows};
    }"""
    )


def _check_in_browser(path: Path, shots: Path, block_label: str, expected_text: str, source: str) -> None:
    browser.require()
    with browser.browser() as context:
        for name, size in (("wide", browser.WIDE), ("phone", browser.PHONE)):
            seen = browser.visit(context, path, size)
            figures = _figures(seen.page)
            every = [tokens for lane in figures["lanes"] for tokens in lane["blocks"]]
            assert sum(every) == figures["prompt"] == sum(figures["rows"]) > 0
            for side in ("stable", "volatile", "boundary"):
                assert sum(sum(lane["blocks"]) for lane in figures["lanes"] if lane["side"] == side) == figures[side]
            for lane in figures["lanes"]:
                assert sum(lane["blocks"]) == lane["said"]
                assert f"{lane['said']:,}" in lane["heading"]  # the figure a person reads is the sum too
            assert seen.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
            seen.page.screenshot(path=str(shots / f"map-{name}.png"), full_page=True)
            block = seen.page.locator(f'a.blk[aria-label^="{block_label}:"]').first
            shown = seen.page.locator(".detail:visible")
            assert shown.count() == 0
            block.click()
            assert shown.count() == 1
            assert expected_text in shown.locator("pre").inner_text()
            assert source in shown.inner_text()
            seen.page.screenshot(path=str(shots / f"map-{name}-selected.png"))
            assert seen.errors == []
            assert seen.requests == [path.resolve().as_uri()]
    assert all((shots / f"map-{n}.png").stat().st_size > 0 for n in ("wide", "phone"))


def test_the_example_prompt_map_adds_up_and_shows_a_clicked_block_in_a_browser(run_cli, tmp_path):
    page = _report(run_cli, tmp_path / "map.html", *EXAMPLE_INPUTS)
    assert_self_contained(page)
    soul = EXAMPLES / "workspace" / "SOUL.md"
    _check_in_browser(tmp_path / "map.html", tmp_path, "SOUL.md", _first_line(soul), str(soul.resolve()))


@pytest.mark.skipif(not OKBEST.is_dir(), reason="the corpus is not checked out beside the repo")
def test_okbest_prompt_map_is_one_small_self_contained_file_that_a_browser_checks(run_cli, tmp_path):
    page = _report(run_cli, tmp_path / "okbest.html", "--workspace", OKBEST)
    assert len(page.encode("utf-8")) < MAX_BYTES
    assert_self_contained(page)
    memory = OKBEST / "MEMORY.md"
    assert "MEMORY.md cut: kept" in page and "<mark>[... MEMORY.md cut: kept" in page
    _check_in_browser(tmp_path / "okbest.html", tmp_path, "MEMORY.md", _first_line(memory), str(memory.resolve()))


# --------------------------------------------------------------------------- the file itself


def test_file_text_is_shown_as_text_never_as_markup(run_cli, make_workspace, tmp_path):
    hostile = "</pre><script>alert(1)</script><img src=x> & see https://example.org/a?b=1\n"
    ws = make_workspace({"SOUL.md": hostile, "AGENTS.md": "rules\n"})
    page = _report(run_cli, tmp_path / "map.html", "--workspace", ws)
    assert_self_contained(page)
    assert (
        "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x&gt; &amp; see https&#58;&#47;&#47;example.org"
        in page
    )


def test_left_out_sections_files_and_skills_are_listed_with_their_reasons(run_cli, make_workspace, tmp_path):
    ws = make_workspace(
        {
            "SOUL.md": "calm\n",
            "MEMORY.md": "likes tea\n",
            "skills/ok/SKILL.md": "---\nname: ok\ndescription: fine\n---\n",
            "skills/gh/SKILL.md": "---\nname: gh\ndescription: github\nmetadata: {requires: {bins: [no-such-bin-here]}}\n---\n",
            "skills/bare/SKILL.md": "# no frontmatter\n",
        }
    )
    page = _report(run_cli, tmp_path / "map.html", "--workspace", ws, "--chat-type", "group")
    out = page[page.index('id="out-h"') : page.index('id="skills-h"')]
    assert "<td>sandbox</td>" in out and "gate is false: sandbox.enabled" in out
    assert "<td>MEMORY.md</td><td>filtered</td>" in out and "chat filter: MEMORY.md stays out of group chats" in out
    skills = page[page.index('id="skills-h"') :]
    assert "3 SKILL.md files found, 1 eligible, 1 listed." in skills
    assert "<li>ok</li>" in skills
    assert "<td>gh</td><td>ineligible: " in skills and "no-such-bin-here" in skills
    assert "skills/bare/SKILL.md" in skills and "no frontmatter" in skills


def test_context_html_writes_the_same_page_beside_its_text_report(run_cli, tmp_path):
    code, out, _ = run_cli("context", *EXAMPLE_INPUTS, "--html", tmp_path / "ctx.html")
    assert code == 0 and out.startswith("Context for agent main")
    assert out == run_cli("context", *EXAMPLE_INPUTS)[1]  # the text report is unchanged by --html
    assert (tmp_path / "ctx.html").read_text(encoding="utf-8") == _report(run_cli, tmp_path / "r.html", *EXAMPLE_INPUTS)


def test_report_needs_somewhere_to_write(run_cli):
    code, out, err = run_cli("report", *EXAMPLE_INPUTS)
    assert (code, out) == (2, "")
    assert err == "promptc: error: the following arguments are required: --out\n"


def test_the_map_says_when_the_cache_is_kept_warm(run_cli, tmp_path):
    plain = _report(run_cli, tmp_path / "plain.html", *EXAMPLE_INPUTS)
    warm = _report(run_cli, tmp_path / "warm.html", *EXAMPLE_INPUTS, "--config", EXAMPLES / "cache-long-lived.yaml")
    assert "<li>3 cache tiers</li>" in plain and "kept warm" not in plain
    assert "<li>3 cache tiers; kept warm by a ping every 55m, for up to 2h idle</li>" in warm
