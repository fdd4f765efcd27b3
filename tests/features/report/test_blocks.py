"""The prompt map's data (features/report/blocks.py): blocks that give the whole prompt back in
order, each in the tier that caches it, a cut file's marker found, every figure counted."""

from __future__ import annotations

import pytest

from promptc.emit import context, tokens
from promptc.features.report import blocks
from promptc.features.snapshot import scenario
from promptc.warm.compiler import compile_once

from support.paths import SNAPSHOTS

SCENARIOS = scenario.discover(SNAPSHOTS)


def _map(request):
    prompt, _ = compile_once(request)
    return prompt, blocks.build(prompt, context.read_from(request, prompt))


@pytest.mark.parametrize("case", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_the_blocks_give_the_whole_prompt_back_and_each_tier_its_text(case):
    prompt, prompt_map = _map(case.request)
    assert "".join(b.text + b.separator for b in prompt_map.blocks) == prompt.text
    for tier in prompt.tiers:
        members = [b for b in prompt_map.blocks if b.tier == tier.index]
        assert "".join(b.text + b.separator for b in members) == tier.text
    assert all(b.tokens == tokens.count_for(b.text + b.separator, prompt.model) for b in prompt_map.blocks)
    assert prompt_map.total == sum(t.tokens for t in prompt_map.tiers) + sum(
        b.tokens for b in prompt_map.blocks if b.tier is None
    )
    above = [b for b in prompt_map.blocks if b.side == blocks.STABLE]
    assert "".join(b.text + b.separator for b in above) == (prompt.stable + "\n\n" if prompt.stable else "")


def test_a_cut_file_marks_where_its_marker_line_starts(run_cli, make_workspace):
    from promptc import Request

    ws = make_workspace({"SOUL.md": "".join(f"line {i} of my soul\n" for i in range(3000))})
    request = Request(workspace=ws, plugins=False)
    _, prompt_map = _map(request)
    soul = next(b for b in prompt_map.blocks if b.key == "file:SOUL.md")
    assert soul.file is not None and soul.file.status == "truncated"
    assert soul.text[soul.cut_at :].startswith("[... SOUL.md cut: kept ")
    assert soul.text[soul.cut_at - 1] == "\n"
    assert all(b.cut_at is None for b in prompt_map.blocks if b is not soul)


def test_a_kept_head_is_its_own_block_and_the_cut_starts_the_next(make_workspace, write_yaml):
    from promptc import Request

    ws = make_workspace({"MEMORY.md": "".join(f"- note {i}\n" for i in range(4000))})
    config = write_yaml("tiers.yaml", "prompt:\n  cache:\n    tiers: [[sections], [MEMORY.md#head], [MEMORY.md]]\n")
    _, prompt_map = _map(Request(workspace=ws, config_paths=(config,), plugins=False))
    head = next(b for b in prompt_map.blocks if b.key == "file:MEMORY.md#head")
    rest = next(b for b in prompt_map.blocks if b.key == "file:MEMORY.md")
    assert (head.label, head.separator, head.cut_at) == ("MEMORY.md (kept head)", "\n", None)
    assert rest.cut_at == 0 and rest.text.startswith("[... MEMORY.md cut: kept ")
    assert head.tier is not None and rest.tier is not None and head.tier < rest.tier


def test_the_dynamic_context_a_last_tier_reaches_stays_below_the_boundary_in_that_tier(make_workspace, write_yaml):
    from promptc import Request

    ws = make_workspace({"HEARTBEAT.md": "- check the mail\n", "SOUL.md": "calm\n"})
    config = write_yaml(
        "reach.yaml",
        "agents:\n  defaults:\n    heartbeat: {enabled: true}\n"
        "prompt:\n  cache:\n    tiers: [[sections], [SOUL.md, dynamic_context]]\n",
    )
    prompt, prompt_map = _map(Request(workspace=ws, config_paths=(config,), plugins=False))
    dynamic = next(b for b in prompt_map.blocks if b.key == "section:dynamic_context")
    assert dynamic.side == blocks.VOLATILE and dynamic.tier == prompt.tiers[-1].index
    assert "check the mail" in dynamic.text and dynamic.source == "builtin:dynamic_context.md.j2"
