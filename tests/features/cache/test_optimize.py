"""`promptc cache optimize` (features/cache/optimize.py): the layout it prints is valid config, at
least as cheap on the example trace as the README's recommended layout, the same on every run,
and its figures are what `cache simulate` says of the same layouts."""

from __future__ import annotations

import json
import re

import pytest

from promptc.features.cache.optimize import Layout, descend

from support.paths import EXAMPLES

INPUTS = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")
TRACE = ("--trace", EXAMPLES / "trace.jsonl")


@pytest.fixture(scope="module")
def printed():
    """Two runs of the command on the example trace."""
    import contextlib
    import io

    from promptc.commands import cli

    outputs = []
    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert cli.main(["cache", "optimize", *map(str, TRACE), *map(str, INPUTS)]) == 0
        outputs.append(out.getvalue())
    return outputs


def anthropic_money(run_cli, *configs):
    extra = [item for path in configs for item in ("--config", path)]
    code, out, err = run_cli("cache", "simulate", *TRACE, *INPUTS, *extra, "--format", "json")
    assert code == 0, err
    return json.loads(out)["providers"]["anthropic"]["money"]


def test_the_same_trace_gives_the_same_output(printed):
    first, second = printed
    assert first == second


def test_the_layout_printed_is_config_at_least_as_cheap_as_the_recommended_one(printed, run_cli, tmp_path):
    text = printed[0]
    layer = tmp_path / "best.yaml"
    layer.write_text(text, encoding="utf-8")  # comments and a prompt.cache table: a config layer as printed
    best = anthropic_money(run_cli, layer)
    recommended = anthropic_money(run_cli, EXAMPLES / "cache-long-lived.yaml")
    current = anthropic_money(run_cli)
    assert best <= recommended and best < current
    # The predicted figures are the simulator's, per 1,000 of the trace's 200 turns.
    shown = dict(re.findall(r"^#   (best found|current)\s.*?\$([0-9.,]+)$", text, re.MULTILINE))
    assert float(shown["best found"]) == pytest.approx(best * 5, abs=1e-4)
    assert float(shown["current"]) == pytest.approx(current * 5, abs=1e-4)
    assert "OpenClaw's default (one 5m breakpoint at the boundary)" in text


def test_the_descent_takes_cheaper_neighbours_and_stops_at_the_budget():
    def layout(hours: int) -> Layout:
        return Layout((), hours, False, ())

    def neighbours(at: Layout):
        yield from (layout(h) for h in (at.hours - 1, at.hours + 1) if 0 <= h <= 9)

    cost = lambda candidate: abs(candidate.hours - 7)  # noqa: E731
    best, tried = descend([layout(0)], cost, neighbours, budget=100)
    assert (best.hours, tried) == (7, 9)  # 0..8 priced: 8 is the neighbour that shows 7 is the least
    best, tried = descend([layout(0)], cost, neighbours, budget=3)
    assert (best.hours, tried) == (2, 3)


def test_a_bad_budget_is_a_usage_error(run_cli):
    code, _, err = run_cli("cache", "optimize", *TRACE, *INPUTS, "--budget", "0")
    assert code == 2 and "--budget: expected a whole number of at least 1" in err
