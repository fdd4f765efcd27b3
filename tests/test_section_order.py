"""The one section-order table (templates/section_order.yaml) against the catalogue.

The table's `openclaw_headings` is OpenClaw's own heading order, re-derived from its real builder
by `bench/derive_section_order.py`; these tests need no OpenClaw.
"""

from __future__ import annotations

import pytest
import yaml

from promptc._lib.resources import templates_root
from promptc.sections import catalogue

TABLE = yaml.safe_load((templates_root() / "section_order.yaml").read_text(encoding="utf-8"))
SPECS = catalogue.load().sections


def _primary(heading):
    """A section's main OpenClaw heading (the first when the heading depends on the mode)."""
    return heading[0] if isinstance(heading, list) else heading


def test_the_table_lists_every_built_in_section_with_its_order():
    assert {spec.id: spec.order for spec in SPECS} == {sid: row["order"] for sid, row in TABLE["sections"].items()}


def test_every_heading_in_the_table_is_one_openclaw_has():
    known = set(TABLE["openclaw_headings"])
    for sid, row in TABLE["sections"].items():
        headings = row["openclaw"] if isinstance(row["openclaw"], list) else [row["openclaw"]]
        assert all(h is None or h in known for h in headings), sid


@pytest.mark.parametrize("mode", ["full", "minimal"])
def test_our_order_is_openclaws_for_the_headings_both_have(mode):
    position = {heading: index for index, heading in enumerate(TABLE["openclaw_headings"])}
    ours = [spec for spec in SPECS if mode in spec.modes and TABLE["sections"][spec.id]["openclaw"]]
    stable_first = sorted(ours, key=lambda spec: (spec.side != "stable", spec.order))
    ranks = [position[_primary(TABLE["sections"][spec.id]["openclaw"])] for spec in stable_first]
    assert ranks == sorted(ranks), [spec.id for spec in stable_first]


def test_skills_memory_and_the_workspace_notices_are_where_openclaw_puts_them():
    order = {spec.id: spec.order for spec in SPECS}
    assert order["skills"] < order["memory_recall"] < order["self_update"]
    assert order["bootstrap_notice"] < order["workspace_files"] < order["output_directives"]
