"""Validate a config layer against the declared keys (configkeys.py), collecting every problem;
and the other walks over those keys: a table's schema path, the path-valued fields of a tree."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._lib.errors import ConfigError, did_you_mean
from . import openclaw, yamlsrc
from .configkeys import SCHEMA, Field, ListOf, MapOf, Node, Table
from .valuechecks import describe


@dataclass(frozen=True, slots=True)
class Checked:
    """A validated layer tree."""

    data: dict
    """The tree, relative paths resolved; OpenClaw keys promptc does not use kept as written."""
    problems: list[ConfigError]
    """Every problem found; empty when the layer is valid."""
    unchecked: list[str]
    """Dotted names of the OpenClaw keys promptc does not use (accepted without checks, see openclaw.py)."""
    unchecked_paths: list[tuple] = field(default_factory=list)
    """The same keys as key paths."""


def validate(data: dict, located: yamlsrc.Located, base_dir: Path) -> Checked:
    """Check a layer against the schema, collecting every problem."""
    problems: list[ConfigError] = []
    unchecked: list[tuple] = []
    cleaned = _check(SCHEMA, data, (), located, base_dir, (problems, unchecked))
    return Checked(cleaned, problems, [_dotted(path) for path in unchecked], unchecked)


Found = tuple[list[ConfigError], list[tuple]]
"""Where a walk collects (problems, key paths of unchecked OpenClaw keys)."""


def _check(node: Node, value: Any, path: tuple, located: yamlsrc.Located, base_dir: Path, found: Found) -> Any:
    problems = found[0]
    if isinstance(node, Field):
        return _check_field(node, value, path, located, base_dir, problems)
    if isinstance(node, ListOf):
        if not isinstance(value, list):
            problems.append(
                ConfigError(f"{_dotted(path)}: expected a list, got {describe(value)}", located.where(path))
            )
            return value
        return [_check(node.item, item, path + (i,), located, base_dir, found) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        problems.append(ConfigError(f"{_dotted(path)}: expected a mapping, got {describe(value)}", located.where(path)))
        return value
    if isinstance(node, MapOf):
        _check_keys(node, value, path, located, problems)
        return {key: _check(node.value, item, path + (key,), located, base_dir, found) for key, item in value.items()}
    return _check_table(node, value, path, located, base_dir, found)


def _check_keys(node: MapOf, value: dict, path: tuple, located: yamlsrc.Located, problems: list) -> None:
    if node.key is None:
        return
    for key in value:
        problem = node.key(key)
        if problem is not None:
            problems.append(
                ConfigError(f"{_dotted(path)}: key {describe(key)} {problem}", located.where(path + (key,)))
            )


def _check_table(node: Table, value: dict, path: tuple, located: yamlsrc.Located, base_dir: Path, found: Found) -> dict:
    problems, unchecked = found
    result = {}
    for key, item in value.items():
        child = node.fields.get(str(key))
        if child is not None:
            result[key] = _check(child, item, path + (key,), located, base_dir, found)
        elif openclaw.knows(table_pattern(path), str(key)) and key not in openclaw.NOT_SUPPORTED:
            result[key] = item  # kept for skills' `requires.config`, which may name any key
            unchecked.append(path + (key,))
        else:
            problems.append(ConfigError(_not_ours(path, str(key), node), located.where(path + (key,))))
    for key in node.required:
        if key not in value:
            problems.append(ConfigError(f"{_dotted(path)}: missing required key '{key}'", located.where(path)))
    return result


def _not_ours(path: tuple, key: str, node: Table) -> str:
    if key in openclaw.NOT_SUPPORTED:
        return f"'{_dotted(path + (key,))}': OpenClaw's {key} is not supported here; put the included settings in this file"
    known = {**node.fields, **dict.fromkeys(openclaw.KNOWN.get(table_pattern(path), ()))}
    return unknown_key(path, key, known)


def table_pattern(path: tuple) -> str:
    """The schema path of the table at `path`: `agents.list[].heartbeat`, `agents.defaults.models{}`."""
    node: Node | None = SCHEMA
    pattern = ""
    for part in path:
        if isinstance(node, Table):
            pattern, node = f"{pattern}.{part}" if pattern else str(part), node.fields.get(str(part))
        elif isinstance(node, ListOf):
            pattern, node = pattern + "[]", node.item
        elif isinstance(node, MapOf):
            pattern, node = pattern + "{}", node.value
    return pattern


def _check_field(node: Field, value: Any, path: tuple, located: yamlsrc.Located, base_dir: Path, problems: list) -> Any:
    if value is None and node.nullable:
        return None
    problem = node.check(value)
    if problem is not None:
        problems.append(ConfigError(f"{_dotted(path)}: {problem}", located.where(path)))
        return value
    if node.is_path and value not in node.keywords:
        return _resolve_paths(value, base_dir)
    return node.convert(value) if node.convert else value


def _resolve_paths(value: str | list[str], base_dir: Path) -> str | list[str]:
    if isinstance(value, list):
        return [str(_resolve_path(item, base_dir)) for item in value]
    return str(_resolve_path(value, base_dir))


def _resolve_path(text: str, base_dir: Path) -> Path:
    # Absolute but not resolved: a symlink such as `current -> release-2` is followed when the
    # path is used, so repointing it takes effect without the config file changing.
    return Path(os.path.normpath(base_dir / Path(text).expanduser()))


def unknown_key(path: tuple, key: str, known: Mapping[str, Any]) -> str:
    where = f"{_dotted(path)}." if path else ""
    message = f"unknown key '{where}{key}'"
    return message + did_you_mean(key, sorted(known), any_case=True)


def _dotted(path: tuple) -> str:
    return ".".join(f"[{part}]" if isinstance(part, int) else str(part) for part in path).replace(".[", "[")


def path_values(value: Any, node: Node | None = None, where: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(key path, text) of every path-valued config field in a (possibly unvalidated) tree."""
    node = SCHEMA if node is None else node
    if isinstance(node, Field):
        if node.is_path and isinstance(value, str) and value not in node.keywords:
            yield where, value
        elif node.is_path and isinstance(value, list):
            yield from ((where + (i,), text) for i, text in enumerate(value) if isinstance(text, str))
        return
    for key, child, item in _children(node, value):
        yield from path_values(item, child, where + (key,))


def _children(node: Node, value: Any) -> Iterator[tuple[Any, Node, Any]]:
    """(key, schema node, value) below a list or mapping node; keys the schema lacks are skipped."""
    if isinstance(node, ListOf) and isinstance(value, list):
        yield from ((i, node.item, item) for i, item in enumerate(value))
    elif isinstance(node, MapOf) and isinstance(value, dict):
        yield from ((key, node.value, item) for key, item in value.items())
    elif isinstance(node, Table) and isinstance(value, dict):
        yield from ((key, node.fields[str(key)], item) for key, item in value.items() if str(key) in node.fields)
