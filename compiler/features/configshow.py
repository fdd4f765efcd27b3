"""`promptc config show`: the resolved config of one agent as YAML or JSON, each value with the
layer that set it when asked (a file's line and column, `defaults`, or the `--set` flag)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import yaml

from ..inputs import explain, layers
from ..inputs.layers import ConfigSet, Origin

Format = Literal["yaml", "json"]
FORMATS: tuple[str, ...] = ("yaml", "json")


def show(configs: ConfigSet, agent: str | None = None, fmt: Format = "yaml", origins: bool = False) -> str:
    """The resolved config of `agent` (None: the default agent) as text."""
    found = explain.resolved(configs, agent)
    where = {explain.show_key(path): origin_text(origin) for path, origin in found.origins.items()}
    if fmt == "json":
        document: dict[str, Any] = {"agent": found.agent, "config": found.tree}
        if origins:
            document["origins"] = where
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    header = f"# the config agent {found.agent} is compiled with: agents.defaults holds its own values\n"
    return header + "".join(_yaml_lines(found.tree, (), where if origins else None, 0))


def origin_text(origin: Origin) -> str:
    """`config.yaml:4:5` for a value a file set, else the layer's label (`defaults`, `--set K=V`)."""
    location = origin.location
    if origin.label == layers.DEFAULTS or location is None or location.line is None:
        return origin.label
    return str(location)


def _yaml_lines(tree: Mapping[str, Any], path: tuple, where: Mapping[str, str] | None, depth: int) -> list[str]:
    lines = []
    for key, value in tree.items():
        here = path + (key,)
        start = "  " * depth + _scalar(key) + ":"
        if isinstance(value, dict) and value:
            lines.append(start + "\n")
            lines += _yaml_lines(value, here, where, depth + 1)
            continue
        line = f"{start} {_scalar(value)}"
        if where is not None:
            line += f"  # {where[explain.show_key(here)]}"
        lines.append(line + "\n")
    return lines


def _scalar(value: Any) -> str:
    """A value on one line of YAML: plain text where YAML reads it back as the same text, else
    JSON (which YAML reads too)."""
    if isinstance(value, str) and value and "#" not in value and value == value.strip():
        try:
            if yaml.safe_load(f"key: {value}") == {"key": value}:
                return value
        except yaml.YAMLError:
            pass
    return json.dumps(value, ensure_ascii=False)
