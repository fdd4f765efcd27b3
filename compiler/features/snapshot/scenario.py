"""Snapshot scenarios: a `scenario.yaml` read into a hermetic compile request (a fixed clock, an
empty environment and a fixture workspace), with the paths that are its inputs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._lib.errors import ConfigError, Location, did_you_mean
from ...inputs import layers, runfacts, schema, yamlsrc
from ...model.request import Request
from . import expect
from .keys import TEXT, TEXTS, Key, ScenarioError, object_schema

SCENARIO_FILE = "scenario.yaml"
FIXED_NOW = "2000-01-01T00:00:00Z"
"""The only clock a scenario sees (it reaches nothing but the workspace state file)."""
PLATFORM = "linux"
"""Skill `metadata.os` checks see this platform, whatever machine generates the snapshots."""
_PATHS = {"oneOf": [TEXT, TEXTS]}
_CONFIG = {"oneOf": [{"type": "object"}, TEXT, {"type": "array", "items": {"oneOf": [{"type": "object"}, TEXT]}}]}
SCENARIO_KEYS: dict[str, Key] = {
    "description": Key(TEXT, "What the scenario shows.", required=True),
    "workspace": Key(TEXT, "The fixture workspace, relative to the scenario directory.", required=True),
    "config": Key(
        _CONFIG,
        "Config layers: an inline config tree, a config file name relative to the scenario directory, or a"
        " list of either (later entries win).",
    ),
    "run": Key({"type": "object"}, "The run facts of the turn."),
    "contributions": Key(_PATHS, "Provider contribution files, relative to the scenario directory."),
    "templates": Key(_PATHS, "User template directories, relative to the scenario directory."),
    "expect": Key(object_schema(expect.EXPECT_KEYS, expect.EXPECT_DOC), expect.EXPECT_DOC),
}
"""Every key of a scenario.yaml."""
SCENARIO_DOC = "One snapshot scenario: the inputs of a hermetic compile, and what its prompt must hold."


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
    expectations: tuple[expect.Expectation, ...] = ()
    """What its prompt must hold (`expect:`), in file order."""


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario.yaml, for editors."""
    return object_schema(SCENARIO_KEYS, SCENARIO_DOC)


def discover(root: Path, extra_templates: Sequence[Path] = ()) -> list[Scenario]:
    """Every scenario under `root`, in sorted order; dirs starting with `_` or `.` are fixtures."""
    if not root.is_dir():
        raise ScenarioError("snapshots directory not found", Location(str(root)))
    dirs = [d for d in sorted(root.iterdir()) if (d / SCENARIO_FILE).is_file() and not ignored(d)]
    return [load_scenario(d, extra_templates) for d in dirs]


def ignored(path: Path) -> bool:
    """A dir starting with `_` or `.`: fixtures and hidden dirs, never a scenario."""
    return path.name.startswith((".", "_"))


def load_scenario(directory: Path, extra_templates: Sequence[Path] = ()) -> Scenario:
    """Read one scenario.yaml into a hermetic compile request."""
    located = yamlsrc.load_file(directory / SCENARIO_FILE, ScenarioError)
    data = located.value
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a mapping", located.where(()))
    _check_keys(data, located)
    workspace = _input_path(directory, data["workspace"], located, ("workspace",), want_dir=True)
    config_layers, config_files = _config(directory, data.get("config"), located)
    own_templates = _paths(directory, data.get("templates"), located, "templates", want_dir=True)
    contributions = _paths(directory, data.get("contributions"), located, "contributions", want_dir=False)
    request = Request(
        run=runfacts.from_mapping(_mapping(data, "run", located), _sub(located, "run")),
        config_layers=config_layers,
        workspace=workspace,
        template_dirs=(*extra_templates, *own_templates),
        contribution_paths=contributions,
        env={},
        now=FIXED_NOW,
        plugins=False,
        platform=PLATFORM,
    )
    referenced = (workspace, *config_files, *_config_paths(config_layers), *own_templates, *contributions)
    inputs = frozenset({(directory / SCENARIO_FILE).resolve(), *referenced})
    masks = _masks(directory, workspace, (*extra_templates, *own_templates))
    expectations = expect.read(located, ("expect",)) if data.get("expect") is not None else ()
    return Scenario(directory.name, directory, request, inputs, masks, expectations)


def _check_keys(data: dict, located: yamlsrc.Located) -> None:
    for key in data:
        if key not in SCENARIO_KEYS:
            hint = did_you_mean(str(key), SCENARIO_KEYS)
            raise ScenarioError(f"unknown scenario key '{key}'{hint}", located.where((key,)))
    for key in (name for name, declared in SCENARIO_KEYS.items() if declared.required):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ScenarioError(f"'{key}' is required and must be text", located.where((key,)))


def _mapping(data: dict, key: str, located: yamlsrc.Located) -> dict:
    value = data.get(key) or {}
    if not isinstance(value, dict):
        raise ScenarioError(f"'{key}' must be a mapping", located.where((key,)))
    return value


def _sub(located: yamlsrc.Located, *path: Any) -> yamlsrc.Located:
    """The part of a located document below `path`, with its locations."""
    inner = {at[len(path) :]: where for at, where in located.locations.items() if at[: len(path)] == path}
    value = located.value
    for part in path:
        value = value.get(part) if isinstance(value, dict) else value[part] if isinstance(value, list) else None
    return yamlsrc.Located(value, inner, located.path)


def _config(directory: Path, value: Any, located: yamlsrc.Located) -> tuple[tuple[layers.Layer, ...], tuple[Path, ...]]:
    """The scenario's config layers (one, or one per list entry, later ones winning), and the
    config files they came from."""
    if value is None:
        return (), ()
    entries = [((i,), item) for i, item in enumerate(value)] if isinstance(value, list) else [((), value)]
    found = [_config_layer(directory, item, located, ("config", *at)) for at, item in entries]
    return tuple(layer for layer, _ in found), tuple(path for _, path in found if path is not None)


def _config_layer(
    directory: Path, value: Any, located: yamlsrc.Located, where: tuple
) -> tuple[layers.Layer, Path | None]:
    """One config layer: an inline tree is located in scenario.yaml, so its errors name that file's
    lines; relative paths resolve against the directory of the file that holds them, never the
    working directory, and a `~` path is refused: it would read the home directory."""
    path = None
    if isinstance(value, str):
        path = _input_path(directory, value, located, where, want_dir=False)
        tree, base = yamlsrc.load_file(path, ConfigError), path.parent
    elif isinstance(value, dict):
        tree, base = _sub(located, *where), directory
    else:
        message = "'config' must be a mapping, a file name or a list of them"
        raise ScenarioError(message, located.where(where))
    _refuse_home_paths(tree)
    return layers.layer_from(tree, tree.path, base), path


def _refuse_home_paths(tree: yamlsrc.Located) -> None:
    """Raise on the first config path starting with `~`, at its line in the scenario's files."""
    for where, text in schema.path_values(tree.value):
        if text.startswith("~"):
            message = f"'{text}': a scenario may not use '~' paths (the output would depend on the home directory)"
            raise ScenarioError(message, tree.where(where))


def _config_paths(config_layers: Sequence[layers.Layer]) -> list[Path]:
    """Every path the config layers name (template and skill dirs, docs, workspaces), resolved."""
    return [Path(text).resolve() for layer in config_layers for _, text in schema.path_values(layer.data)]


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
