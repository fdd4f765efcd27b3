"""Prompt snapshots: scenarios whose expected outputs are committed, regenerated and checked.
Generation is hermetic: a fixed clock, an empty environment and a fixture workspace."""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._lib import resources
from .._lib.errors import (
    ConfigError,
    Location,
    PromptcError,
    did_you_mean,
)
from .._lib.fsutil import write_text_atomic
from ..emit import context, payloads
from ..inputs import layers, runfacts, schema, yamlsrc
from ..model.prompt import Prompt
from ..model.request import Request
from ..warm.compiler import compile_once
from .cache import diff as cache_diff

SCENARIO_FILE = "scenario.yaml"
FIXED_NOW = "2000-01-01T00:00:00Z"
"""The only clock a scenario sees (it reaches nothing but the workspace state file)."""
PLATFORM = "linux"
"""Skill `metadata.os` checks see this platform, whatever machine generates the snapshots."""
OUTPUT_NAMES = ("stable.md", "volatile.md", "context.json", "developer.md", "turn.md")
"""Every file `gen` may write into a scenario dir; the last two only for the codex harness."""
SCENARIO_KEYS = ("description", "workspace", "config", "run", "contributions", "templates")
TOKEN_KEYS = ("tokens", "stable_tokens", "volatile_tokens")
"""Report keys left out of context.json: their values depend on the optional `tokens` extra."""


class ScenarioError(PromptcError):
    """A scenario file is malformed, or its outputs would depend on where the repo lives."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One scenario: its compile request and the paths inside its dir that are inputs."""

    name: str
    """The scenario dir's name."""
    dir: Path
    """The scenario dir."""
    request: Request
    """A hermetic compile request (fixed clock, empty environment, no session state)."""
    inputs: frozenset[Path]
    """scenario.yaml and every file or dir it references; never reported as stale."""
    masks: tuple[tuple[str, str], ...]
    """(local path, placeholder) pairs applied to context.json, longest path first."""


@dataclass(frozen=True, slots=True)
class Drift:
    """What `check` found; empty lists mean the committed snapshots are current."""

    drifted: tuple[tuple[str, str, str], ...]
    """(path relative to the snapshots dir, committed text, generated text)."""
    missing: tuple[str, ...]
    """Expected files that do not exist."""
    stale: tuple[str, ...]
    """Files that are neither inputs nor expected outputs."""
    scenarios: int
    """How many scenarios were compiled."""
    files: int
    """How many output files they produce."""
    tiers: Mapping[str, str] = field(default_factory=dict)
    """For each drifted stable.md: which cache tiers the change invalidates, and by what."""

    @property
    def clean(self) -> bool:
        """True when nothing drifted, is missing or is stale."""
        return not (self.drifted or self.missing or self.stale)


# --------------------------------------------------------------------------- scenarios


def discover(root: Path, extra_templates: Sequence[Path] = ()) -> list[Scenario]:
    """Every scenario under `root`, in sorted order; dirs starting with `_` or `.` are fixtures."""
    if not root.is_dir():
        raise ScenarioError("snapshots directory not found", Location(str(root)))
    dirs = [d for d in sorted(root.iterdir()) if (d / SCENARIO_FILE).is_file() and not _ignored(d)]
    return [load_scenario(d, extra_templates) for d in dirs]


def _ignored(path: Path) -> bool:
    return path.name.startswith((".", "_"))


def load_scenario(directory: Path, extra_templates: Sequence[Path] = ()) -> Scenario:
    """Read one scenario.yaml into a hermetic compile request."""
    located = yamlsrc.load_file(directory / SCENARIO_FILE, ScenarioError)
    data = located.value
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a mapping", located.where(()))
    _check_keys(data, located)
    workspace = _input_path(directory, data["workspace"], located, ("workspace",), want_dir=True)
    layers, config_files = _config(directory, data.get("config"), located)
    own_templates = _paths(directory, data.get("templates"), located, "templates", want_dir=True)
    contributions = _paths(directory, data.get("contributions"), located, "contributions", want_dir=False)
    request = Request(
        run=runfacts.from_mapping(_mapping(data, "run", located), _sub(located, "run")),
        config_layers=layers,
        workspace=workspace,
        template_dirs=(*extra_templates, *own_templates),
        contribution_paths=contributions,
        env={},
        now=FIXED_NOW,
        plugins=False,
        platform=PLATFORM,
    )
    referenced = (workspace, *config_files, *_config_paths(layers), *own_templates, *contributions)
    inputs = frozenset({(directory / SCENARIO_FILE).resolve(), *referenced})
    masks = _masks(directory, workspace, (*extra_templates, *own_templates))
    return Scenario(directory.name, directory, request, inputs, masks)


def _check_keys(data: dict, located: yamlsrc.Located) -> None:
    for key in data:
        if key not in SCENARIO_KEYS:
            hint = did_you_mean(str(key), SCENARIO_KEYS)
            raise ScenarioError(f"unknown scenario key '{key}'{hint}", located.where((key,)))
    for key in ("description", "workspace"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ScenarioError(f"'{key}' is required and must be text", located.where((key,)))


def _mapping(data: dict, key: str, located: yamlsrc.Located) -> dict:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ScenarioError(f"'{key}' must be a mapping", located.where((key,)))
    return value


def _sub(located: yamlsrc.Located, key: str) -> yamlsrc.Located:
    """The part of a located document below one top-level key, with its locations."""
    inner = {path[1:]: where for path, where in located.locations.items() if path[:1] == (key,)}
    return yamlsrc.Located(located.value.get(key), inner, located.path)


def _config(directory: Path, value: Any, located: yamlsrc.Located) -> tuple[tuple[layers.Layer, ...], tuple[Path, ...]]:
    """The scenario's config as one layer, and the config file it came from (if any).

    An inline tree is a layer located in scenario.yaml, so its errors name that file's lines;
    relative paths resolve against the directory of the file that holds them, never the
    working directory, and a `~` path is refused: it would read the home directory.
    """
    if value is None:
        return (), ()
    files: tuple[Path, ...] = ()
    if isinstance(value, str):
        path = _input_path(directory, value, located, ("config",), want_dir=False)
        tree, base, files = yamlsrc.load_file(path, ConfigError), path.parent, (path,)
    elif isinstance(value, dict):
        tree, base = _sub(located, "config"), directory
    else:
        raise ScenarioError("'config' must be a mapping or a file name", located.where(("config",)))
    _refuse_home_paths(tree)
    return (layers.layer_from(tree, tree.path, base),), files


def _refuse_home_paths(tree: yamlsrc.Located) -> None:
    """Raise on the first config path starting with `~`, at its line in the scenario's files."""
    for where, text in schema.path_values(tree.value):
        if text.startswith("~"):
            message = f"'{text}': a scenario may not use '~' paths (the output would depend on the home directory)"
            raise ScenarioError(message, tree.where(where))


def _config_paths(layers: Sequence[layers.Layer]) -> list[Path]:
    """Every path the config layers name (template and skill dirs, docs, workspaces), resolved."""
    return [Path(text).resolve() for layer in layers for _, text in schema.path_values(layer.data)]


def _paths(directory: Path, value: Any, located: yamlsrc.Located, key: str, *, want_dir: bool) -> tuple[Path, ...]:
    items = [value] if isinstance(value, str) else value or []
    if not isinstance(items, list):
        raise ScenarioError(f"'{key}' must be a path or a list of paths", located.where((key,)))
    return tuple(_input_path(directory, item, located, (key, i), want_dir=want_dir) for i, item in enumerate(items))


def _input_path(directory: Path, value: Any, located: yamlsrc.Located, where: tuple, *, want_dir: bool) -> Path:
    """A path relative to the scenario dir that must exist (as a dir or a file)."""
    path = (directory / str(value)).resolve() if isinstance(value, str) else None
    if path is None or not (path.is_dir() if want_dir else path.is_file()):
        kind = "directory" if want_dir else "file"
        raise ScenarioError(f"{kind} not found: {value!r} (paths are relative to the scenario)", located.where(where))
    return path


def _masks(directory: Path, workspace: Path, template_dirs: Iterable[Path]) -> tuple[tuple[str, str], ...]:
    pairs = [(str(workspace), "<workspace>"), (str(directory.parent.resolve()), "<snapshots>")]
    pairs += [(str(Path(t).resolve()), "<templates>") for t in template_dirs]
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


# --------------------------------------------------------------------------- outputs


def render(scenario: Scenario) -> dict[str, str]:
    """The scenario's expected files (name -> text), checked not to mention local paths."""
    prompt, _ = compile_once(scenario.request)  # never write state into a fixture
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


# --------------------------------------------------------------------------- gen / check


def expected_files(root: Path, extra_templates: Sequence[Path] = ()) -> tuple[list[Scenario], dict[str, str]]:
    """Every scenario and every file it should have (path relative to `root` -> text)."""
    scenarios = discover(root, extra_templates)
    files = {}
    for scenario in scenarios:
        for name, text in render(scenario).items():
            files[f"{scenario.name}/{name}"] = text
    return scenarios, files


def present_files(root: Path, scenarios: Sequence[Scenario]) -> set[str]:
    """Files that are outputs or stale candidates: everything in a scenario dir but its inputs,
    and the output-named files left in dirs that lost their scenario.yaml."""
    found: set[str] = set()
    for scenario in scenarios:
        found |= {_rel(root, p) for p in _files_under(scenario.dir) if _generated_or_stale(p, scenario)}
    known = {s.dir for s in scenarios}
    for orphan in (d for d in sorted(root.iterdir()) if d.is_dir() and d not in known and not _ignored(d)):
        found |= {_rel(root, orphan / name) for name in OUTPUT_NAMES if (orphan / name).is_file()}
    return found


def _files_under(directory: Path) -> list[Path]:
    """Files below `directory`, skipping hidden ones (editor swap files, .gitkeep, ...)."""
    files = (p for p in sorted(directory.rglob("*")) if p.is_file())
    return [p for p in files if not any(part.startswith(".") for part in p.relative_to(directory).parts)]


def _generated_or_stale(path: Path, scenario: Scenario) -> bool:
    """An output name beside scenario.yaml, or any file that is no input (a stale candidate)."""
    if path.parent == scenario.dir and path.name in OUTPUT_NAMES:
        return True  # even when an input names the scenario dir itself (`docsPath: .`)
    resolved = path.resolve()
    return not any(resolved.is_relative_to(i) for i in scenario.inputs)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def check(root: Path, extra_templates: Sequence[Path] = ()) -> Drift:
    """Compare the committed snapshots with freshly generated ones; nothing is written."""
    scenarios, expected = expected_files(root, extra_templates)
    drift = compare(root, scenarios, expected)
    by_name = {scenario.name: scenario for scenario in scenarios}
    words = {}
    for rel, committed, _ in drift.drifted:
        if rel.endswith("/stable.md"):
            prompt, _ = compile_once(by_name[rel.rsplit("/", 1)[0]].request)
            words[rel] = cache_diff.summary(cache_diff.compare_text(committed.removesuffix("\n"), prompt))
    return dataclasses.replace(drift, tiers=words)


def compare(root: Path, scenarios: Sequence[Scenario], expected: Mapping[str, str]) -> Drift:
    """Sort the files on disk into drifted, missing and stale against `expected`."""
    present = present_files(root, scenarios)
    drifted = []
    for rel in sorted(set(expected) & present):
        committed = (root / rel).read_bytes()
        if committed != expected[rel].encode("utf-8"):
            drifted.append((rel, committed.decode("utf-8", errors="replace"), expected[rel]))
    missing = tuple(sorted(set(expected) - present))
    stale = tuple(sorted(present - set(expected)))
    return Drift(tuple(drifted), missing, stale, len(scenarios), len(expected))


def gen(root: Path, extra_templates: Sequence[Path] = ()) -> Drift:
    """Write every changed or missing output (each atomically) and delete stale files.

    Every scenario is compiled before the first write, so an error leaves the snapshots
    untouched. Returns what was out of date before writing.
    """
    scenarios, expected = expected_files(root, extra_templates)
    drift = compare(root, scenarios, expected)
    for rel in [rel for rel, _, _ in drift.drifted] + list(drift.missing):
        write_text_atomic(root / rel, expected[rel])
    for rel in drift.stale:
        (root / rel).unlink()
        _remove_empty_parents((root / rel).parent, root)
    return drift


def _remove_empty_parents(directory: Path, root: Path) -> None:
    while directory != root and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent


# --------------------------------------------------------------------------- reporting


def format_drift(drift: Drift) -> str:
    """Every drifted file with a unified diff, then missing and stale files, then a summary."""
    lines: list[str] = []
    for rel, committed, generated in drift.drifted:
        lines.append(f"{rel}: differs from the generated output{_cache_note(rel, drift.tiers.get(rel))}")
        lines += _diff(rel, committed, generated)
    lines += [f"{rel}: missing (run `promptc snapshot gen`)" for rel in drift.missing]
    lines += [f"{rel}: stale file (not generated by any scenario)" for rel in drift.stale]
    lines.append(_summary(drift))
    return "\n".join(lines) + "\n"


def _cache_note(rel: str, tiers: str | None) -> str:
    if not rel.endswith("/stable.md"):
        return ""
    scenario = rel.rsplit("/", 1)[0]
    return (
        f"; the STABLE part changed: every user of the {scenario} variant loses the cached"
        " prompt prefix once this ships (a cache invalidation)" + (f"\n{rel}: {tiers}" if tiers else "")
    )


def _diff(rel: str, committed: str, generated: str) -> list[str]:
    diff = difflib.unified_diff(
        committed.splitlines(keepends=True),
        generated.splitlines(keepends=True),
        fromfile=f"{rel} (committed)",
        tofile=f"{rel} (generated)",
    )
    return [line.rstrip("\n") for line in diff]


def _summary(drift: Drift) -> str:
    counts = f"{len(drift.drifted)} differ, {len(drift.missing)} missing, {len(drift.stale)} stale"
    line = f"snapshot drift: {counts}; run `promptc snapshot gen` to accept the new output"
    invalidated = [rel.rsplit("/", 1)[0] for rel, _, _ in drift.drifted if rel.endswith("/stable.md")]
    if invalidated:
        line += f"\ncache invalidated: the stable part changed in {', '.join(invalidated)}"
    return line


# --------------------------------------------------------------------------- CLI
