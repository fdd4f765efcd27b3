"""The JSON Schema of `manifest.json`, so a runtime in another language can read a bundle's stable
texts and cache tiers without promptc. Versioned by `format_version`; the recipes (`recipes/`) are
promptc's own and not described here."""

from __future__ import annotations

from typing import Any

from ...model.config import CACHE_TTLS
from ...model.runfacts import CHAT_TYPES, PROMPT_MODES, SESSION_KINDS
from .matrix import ROW_KEYS
from .model import FORMAT_VERSION

_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_COUNT = {"type": "integer", "minimum": 0}
_TEXT_OR_NULL = {"type": ["string", "null"]}


def _closed(properties: dict[str, Any], description: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """An object with exactly these properties (all required but `optional`)."""
    return {
        "type": "object",
        "description": description,
        "required": [name for name in properties if name not in optional],
        "additionalProperties": False,
        "properties": properties,
    }


def manifest_schema() -> dict[str, Any]:
    """The schema of a bundle's (or a shard's) `manifest.json` as this promptc writes it."""
    unit = _closed(
        {"name": {"type": "string"}, "chars": _COUNT, "sha256": _SHA256},
        "A cache unit: `section:<id>`, `file:<NAME>` or `file:<NAME>#head`; its text is `chars` characters"
        " of the stable text (the units in order, each followed by a blank line, or one line break after a `#head`).",
    )
    tier = _closed(
        {
            "index": {"type": "integer", "minimum": 1},
            "units": {"type": "array", "items": unit},
            "chars": _COUNT,
            "ttl": {"enum": list(CACHE_TTLS)},
            "sha256": _SHA256,
            "key": _SHA256,
        },
        "A cache tier: one provider cache breakpoint after its text (`key`: SHA-256 of the whole prefix through it).",
    )
    by_name: dict[str, Any] = {
        "agent": {"type": "string"},
        "session": {"enum": list(SESSION_KINDS)},
        "mode": {"enum": list(PROMPT_MODES)},
        "chat_type": {"enum": [*CHAT_TYPES, None]},
    }
    facts = {name: by_name.get(name, _TEXT_OR_NULL) for name in ROW_KEYS}
    variant = _closed(
        {
            **facts,
            "stable_sha256": {**_SHA256, "description": "The stable text is `stable/<stable_sha256>.md` (UTF-8)."},
            "volatile_sha256": _SHA256,
            "recipe_sha256": {**_SHA256, "description": "What promptc renders the volatile part from (`recipes/`)."},
            "stable_chars": _COUNT,
            "volatile_chars": _COUNT,
            "tokens": _closed({"stable": _COUNT, "volatile": _COUNT}, "Token counts (see token_method)."),
            "tiers": {"type": "array", "items": tier},
        },
        "One variant: the facts that name it, its texts' hashes and sizes, its cache tiers.",
    )
    shard = _closed(
        {
            "index": {"type": "integer", "minimum": 1},
            "count": {"type": "integer", "minimum": 1},
            "variants": _COUNT,
            "matrix_sha256": _SHA256,
        },
        "Present only in a shard (`bundle --shard I/N`): which slice of which matrix it holds.",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:promptc:bundle-manifest:{FORMAT_VERSION}",
        "title": "promptc bundle manifest",
        **_closed(
            {
                "format_version": {"const": FORMAT_VERSION},
                "token_method": {"type": "string"},
                "default_agent": {"type": "string"},
                "shard": shard,
                "variants": {"type": "array", "items": variant},
            },
            "A bundle's manifest.json: every variant of the matrix, in matrix order.",
            optional=("shard",),
        ),
    }
