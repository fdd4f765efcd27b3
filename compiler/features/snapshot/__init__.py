"""Prompt snapshots: scenarios whose expected outputs are committed, regenerated and checked.
Generation is hermetic: a fixed clock, an empty environment and a fixture workspace."""

from __future__ import annotations

from .drift import Drift, check, compare, expected_files, gen, present_files
from .outputs import OUTPUT_NAMES, context_report, render
from .report import format_drift
from .scenario import FIXED_NOW, PLATFORM, SCENARIO_FILE, Scenario, ScenarioError, discover, load_scenario

__all__ = [
    "FIXED_NOW",
    "OUTPUT_NAMES",
    "PLATFORM",
    "SCENARIO_FILE",
    "Drift",
    "Scenario",
    "ScenarioError",
    "check",
    "compare",
    "context_report",
    "discover",
    "expected_files",
    "format_drift",
    "gen",
    "load_scenario",
    "present_files",
    "render",
]
