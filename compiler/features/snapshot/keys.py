"""How the keys of a scenario file and of its `expect:` block are declared (each key's shape as a
JSON Schema fragment, what an editor checks; its meaning; whether it is required), and the error
a malformed scenario raises."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..._lib.errors import PromptcError


class ScenarioError(PromptcError):
    """A scenario file is malformed, or its outputs would depend on where the repo lives."""


@dataclass(frozen=True, slots=True)
class Key:
    """One key of a mapping a user writes."""

    schema: Mapping[str, Any]
    """The value's shape, as a JSON Schema fragment."""
    doc: str
    """What the key means, for the schema's description and the docs."""
    required: bool = False
    """Whether the mapping must have it."""
    read: Callable[..., Any] | None = None
    """For `expect:` keys: reads the key (its path in a located document, the document) into
    expectations."""


def object_schema(keys: Mapping[str, Key], doc: str) -> dict[str, Any]:
    """The JSON Schema of a mapping holding exactly `keys`."""
    schema: dict[str, Any] = {
        "type": "object",
        "description": doc,
        "properties": {name: {**key.schema, "description": key.doc} for name, key in keys.items()},
        "additionalProperties": False,
    }
    required = [name for name, key in keys.items() if key.required]
    if required:
        schema["required"] = required
    return schema


TEXT: Mapping[str, Any] = {"type": "string", "minLength": 1}
TEXTS: Mapping[str, Any] = {"type": "array", "items": TEXT}
COUNT: Mapping[str, Any] = {"type": "integer", "minimum": 1}
