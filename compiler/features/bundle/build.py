"""Compile every variant of a matrix, in `warm.batch` workers, into a bundle in memory: the manifest
rows, each distinct stable text, and each variant's recipe with the parts recipes share."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Hashable, Sequence
from typing import Any

from ... import pipeline
from ... import tiers as cache_tiers
from ...emit import context, tokens
from ...model.prompt import Prompt
from ...model.request import Request
from ...model.runfacts import RunFacts
from ...warm import batch
from ...warm.sources import KeptSources
from . import codec, recipe
from .matrix import ROW_KEYS, row_key
from .model import FORMAT_VERSION, Built

Chunk = tuple[list[dict[str, Any]], dict[str, str], dict[str, str]]
"""What one worker returns: manifest rows, the stable texts and the recipe files they use."""


class Sources:
    """One process's state for a build: the pipeline's file-reading stages, kept warm across
    variants (a bundle is one snapshot of its inputs, so nothing is checked between them)."""

    def __init__(self, request: Request) -> None:
        self.sources = KeptSources(request.fixed())
        self.now = request.now
        self.memo = recipe.Memo(self.sources.renderer.env, self.sources.cuts, self.sources.plugins)

    def compile(self, run: RunFacts) -> tuple[Prompt, pipeline.Made]:
        """A variant's prompt and what its stages made; no state is written (a variant is no turn
        of a real session, and a build has no session state)."""
        made: list[pipeline.Made] = []
        prompt, _ = pipeline.run_stages(self.sources, run, now=self.now, observe=made.append)
        return prompt, made[0]

    def default_agent(self) -> str:
        """The agent a run without `agent` compiles for."""
        return self.sources.config(None).agent_id


def build(variants: Sequence[RunFacts], request: Request, jobs: int = 1) -> Built:
    """Compile every variant with `request`'s inputs (its run replaced) into a bundle in memory.

    Consecutive variants go to one process (`warm.batch`); each distinct stable text is rendered
    and counted once per process, and each distinct recipe encoded once.
    """
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    recipes: dict[str, str] = {}
    tokens.count("")  # build the encoding here, once: forked workers inherit it
    start = functools.partial(Sources, request)
    for chunk_rows, chunk_stable, chunk_recipes in batch.map_chunks(start, variants, _build_chunk, jobs):
        rows += chunk_rows
        stable.update((sha, text) for sha, text in chunk_stable.items() if sha not in stable)
        recipes.update((sha, text) for sha, text in chunk_recipes.items() if sha not in recipes)
    return Built(manifest(rows, Sources(request).default_agent()), stable, recipes)


def manifest(rows: list[dict[str, Any]], default_agent: str, **more: Any) -> dict[str, Any]:
    """The `manifest.json` document for these rows (`more`: a shard's own keys, before the rows)."""
    head = {"format_version": FORMAT_VERSION, "token_method": token_method(), "default_agent": default_agent}
    return {**head, **more, "variants": rows}


def _build_chunk(state: Sources, variants: Sequence[RunFacts]) -> Chunk:
    """Rows for consecutive variants, and the stable texts and recipe files they use, in first-use order."""
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    stable_tokens: dict[str, int] = {}
    pool = codec.Pool()
    tops: dict[Hashable, str] = {}
    recipes: dict[str, str] = {}
    for run in variants:
        prompt, made = state.compile(run)
        sha = prompt.stable_sha256
        if sha not in stable:
            stable[sha], stable_tokens[sha] = prompt.stable, context.token_count(prompt.stable)
        shared = recipe.shared_key(run, made)
        if shared not in tops:
            text = recipe.dumps(recipe.make(prompt, made, run, state.memo), pool)
            tops[shared] = hashlib.sha256(text.encode("ascii")).hexdigest()
            recipes.setdefault(tops[shared], text)
        rows.append(_row(run, prompt, stable_tokens[sha], tops[shared]))
    recipes.update((sha, text) for sha, text in pool.parts.items() if sha not in recipes)
    return rows, stable, recipes


def _row(run: RunFacts, prompt: Prompt, stable_tokens: int, recipe_sha: str) -> dict[str, Any]:
    return {
        **dict(zip(ROW_KEYS, row_key(run))),
        "agent": prompt.agent,  # the resolved id, also when the matrix leaves it to the default
        "stable_sha256": prompt.stable_sha256,
        "volatile_sha256": prompt.volatile_sha256,
        "recipe_sha256": recipe_sha,
        "stable_chars": len(prompt.stable),
        "volatile_chars": len(prompt.volatile),
        "tokens": {"stable": stable_tokens, "volatile": context.token_count(prompt.volatile)},
        "tiers": cache_tiers.entries(prompt.tiers, prompt.units),
    }


def token_method() -> str:
    """How the manifest's token counts were made; counts made differently are not compared."""
    return tokens.ENCODING_NAME if tokens.count("") is not None else "estimate: UTF-8 bytes / 4"
