"""The compiled prompt as text, JSON, or a provider request fragment (SPEC 7)."""

from __future__ import annotations

import json
from typing import Any, Callable

from ..model import Prompt


def to_text(prompt: Prompt) -> str:
    """The prompt with the marker in-band (none mode: identity only)."""
    return prompt.text + "\n"


def to_json(prompt: Prompt) -> str:
    """Everything about the compile, as one JSON document."""
    return dumps(as_dict(prompt))


def as_dict(prompt: Prompt) -> dict[str, Any]:
    """The JSON document as plain data (keys of SPEC 7, plus `surfaces` for codex)."""
    data: dict[str, Any] = {
        "stable": prompt.stable,
        "volatile": prompt.volatile,
        "text": prompt.text,
        "boundary": prompt.boundary,
        "mode": prompt.mode,
        "sections": [{"id": s.id, "side": s.side, "chars": len(s.text), "source": s.source} for s in prompt.sections],
        "files": [_file(f) for f in prompt.files],
        "skills": [
            {"name": e.name, "location": e.location, "version": e.version, "included": e.included}
            for e in prompt.skills.entries
        ],
        "heartbeat": {"skip": prompt.heartbeat_skip},
        "warnings": list(prompt.warnings),
        "fingerprint": {"stable_sha256": prompt.stable_sha256, "volatile_sha256": prompt.volatile_sha256},
    }
    if prompt.surfaces is not None:
        data["surfaces"] = dict(prompt.surfaces)
    return data


def _file(f) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": f.name, "path": f.path, "status": f.status}
    if f.reason:
        entry["reason"] = f.reason
    entry.update(raw_chars=f.raw_chars, injected_chars=f.injected_chars, frontmatter=f.frontmatter)
    return entry


def to_anthropic(prompt: Prompt) -> str:
    """Two system blocks; only the stable one carries cache_control."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": prompt.stable, "cache_control": {"type": "ephemeral"}}]
    if prompt.volatile:
        blocks.append({"type": "text", "text": prompt.volatile})
    return dumps({"system": blocks})


def to_openai(prompt: Prompt) -> str:
    """One system message, stable text first so automatic prefix caching can match it."""
    content = "\n\n".join(part for part in (prompt.stable, prompt.volatile) if part)
    return dumps({"messages": [{"role": "system", "content": content}]})


def to_bedrock(prompt: Prompt) -> str:
    """Stable text, a cache point, then the volatile text."""
    system: list[dict[str, Any]] = [{"text": prompt.stable}, {"cachePoint": {"type": "default"}}]
    if prompt.volatile:
        system.append({"text": prompt.volatile})
    return dumps({"system": system})


def dumps(data: Any) -> str:
    """Deterministic JSON: fixed key order as built, UTF-8 kept, two-space indent."""
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"


FORMATS: dict[str, Callable[[Prompt], str]] = {
    "text": to_text,
    "json": to_json,
    "anthropic": to_anthropic,
    "openai": to_openai,
    "bedrock": to_bedrock,
}
