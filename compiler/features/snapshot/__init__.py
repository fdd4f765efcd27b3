"""Prompt snapshots: scenarios whose expected outputs are committed, regenerated and checked, with
expectations about what each prompt holds and a review report of a change.
Generation is hermetic: a fixed clock, an empty environment and a fixture workspace."""

from __future__ import annotations

from .drift import Check, Compiled, Drift, Failure, check, compare, compile_all, gen
from .expect import EXPECT_KEYS, Expectation
from .outputs import OUTPUT_NAMES, compile_scenario, context_report, render
from .report import current, format_check, format_drift, gen_summary
from .review import Review
from .reviewdoc import REPORT_FORMATS, document
from .scenario import (
    FIXED_NOW,
    PLATFORM,
    SCENARIO_FILE,
    SCENARIO_KEYS,
    Scenario,
    ScenarioError,
    discover,
    json_schema,
    load_scenario,
)

__all__ = [
    "EXPECT_KEYS",
    "FIXED_NOW",
    "OUTPUT_NAMES",
    "PLATFORM",
    "REPORT_FORMATS",
    "SCENARIO_FILE",
    "SCENARIO_KEYS",
    "Check",
    "Compiled",
    "Drift",
    "Expectation",
    "Failure",
    "Review",
    "Scenario",
    "ScenarioError",
    "check",
    "compare",
    "compile_all",
    "compile_scenario",
    "context_report",
    "current",
    "discover",
    "document",
    "format_check",
    "format_drift",
    "gen",
    "gen_summary",
    "json_schema",
    "load_scenario",
    "render",
]
