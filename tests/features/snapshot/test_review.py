"""The review report (`snapshot check --report`; features/snapshot/review.py, reviewdoc.py, cost.py):
per changed scenario the word diff, tokens before and after, the invalidated cache tiers and the
cost per 1,000 turns, in Markdown that fits a pull-request comment or in one HTML page."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from promptc.emit import tokens
from promptc.features import snapshot
from promptc.features.snapshot import cost
from promptc.warm.compiler import compile_once

from support.guardrails import SCENARIOS, copy_safety, replace_in
from support.paths import SNAPSHOTS

ONE_WORD = ("Do not seek power,", "Do not seek omnipotence,")
"""A one-word change to the safety section that changes its token count."""


def _with_safety() -> list[str]:
    """The committed scenarios whose prompt holds the safety section (from their context.json)."""
    found = []
    for name in SCENARIOS:
        report = json.loads((SNAPSHOTS / name / "context.json").read_text(encoding="utf-8"))
        if any(section["id"] == "safety" for section in report["sections"]):
            found.append(name)
    return found


def _model(name: str) -> str | None:
    return yaml.safe_load((SNAPSHOTS / name / "scenario.yaml").read_text(encoding="utf-8"))["run"].get("model")


def _blocks(markdown: str) -> dict[str, str]:
    """Each scenario's collapsed block of a Markdown report, by scenario name."""
    found = re.findall(r"<details>\n<summary><b>([^<]+)</b>.*?</details>", markdown, flags=re.S)
    return {
        name: re.search(rf"<details>\n<summary><b>{re.escape(name)}</b>.*?</details>", markdown, re.S)[0]
        for name in found
    }


@pytest.fixture
def one_word(tmp_path) -> Path:
    """A user template dir whose safety section differs from the built-in one by one word."""
    templates = tmp_path / "one-word"
    replace_in(copy_safety(templates / "sections"), *ONE_WORD)
    return templates


def _report(run_cli, snapshots: Path, templates: Path, path: Path) -> str:
    code, _, _ = run_cli("snapshot", "check", "--dir", snapshots, "--templates", templates, "--report", path)
    assert code == 1
    return path.read_text(encoding="utf-8")


def test_a_one_word_change_to_safety_shows_the_word_diff_tokens_and_tier_1_for_every_scenario_with_it(
    run_cli, snapshots, one_word, tmp_path
):
    markdown = _report(run_cli, snapshots, one_word, tmp_path / "review.md")
    with_safety = _with_safety()
    assert len(with_safety) == len(SCENARIOS) - 1  # every scenario but none mode
    blocks = _blocks(markdown)
    assert sorted(blocks) == with_safety
    for name in with_safety:
        block = blocks[name]
        assert "- Do not seek [-power-]{+omnipotence+}, resources" in block
        committed = (SNAPSHOTS / name / "stable.md").read_text(encoding="utf-8").removesuffix("\n")
        before = tokens.count_for(committed, _model(name))
        after = tokens.count_for(committed.replace(*ONE_WORD), _model(name))
        assert after > before
        assert f"| stable part | {before:,} | {after:,} | +{after - before:,} |" in block
        tier_1 = re.search(r"\| cache tier 1 \((1h|5m)\) \| ([\d,]+) \| ([\d,]+) \| ([^|]*) \|", block)
        assert tier_1 is not None and tier_1[4].strip() == f"+{after - before:,}"
        assert "\n- cache tier 1 invalidated by section safety\n" in block
        assert f"| `{name}` | {before:,} -> {after:,} (+{after - before:,}) |" in markdown
    assert "Unchanged: `none-mode`." in markdown
    assert markdown.startswith(
        f"## promptc snapshot review\n\n**{len(with_safety)} of {len(SCENARIOS)} scenarios changed"
    )


def test_the_markdown_report_fits_a_comment(run_cli, snapshots, tmp_path):
    templates = tmp_path / "long"
    section = copy_safety(templates / "sections")
    long_lines = "".join(f"- Rule {n}: " + "keep to the task and ask before acting. " * 12 + "\n" for n in range(400))
    replace_in(section, "- Do not seek power,", long_lines + "- Do not seek power,")
    markdown = _report(run_cli, snapshots, templates, tmp_path / "review.md")
    assert len(markdown) < 65_536  # GitHub's limit for a comment
    blocks = _blocks(markdown)
    assert sorted(blocks) == _with_safety()  # every scenario keeps its review
    for block in blocks.values():
        assert "{+- Rule 0: keep to the task" in block  # the start of every diff is shown
        assert re.search(r"\n\.\.\. \([\d,]+ more diff lines\)\n```\n", block)  # and the cut is said


class _Tags(HTMLParser):
    """Open elements, checked to close in order; and any attribute that loads something."""

    VOID = frozenset({"meta", "br", "link", "img", "input", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.loads: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.loads += [f"{tag} {name}" for name, _ in attrs if name in ("src", "href")]
        if tag in ("script", "link", "img", "iframe"):
            self.loads.append(tag)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (self.open[-3:], tag)
        self.open.pop()


def test_the_html_report_is_one_well_formed_page_with_the_same_review(run_cli, snapshots, one_word, tmp_path):
    page = _report(run_cli, snapshots, one_word, tmp_path / "review.html")
    tags = _Tags()
    tags.feed(page)
    assert tags.open == [] and tags.loads == []
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<details>") == len(_with_safety())
    assert page.count("<del>power</del><ins>omnipotence</ins>, resources") == len(_with_safety())
    committed = (SNAPSHOTS / "telegram-direct" / "stable.md").read_text(encoding="utf-8").removesuffix("\n")
    before = tokens.count_for(committed, _model("telegram-direct"))
    after = tokens.count_for(committed.replace(*ONE_WORD), _model("telegram-direct"))
    assert f'<td class="n">{before:,}</td><td class="n">{after:,}</td><td class="n">+{after - before:,}</td>' in page
    assert "cache tier 1 invalidated by section safety" in page


def test_a_file_edit_is_priced_at_the_documented_rates(run_cli, snapshots, tmp_path):
    user = snapshots / "_fixtures" / "household" / "USER.md"
    user.write_text(user.read_text(encoding="utf-8") + "- Prefers tea after six.\n", encoding="utf-8")
    code, _, _ = run_cli("snapshot", "check", "--dir", snapshots, "--report", tmp_path / "review.md")
    assert code == 1
    block = _blocks((tmp_path / "review.md").read_text(encoding="utf-8"))["telegram-direct"]
    prompt, _ = compile_once(snapshot.load_scenario(snapshots / "telegram-direct").request)
    model = prompt.model
    count = lambda text: tokens.count_for(text, model)  # noqa: E731
    old_stable = (SNAPSHOTS / "telegram-direct" / "stable.md").read_text(encoding="utf-8").removesuffix("\n")
    old_volatile = (SNAPSHOTS / "telegram-direct" / "volatile.md").read_text(encoding="utf-8").removesuffix("\n")
    # Anthropic: reads cost 0.1 of an input token, writes 1.25 (5 minutes) or 2 (an hour).
    assert [t.ttl for t in prompt.tiers] == ["1h", "5m", "5m"]
    rewrite = (count(prompt.tiers[1].text) + count(prompt.tiers[2].text)) * (1.25 - 0.1)
    before = 1000 * (count(old_stable) * 0.1 + count(old_volatile))
    after = 1000 * (count(prompt.stable) * 0.1 + count(prompt.volatile)) + rewrite
    # The scenario's model is a Claude Sonnet: $3.00 per million uncached input tokens (pricing.yaml).
    assert "sonnet" in model
    dollars = lambda units: f"${units * 3.0 / 1_000_000:,.4f}"  # noqa: E731
    assert (
        f"Cost per 1,000 turns (anthropic rules): {before:,.0f} -> {after:,.0f} ({after - before:+,.0f}) base input"
        f" tokens ({dollars(before)} -> {dollars(after)} at the model's $3.00 per million input tokens), of which"
        f" {rewrite:,.0f} writes the invalidated tiers again, once." in block
    )
    change = f"+${(after - before) * 3.0 / 1_000_000:,.4f}"
    assert f"| tiers 2-3 invalidated | {after - before:+,.0f} ({change}) |" in (tmp_path / "review.md").read_text(
        encoding="utf-8"
    )
    assert "**Files changed:** USER.md (edited, " in block
    assert "| tiers 2-3 invalidated |" in (tmp_path / "review.md").read_text(encoding="utf-8")


def test_an_uncached_or_unknown_provider_is_said_so(run_cli, snapshots, edited_safety, tmp_path):
    markdown = _report(run_cli, snapshots, edited_safety, tmp_path / "review.md")
    blocks = _blocks(markdown)
    assert "(anthropic rules, assumed for this provider)" in blocks["provider-contribution"]
    # claude-haiku-4-5 caches nothing under 4,096 tokens; the heartbeat turn's stable part is shorter.
    assert "the stable part is not cached" in blocks["heartbeat-turn"]
    assert "of which" not in blocks["heartbeat-turn"]
    assert "(openai rules)" in blocks["codex-harness"] and "(openai rules)" in blocks["gpt5-overlay"]


def test_a_clean_check_still_writes_a_report(run_cli, tmp_path):
    code, out, _ = run_cli("snapshot", "check", "--dir", SNAPSHOTS, "--report", tmp_path / "review.md")
    assert code == 0 and out.startswith("promptc: snapshots are current")
    markdown = (tmp_path / "review.md").read_text(encoding="utf-8")
    assert f"**0 of {len(SCENARIOS)} scenarios changed" in markdown and "<details>" not in markdown


def test_a_report_name_without_a_known_suffix_is_a_usage_error(run_cli, tmp_path):
    code, out, err = run_cli("snapshot", "check", "--dir", SNAPSHOTS, "--report", tmp_path / "review.txt")
    assert code == 2 and out == ""
    assert err.startswith("promptc: error: --report: name a file ending in .md, .markdown, .html, .htm;")
    assert not (tmp_path / "review.txt").exists()


@pytest.mark.parametrize(
    ("model", "rules", "assumed"),
    [
        ("anthropic/claude-sonnet-4-5", "anthropic", False),
        ("bedrock/anthropic.claude-sonnet-4-5", "bedrock", False),
        ("openai/gpt-5.5", "openai", False),
        ("codex/gpt-5.5", "openai", False),
        ("fernwood/canopy-2", "anthropic", True),
        (None, "anthropic", True),
    ],
)
def test_each_provider_is_priced_by_its_cache_rules(model, rules, assumed):
    found, guessed = cost.rules_for(model)
    assert (found.name, guessed) == (rules, assumed)


def test_what_is_cached_follows_the_models_minimum():
    assert cost.cacheable(1024, "anthropic/claude-sonnet-4-5", breakpoints=True)
    assert not cost.cacheable(1023, "anthropic/claude-sonnet-4-5", breakpoints=True)
    assert not cost.cacheable(4095, "anthropic/claude-haiku-4-5", breakpoints=True)
    assert not cost.cacheable(9000, "anthropic/claude-sonnet-4-5", breakpoints=False)
    assert cost.cacheable(9000, "openai/gpt-5.5", breakpoints=False)  # automatic caching


def test_a_committed_context_json_that_does_not_parse_leaves_the_sections_unknown(
    run_cli, snapshots, one_word, tmp_path
):
    (snapshots / "cron-job" / "context.json").write_text("{not json", encoding="utf-8")
    markdown = _report(run_cli, snapshots, one_word, tmp_path / "review.md")
    block = _blocks(markdown)["cron-job"]
    assert "**Sections changed:** not known: the committed context.json does not match" in block
    assert "cache tier 1 invalidated by section safety" in block
    assert "**Sections changed:** safety (edited)" in _blocks(markdown)["telegram-direct"]
