"""The compiled prompt as text, as JSON data, or as the system part of a provider request.

Every provider emitter returns a plain dict whose keys are the SDK call's own keyword arguments,
so it can be splatted into the call:

    client.messages.create(model=..., max_tokens=..., messages=..., **to_anthropic(prompt))
    client.messages.create(model=..., tools=..., **keep_warm_ping(prompt, "anthropic"))
    client.chat.completions.create(model=..., **to_openai(prompt, messages=[...]))
    client.responses.create(model=..., input=..., **to_responses(prompt))
    bedrock.converse(modelId=..., messages=..., **to_bedrock(prompt))

Only the command line serialises them (`serialise`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .. import tiers as cache_tiers
from .._lib.errors import UsageError
from ..model.prompt import CacheTier, Prompt
from ..model.units import JOIN
from ..model.workspace import ContextFile

Payload = str | dict[str, Any]
"""What an emitter returns: text for `text`, data for everything else."""

DEVELOPER_ROLE_MODELS = re.compile(r"(^|[/:])(gpt-5|o[1-9])([.\-]|$)", re.IGNORECASE)
"""OpenAI model families whose API documents the `developer` role for instructions (gpt-5*, the
o-series reasoning models); every other model gets `system`."""


def to_text(prompt: Prompt) -> str:
    """The prompt with the marker in-band (none mode: identity only)."""
    return prompt.text + "\n"


def to_json(prompt: Prompt) -> dict[str, Any]:
    """Everything about the compile as plain data (the keys `--format json` documents, plus `surfaces` for codex)."""
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
        "heartbeat": {"skip": prompt.heartbeat_skip, "message": prompt.heartbeat_message},
        "warnings": list(prompt.warnings),
        "fingerprint": {"stable_sha256": prompt.stable_sha256, "volatile_sha256": prompt.volatile_sha256},
        "tiers": cache_tiers.entries(prompt.tiers, prompt.units),
        "keep_warm": prompt.keep_warm.as_data() if prompt.keep_warm else None,
    }
    if prompt.surfaces is not None:
        data["surfaces"] = dict(prompt.surfaces)
    return data


def _file(f: ContextFile) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": f.name, "path": f.path, "status": f.status}
    if f.reason:
        entry["reason"] = f.reason
    entry.update(raw_chars=f.raw_chars, injected_chars=f.injected_chars, frontmatter=f.frontmatter)
    return entry


def to_anthropic(prompt: Prompt) -> dict[str, Any]:
    """`system` blocks for the Messages API: one per cache tier, each with `cache_control` (and
    its TTL), then the volatile block; the blocks' texts joined are the OpenAI text. With the
    codex harness the developer files follow the tiers and carry the last breakpoint instead,
    and the per-turn notes are a last block."""
    cached, fresh = _cached_and_fresh(prompt)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text} for text, _ in cached]
    for block, (_, ttl) in zip(blocks, cached):
        if ttl is not None:
            block["cache_control"] = {"type": "ephemeral", "ttl": ttl}
    blocks += [{"type": "text", "text": text} for text in fresh]
    return {"system": blocks}


def to_openai(prompt: Prompt, messages: Iterable[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """`messages` for Chat Completions: one instruction message (stable text first, so automatic
    prefix caching can match it), then the caller's `messages`. With the codex harness every
    surface is an instruction message of its own, cacheable ones first."""
    role = openai_role(prompt.model)
    if prompt.surfaces is None:
        instructions = [{"role": role, "content": unmarked_text(prompt)}]
    else:
        instructions = [{"role": role, "content": text} for text in _surface_texts(prompt)]
    return {"messages": [*instructions, *(dict(m) for m in messages)], **_cache_key(prompt)}


def to_responses(prompt: Prompt) -> dict[str, Any]:
    """`instructions` for the Responses API: the prompt text without the marker (with the codex
    harness: every surface, cacheable ones first, one blank line apart)."""
    if prompt.surfaces is None:
        return {"instructions": unmarked_text(prompt), **_cache_key(prompt)}
    return {"instructions": "\n\n".join(_surface_texts(prompt)), **_cache_key(prompt)}


def _cache_key(prompt: Prompt) -> dict[str, str]:
    """`prompt_cache_key` when `prompt.cache.openaiKey` is on: the same stable part, the same
    key, so OpenAI routes its requests to the same cache; `prompt_cache_retention` when
    `prompt.cache.openaiRetention` is set."""
    key = {"prompt_cache_key": "promptc-" + prompt.stable_sha256[:16]} if prompt.openai_cache_key else {}
    retention = prompt.openai_cache_retention
    return key | ({"prompt_cache_retention": retention} if retention else {})


def to_bedrock(prompt: Prompt) -> dict[str, Any]:
    """`system` for Bedrock Converse: each cache tier's text followed by a cache point (with
    its TTL), then the rest."""
    cached, fresh = _cached_and_fresh(prompt)
    system: list[dict[str, Any]] = []
    for text, ttl in cached:
        system.append({"text": text})
        if ttl is not None:
            system.append({"cachePoint": {"type": "default", "ttl": ttl}})
    system += [{"text": text} for text in fresh]
    return {"system": system}


PING_MESSAGE = "Cache keep-warm ping: no answer is needed."
"""The user message of a keep-warm ping (its reply is capped at one token)."""


def keep_warm_ping(prompt: Prompt, provider: str) -> dict[str, Any]:
    """The request that keeps this prompt's cache entries alive while its model is idle
    (`prompt.cache.keepWarm` says when): the turn's system blocks up to its last breakpoint, byte
    for byte as `to_anthropic` / `to_bedrock` send them, a one-line user message and a reply
    capped at one token. Send it with the turn's model and tools: another tool list is another
    prefix. `provider`: `anthropic` or `bedrock` (OpenAI caches without breakpoints: see
    `prompt.cache.openaiRetention`)."""
    if provider not in PING_PROVIDERS:
        raise UsageError(f"a keep-warm ping is an anthropic or bedrock request, not {provider}")
    system = FORMATS[provider](prompt)["system"]  # type: ignore[index]
    marked = [i for i, block in enumerate(system) if "cache_control" in block or "cachePoint" in block]
    if not marked:
        why = f" (prompt.cache.uncachedSessions names {prompt.session})" if not prompt.breakpoints else ""
        raise UsageError(f"this prompt carries no cache breakpoint{why}: nothing to keep warm")
    cached = system[: marked[-1] + 1]
    if provider == "anthropic":
        return {"system": cached, "messages": [{"role": "user", "content": PING_MESSAGE}], "max_tokens": 1}
    return {
        "system": cached,
        "messages": [{"role": "user", "content": [{"text": PING_MESSAGE}]}],
        "inferenceConfig": {"maxTokens": 1},
    }


PING_PROVIDERS = ("anthropic", "bedrock")
"""The formats a keep-warm ping is sent in: the ones with explicit breakpoints."""


def breakpoints(prompt: Prompt) -> tuple[CacheTier, ...]:
    """The tiers as sent to Anthropic or Bedrock: one too short to cache merged into the next;
    none for a session kind sent uncached."""
    if not prompt.breakpoints:
        return ()
    return cache_tiers.merged(prompt.tiers, cache_tiers.min_tokens(prompt.model))


def _cached_and_fresh(prompt: Prompt) -> tuple[list[tuple[str, str | None]], list[str]]:
    """([(text, breakpoint TTL or None)] before the last cache point, texts after it), empty
    ones left out. With the codex harness the developer files join the cached run and take the
    last tier's breakpoint."""
    surfaces = prompt.surfaces or {}
    developer, turn = surfaces.get("developer", ""), surfaces.get("turn", "")
    cached: list[tuple[str, str | None]]
    if prompt.breakpoints:
        cached = [(t.text, t.ttl) for t in breakpoints(prompt)] or [(prompt.stable, "5m")]
    else:  # a session kind sent uncached: the same blocks, no cache point
        cached = [(t.text, None) for t in prompt.tiers]
    if developer and cached:
        cached = [*cached[:-1], (cached[-1][0], None), (developer, cached[-1][1])]
    fresh = [text for text in (cache_tiers.uncovered(prompt.volatile, prompt.units), turn) if text]
    if not fresh and cached and cached[-1][0].endswith(JOIN):  # the last block ends where the prompt does
        cached[-1] = (cached[-1][0].removesuffix(JOIN), cached[-1][1])
    return [c for c in cached if c[0]], fresh


def _surface_texts(prompt: Prompt) -> list[str]:
    surfaces = prompt.surfaces or {}
    texts = [prompt.stable, surfaces.get("developer", ""), prompt.volatile, surfaces.get("turn", "")]
    return [text for text in texts if text]


def openai_role(model: str | None) -> str:
    """`developer` for the model families that document it, else `system`."""
    return "developer" if model and DEVELOPER_ROLE_MODELS.search(model) else "system"


def unmarked_text(prompt: Prompt) -> str:
    """The stable and volatile parts one blank line apart, without the marker (what OpenAI gets)."""
    return "\n\n".join(part for part in (prompt.stable, prompt.volatile) if part)


def dumps(data: Any) -> str:
    """Deterministic JSON: fixed key order as built, UTF-8 kept, two-space indent."""
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"


def serialise(payload: Payload) -> str:
    """What the command line prints for an emitter's result."""
    return payload if isinstance(payload, str) else dumps(payload)


FORMATS: dict[str, Callable[[Prompt], Payload]] = {
    "text": to_text,
    "json": to_json,
    "anthropic": to_anthropic,
    "openai": to_openai,
    "responses": to_responses,
    "bedrock": to_bedrock,
}
"""`--format` name -> emitter."""
