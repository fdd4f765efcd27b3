"""Compile every variant of a matrix, in `warm.batch` workers, into a bundle in memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import tiers as cache_tiers
from ...emit import context, tokens
from ...model.prompt import Prompt
from ...model.request import Request
from ...model.runfacts import RunFacts
from ...warm import batch
from ...warm import compiler as engine
from .matrix import ROW_KEYS, row_key
from .model import FORMAT, Built, StableParts

Chunk = tuple[list[dict[str, Any]], dict[str, str], dict[str, StableParts]]
"""What one worker returns: manifest rows, and the stable texts they use with their parts."""


def build(variants: Sequence[RunFacts], request: Request, jobs: int = 1) -> Built:
    """Compile every variant with `request` (its run replaced) and collect the distinct stable texts.

    One warm Compiler per process reads the inputs once; with `jobs` > 1 consecutive variants
    are compiled in worker processes (`warm.batch`). Each distinct stable text is rendered
    and counted once per worker. A build writes no state files: its variants are not turns of
    a real session.
    """
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    parts: dict[str, StableParts] = {}
    tokens.count("")  # build the encoding here, once: forked workers inherit it
    for chunk_rows, chunk_stable, chunk_parts in batch.map_chunks(request, variants, _build_chunk, jobs):
        rows += chunk_rows
        stable.update((sha, text) for sha, text in chunk_stable.items() if sha not in stable)
        parts.update((sha, made) for sha, made in chunk_parts.items() if sha not in parts)
    manifest = {"format": FORMAT, "token_method": token_method(), "variants": rows}
    return Built(manifest, stable, parts)


def _build_chunk(compiler: engine.Compiler, variants: Sequence[RunFacts]) -> Chunk:
    """Rows for consecutive variants and the stable texts they use (with what each is made
    of), in first-use order."""
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    parts: dict[str, StableParts] = {}
    stable_tokens: dict[str, int] = {}
    for run in variants:
        prompt, _ = compiler.compile_pending(run)
        sha = prompt.stable_sha256
        if sha not in stable:
            stable[sha], stable_tokens[sha] = prompt.stable, context.token_count(prompt.stable)
            parts[sha] = StableParts(
                tuple((s.id, s.text) for s in prompt.sections if s.side == "stable"),
                tuple((f.name, f.text) for f in prompt.files if f.injected and not f.dynamic),
            )
        rows.append(_row(run, prompt, stable_tokens[sha]))
    return rows, stable, parts


def _row(run: RunFacts, prompt: Prompt, stable_tokens: int) -> dict[str, Any]:
    return {
        **dict(zip(ROW_KEYS, row_key(run))),
        "agent": prompt.agent,  # the resolved id, also when the matrix leaves it to the default
        "stable_sha256": prompt.stable_sha256,
        "volatile_sha256": prompt.volatile_sha256,
        "stable_chars": len(prompt.stable),
        "volatile_chars": len(prompt.volatile),
        "tokens": {"stable": stable_tokens, "volatile": context.token_count(prompt.volatile)},
        "tiers": cache_tiers.entries(prompt.tiers, prompt.units),
    }


def token_method() -> str:
    """How the manifest's token counts were made; counts made differently are not compared."""
    return tokens.ENCODING_NAME if tokens.count("") is not None else "estimate: UTF-8 bytes / 4"
