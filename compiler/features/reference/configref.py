"""The config reference page: every key of the config schema with what it accepts, its built-in
default and what it means."""

from __future__ import annotations

from typing import Any

from ..._lib import resources
from ...inputs import configdocs, configkeys, valuechecks
from ...inputs.configkeys import Field, ListOf, MapOf, Node, Table
from .. import schemas
from .markdown import NOTICE, code, table

INTRO = """# Config keys

Every key a config file may set, what it accepts, its built-in default and what it means. A key
written `models{}` takes any name below it (a model id, a skill name, a variable name);
`list[]` is any entry of the list. An agent's `agents.list[]` entry may set any key of
`agents.defaults` for that agent. A key of OpenClaw's own config that promptc does not use is
accepted without checks; any other key is an error with a did-you-mean. `promptc schema config`
prints the same keys as a JSON Schema, and `promptc config show --origins` shows the value of
each for one agent and the layer that set it.
"""

LONG = 60
"""A default longer than this is shown as `built-in text` (`promptc config show` prints it)."""


def page() -> str:
    """The whole page."""
    defaults = resources.shipped_yaml("defaults.yaml")
    parts = [NOTICE, INTRO]
    for key, node in configkeys.SCHEMA.fields.items():
        rows = _rows(node, key, defaults.get(key))
        parts.append(f"\n## `{key}`\n\n{configdocs.description(key)}\n\n")
        parts.append(table(("key", "accepts", "default", "meaning"), rows))
    return "".join(parts)


def _rows(node: Node, pattern: str, default: Any) -> list[list[str]]:
    """One row per key at or below `pattern` (an agent entry's copies of agent settings as one row)."""
    rows = []
    if _has_row(node, pattern):
        rows.append(
            [code(pattern), accepts(node), _default(node, pattern, default), configdocs.description(pattern) or ""]
        )
    for key, child in _children(node):
        below = default.get(key) if isinstance(default, dict) else None
        rows += _rows(child, f"{pattern}{key}" if key in ("[]", "{}") else f"{pattern}.{key}", below)
    if pattern == configdocs.AGENT_ENTRY:
        shared = f"{configdocs.AGENT_ENTRY}.<setting>"
        rows.append([code(shared), "as in `agents.defaults`", "its `agents.defaults` value", _SHARED])
    return rows


def _has_row(node: Node, pattern: str) -> bool:
    """Every key has a row but a top-level table (its heading says it) and an entry of a list or
    map (its parent's row says what the entries are)."""
    return not pattern.endswith(("[]", "{}")) and (not isinstance(node, Table) or "." in pattern)


_SHARED = "Any `agents.defaults` key, for this agent only: its entry is merged over `agents.defaults`."


def _children(node: Node) -> list[tuple[str, Node]]:
    if isinstance(node, Table):
        entry = node is configkeys.AGENT_ENTRY  # its copies of the agent settings are one row
        return [(key, child) for key, child in node.fields.items() if not (entry and key in configkeys.AGENT_FIELDS)]
    if isinstance(node, ListOf):
        return [("[]", node.item)] if isinstance(node.item, Table) else []
    if isinstance(node, MapOf):
        return [("{}", node.value)] if isinstance(node.value, Table) else []
    return []


def accepts(node: Node) -> str:
    """What a key accepts, in words."""
    if isinstance(node, Table):
        return "mapping" + (f"; requires {', '.join(f'`{key}`' for key in node.required)}" if node.required else "")
    if isinstance(node, ListOf):
        if not isinstance(node.item, Table):
            return f"list of {accepts(node.item)}"
        required = ", ".join(f"`{key}`" for key in node.item.required)
        return "list of mappings" + (f", each with {required}" if required else "")
    if isinstance(node, MapOf):
        keys = f" ({schemas.KEY_SHAPES[node.key].words})" if node.key else ""
        return f"mapping{keys}" + ("" if isinstance(node.value, Table) else f" of {accepts(node.value)}")
    words = _check_words(node.check)
    return words + (", or null" if node.nullable else "")


def _check_words(check: valuechecks.Check) -> str:
    if isinstance(check, valuechecks.Choice):
        return "one of " + ", ".join(f"`{word}`" for word in check.choices)
    return schemas.CHECK_SHAPES[check].words


def _default(node: Node, pattern: str, default: Any) -> str:
    """The built-in default of a value, or of an empty mapping or list (entries of lists and maps
    have none of their own)."""
    if "[]" in pattern or "{}" in pattern:
        return ""
    if not isinstance(node, Field) and not (isinstance(default, (list, dict)) and not default):
        return ""
    if default is None:
        return "unset"
    if isinstance(default, str) and (len(default) > LONG or "\n" in default):
        return "built-in text"
    return code(default)
