"""`promptc config show`: the resolved config of one agent as YAML or JSON, each value with the
layer that set it when asked (a file's line and column, `defaults`, or the `--set` flag)."""

from __future__ import annotations

import json
import re
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
        start = "  " * depth + scalar(key) + ":"
        if isinstance(value, dict) and value:
            lines.append(start + "\n")
            lines += _yaml_lines(value, here, where, depth + 1)
            continue
        line = f"{start} {scalar(value)}"
        if where is not None:
            line += f"  # {where[explain.show_key(here)]}"
        lines.append(line + "\n")
    return lines


def scalar(value: Any) -> str:
    """A value on one line of YAML (flow style, quoted and escaped where YAML needs it): text as
    written where YAML reads it back so, else with every character outside ASCII escaped."""
    for readable in (True, False):
        flow = yaml.safe_dump([value], default_flow_style=True, width=float("inf"), allow_unicode=readable)
        written = flow.strip()[1:-1]  # the one item of a one-item flow list
        if "\n" not in written and yaml.safe_load(f"key: {written}") == {"key": value}:
            return written
    # A mapping key with a line break becomes a YAML complex key over several lines; JSON (which
    # YAML reads) writes it on one line with the break escaped. JSON spells a character beyond
    # U+FFFF as two surrogate escapes, which YAML reads as two characters: use YAML's \U escape.
    return _PAIR.sub(_astral, json.dumps(value, ensure_ascii=True, default=str))


_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})")
"""A surrogate pair escape, not itself after an escaped backslash (group 1 keeps those)."""


def _astral(match: re.Match[str]) -> str:
    high, low = int(match[2], 16), int(match[3], 16)
    return match[1] + f"\\U{0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00):08x}"
