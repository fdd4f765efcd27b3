"""A scenario's expected files: the compiled prompt's parts, and a context report with local
paths masked; any local path left in them is refused."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..._lib import resources
from ..._lib.errors import Location
from ...emit import context, payloads
from ...model.prompt import Prompt
from ...warm.compiler import compile_once
from .scenario import SCENARIO_FILE, Scenario, ScenarioError

OUTPUT_NAMES = ("stable.md", "volatile.md", "context.json", "developer.md", "turn.md")
"""Every file `gen` may write into a scenario dir; the last two only for the codex harness."""
TOKEN_KEYS = ("tokens", "stable_tokens", "volatile_tokens")
"""Report keys left out of context.json: their values depend on the optional `tokens` extra."""


def compile_scenario(scenario: Scenario) -> Prompt:
    """The scenario's prompt, compiled without recording any state into its fixture."""
    prompt, _ = compile_once(scenario.request)
    return prompt


def render(scenario: Scenario, prompt: Prompt) -> dict[str, str]:
    """The scenario's expected files (name -> text), checked not to mention local paths."""
    outputs = {"stable.md": _markdown(prompt.stable), "volatile.md": _markdown(prompt.volatile)}
    outputs["context.json"] = _mask(payloads.dumps(context_report(prompt)), scenario.masks)
    for name, text in (prompt.surfaces or {}).items():
        if name != "instructions":  # the instructions are stable.md + volatile.md
            outputs[f"{name}.md"] = _markdown(text)
    _guard(scenario, outputs)
    return outputs


def _markdown(text: str) -> str:
    return text + "\n" if text else ""


def context_report(prompt: Prompt) -> dict[str, Any]:
    """`promptc context --format json` without token counts, plus each section's source and
    every omitted section with the reason, so a diff shows why a section came or went."""
    report = _without_tokens(context.report(prompt))
    sources = {s.id: s.source for s in prompt.sections}
    for section in report["sections"]:
        section["source"] = sources[section["id"]]
    report["omitted"] = [{"id": sid, "why": why} for sid, rendered, why in prompt.outline if not rendered]
    return report


def _without_tokens(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_tokens(v) for k, v in value.items() if k not in TOKEN_KEYS}
    if isinstance(value, list):
        return [_without_tokens(item) for item in value]
    return value


def _mask(text: str, masks: Sequence[tuple[str, str]]) -> str:
    for local, placeholder in masks:
        text = _whole_path(local).sub(placeholder.replace("\\", "\\\\"), text)
    return text


def _whole_path(path: str) -> re.Pattern[str]:
    """`path` where it stands as a whole path in text (alone or followed by `/...`), never as
    the start of a longer name: `/s` matches in `/s/x` and `/s.` but not in `/srv`."""
    return re.compile(rf"(?<![\w.~/-]){re.escape(path)}(?![\w-]|\.[\w-])")


def _guard(scenario: Scenario, outputs: Mapping[str, str]) -> None:
    """Refuse outputs that name a local path: they would differ in every clone."""
    local = [path for path, _ in scenario.masks] + [str(resources.templates_root().parent)]
    for name, text in outputs.items():
        for path in local:
            if _whole_path(path).search(text):
                message = (
                    f"{name} would contain the local path {path}; set agents.defaults.workspace"
                    " (and any other path) to a fixed absolute path in the scenario's config"
                )
                raise ScenarioError(message, Location(str(scenario.dir / SCENARIO_FILE)))
