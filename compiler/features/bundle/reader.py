"""`promptc.Bundle`: a built bundle opened to serve turns, without the config, templates or workspace
it was built from.

`Bundle.open` checks the marker and the hash of every stable and recipe file (an edit is refused
with one located line); `variant(**facts)` finds a variant; `compile(run)` returns the Prompt a
compile from the sources gives for that run: the stable part read, the volatile part rendered from
the variant's recipe, HEARTBEAT.md read from `workspace` when one is given (else as built).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._lib import fsutil
from ..._lib.errors import Location, RunFactsError, UsageError, did_you_mean
from ..._lib.lru import LRU
from ...model.prompt import Prompt
from ...model.runfacts import RunFacts
from ...model.workspace import WorkspaceFile
from ...sections import render
from ...warm import freshness
from ...workspace import loader
from . import codec, recipe, turn
from .dynamic import HEARTBEAT
from .matrix import ROW_KEYS, quoted, row_key, variant_id
from .model import FORMAT_VERSION, LEGACY_FORMAT, BundleError, Recipe
from .store import MANIFEST, MARKER, MAX_FILE_BYTES, RECIPE_NAME, RECIPES_DIR, STABLE_DIR, has_marker

TURN_CACHE_SIZE = 16
"""Prompts an open bundle remembers, keyed on the whole run facts and HEARTBEAT.md's state."""
SHOWN_NEAREST = 3
"""Variants an error names when none matches."""
_SHA = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Variant:
    """One variant of a bundle: the facts that name it (as its manifest row has them) and its hashes."""

    agent: str
    """The agent id (resolved: never None)."""
    session: str
    """The session kind."""
    mode: str
    """The prompt mode (the effective one)."""
    provider: str | None
    """The model provider, when the variant sets one."""
    model: str | None
    """The model id, when the variant sets one."""
    channel: str | None
    """The channel, when the variant sets one."""
    chat_type: str | None
    """The chat type, when the variant sets one."""
    stable_sha256: str
    """SHA-256 of its stable text (`stable/<sha256>.md`)."""
    volatile_sha256: str
    """SHA-256 of its volatile text as built."""
    recipe_sha256: str
    """SHA-256 of its recipe (`recipes/<sha256>.json`)."""

    @property
    def key(self) -> tuple[str | None, ...]:
        """The facts that name it, in manifest order."""
        return tuple(getattr(self, name) for name in ROW_KEYS)

    @property
    def id(self) -> str:
        """`agent=main session=main mode=full provider=anthropic ...`, as `bundle --check` names it."""
        return variant_id(self.key)


class Bundle:
    """A bundle directory opened for serving turns (see `open`). Safe to use from several threads
    (one compile at a time); a returned Prompt may be shared with later turns: treat it as read-only."""

    def __init__(self, path: Path, manifest: Mapping[str, Any], files: Mapping[str, str]) -> None:
        """Use `Bundle.open`."""
        self.path = path
        self.default_agent: str = manifest["default_agent"]
        """The agent a run without `agent` is served for."""
        self.variants: tuple[Variant, ...] = tuple(_variant(row) for row in manifest["variants"])
        """Every variant, in manifest order."""
        self._rows = {v.key: row for v, row in zip(self.variants, manifest["variants"])}
        self._index = {v.key: v for v in self.variants}
        self._files = dict(files)
        self._parts: dict[str, Any] = {}
        self._recipes: dict[str, Recipe] = {}
        self._stored: dict[tuple[str, str], turn.Stored] = {}
        self._turns: LRU[Hashable, Prompt] = LRU(TURN_CACHE_SIZE)
        self._read: dict[str, tuple[freshness.Signature | None, WorkspaceFile]] = {}
        self._renderer = render.Renderer()
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Bundle:
        """The bundle at `path`, every file checked against its hash; one located BundleError when
        it is not a bundle this promptc reads, a file is missing, or one was edited after the build."""
        directory = Path(os.fspath(path))
        if not has_marker(directory):
            raise BundleError(f"not a promptc bundle (no {MARKER} marker)", Location(str(directory)))
        manifest = _manifest(directory)
        files = {f"{STABLE_DIR}/{row['stable_sha256']}.md": "" for row in manifest["variants"]}
        files |= {f"{RECIPES_DIR}/{row['recipe_sha256']}.json": "" for row in manifest["variants"]}
        recipes_dir = directory / RECIPES_DIR
        if recipes_dir.is_dir():
            files |= {
                f"{RECIPES_DIR}/{p.name}": "" for p in sorted(recipes_dir.iterdir()) if RECIPE_NAME.fullmatch(p.name)
            }
        return cls(directory, manifest, {name: verified_text(directory, name) for name in files})

    # ------------------------------------------------------------------ finding a variant

    def variant(self, **facts: str | None) -> Variant:
        """The one variant with these facts (any of agent, session, mode, provider, model, channel,
        chat_type); a BundleError naming the nearest variants when none has them, or the facts to
        choose with when several do."""
        for name in facts:
            if name not in ROW_KEYS:
                raise BundleError(
                    f"unknown variant fact {quoted(name)} (expected {', '.join(ROW_KEYS)}){did_you_mean(name, ROW_KEYS)}"
                )
        matches = [v for v in self.variants if all(getattr(v, k) == value for k, value in facts.items())]
        if len(matches) == 1:
            return matches[0]
        where = Location(str(self.path / MANIFEST))
        wanted = " ".join(f"{k}={quoted(value)}" for k, value in facts.items())
        if not matches:
            raise BundleError(f"no variant has {wanted}; {self._nearest(facts)}", where)
        if not facts:
            raise BundleError(f"the bundle has {len(matches)} variants; {choices(matches)}", where)
        raise BundleError(f"{len(matches)} variants have {wanted}; {choices(matches)}", where)

    def facts(self, variant: Variant, **turn_facts: Any) -> RunFacts:
        """The run facts `variant` was built with, with these turn facts (host, owners, extra_prompt, ...)."""
        fixed = sorted(set(turn_facts) - recipe.TURN_FACTS)
        if fixed:
            raise RunFactsError(f"not turn facts, the bundle fixes them: {', '.join(fixed)}")
        with self._lock:
            built = self._recipe(variant.recipe_sha256).run
        return dataclasses.replace(built, **{"channel": variant.channel, **turn_facts})

    def stable_text(self, variant: Variant) -> str:
        """The variant's stable text, as stored."""
        return self._files[f"{STABLE_DIR}/{variant.stable_sha256}.md"]

    def tiers(self, variant: Variant) -> list[dict[str, Any]]:
        """The variant's cache tiers as its manifest row has them (`tiers.entries` data)."""
        return list(self._rows[variant.key]["tiers"])

    def _nearest(self, facts: Mapping[str, Any]) -> str:
        scored = sorted(self.variants, key=lambda v: -sum(getattr(v, k) == value for k, value in facts.items()))
        return "nearest: " + "; ".join(v.id for v in scored[:SHOWN_NEAREST])

    # ------------------------------------------------------------------ serving a turn

    def compile(self, run: RunFacts | None = None, *, workspace: str | os.PathLike[str] | None = None) -> Prompt:
        """This turn's prompt, equal to compiling `run` from the sources the bundle was built from.

        `workspace`: read HEARTBEAT.md there (as it is now); without it, HEARTBEAT.md is as built.
        Writes no state. Refused (BundleError) when `run` names no variant, or differs from its
        variant in a fact other than the turn facts.
        """
        if run is None:
            run = RunFacts()
        elif not isinstance(run, RunFacts):
            raise RunFactsError(f"Bundle.compile.run: expected RunFacts, got {type(run).__name__}")
        if workspace is not None and not isinstance(workspace, (str, os.PathLike)):
            raise UsageError(f"Bundle.compile.workspace: expected a path, got {type(workspace).__name__}")
        root = None if workspace is None else os.path.abspath(os.fspath(workspace))
        with self._lock:
            read, settled = self._dynamic(root)
            key = _turn_key(run, root, None if root is None else self._read[root][0]) if settled else None
            found = None if key is None else self._turns.get(key)
            if found is None:
                found = self._serve(run, None if root is None or read is None else (root, read))
                if key is not None:
                    self._turns[key] = found
            return found

    def _serve(self, run: RunFacts, dynamic_file: tuple[Any, WorkspaceFile] | None) -> Prompt:
        key = row_key(dataclasses.replace(run, agent=run.agent or self.default_agent))
        variant = self._index.get(key)
        if variant is None:
            facts = {k: v for k, v in zip(ROW_KEYS, key)}
            raise BundleError(
                f"no variant for these run facts ({variant_id(key)}); {self._nearest(facts)}",
                Location(str(self.path / MANIFEST)),
            )
        return turn.serve(self._stored_variant(variant), run, self._renderer, dynamic_file)

    def _dynamic(self, root: str | None) -> tuple[WorkspaceFile | None, bool]:
        """HEARTBEAT.md as in `root` now (read again only when its stat changed), and whether
        its stat can be trusted to show the next change (not changed in the last two seconds)."""
        if root is None:
            return None, True
        try:
            info: os.stat_result | None = os.stat(os.path.join(root, HEARTBEAT))
        except OSError:
            info = None
        signature = None if info is None else freshness.signature(info)
        settled = info is None or freshness.settled(info, time.time_ns())
        known = self._read.get(root)
        if known is None or known[0] != signature or not settled:
            read = next(f for f in loader.load(Path(root)) if f.name == HEARTBEAT)
            known = self._read[root] = (signature, read)
        return known[1], settled

    def _stored_variant(self, variant: Variant) -> turn.Stored:
        key = (variant.recipe_sha256, variant.stable_sha256)
        if key not in self._stored:
            made = self._recipe(variant.recipe_sha256)
            self._stored[key] = turn.stored(made, self.stable_text(variant), self.tiers(variant))
        return self._stored[key]

    def _recipe(self, sha: str) -> Recipe:
        if sha not in self._recipes:
            self._recipes[sha] = self._decoded(sha, recipe.loads)
        return self._recipes[sha]

    def _part(self, sha: str) -> Any:
        if sha not in self._parts:
            self._parts[sha] = self._decoded(sha, codec.loads)
        return self._parts[sha]

    def _decoded(self, sha: str, read: Any) -> Any:
        name = f"{RECIPES_DIR}/{sha}.json"
        if name not in self._files:
            raise BundleError("missing (a recipe names it)", Location(str(self.path / name)))
        try:
            return read(self._files[name], self._part)
        except BundleError as exc:
            raise BundleError(exc.message, Location(str(self.path / name))) from exc


def _turn_key(run: RunFacts, root: str | None, signature: freshness.Signature | None) -> Hashable | None:
    """What a turn's prompt is remembered by: the whole run facts, and where HEARTBEAT.md was read
    with what its stat said (None: a run fact that is not hashable, never remembered)."""
    key = (run,) if root is None else (run, root, signature)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def choices(matches: list[Variant]) -> str:
    """`choose with channel (telegram, discord), chat_type (direct, group): <ids>`: the facts that
    tell the variants apart, with their values, and the first few variants."""
    axes = []
    for name in ROW_KEYS:
        values = list(dict.fromkeys(getattr(v, name) for v in matches))
        if len(values) > 1:
            shown = ", ".join(quoted(value) if value is None else str(value)[:40] for value in values[:8])
            axes.append(f"{name} ({shown}{', ...' if len(values) > 8 else ''})")
    listed = "; ".join(v.id for v in matches[:SHOWN_NEAREST]) + (
        f"; ... and {len(matches) - SHOWN_NEAREST} more" if len(matches) > SHOWN_NEAREST else ""
    )
    return f"choose with {', '.join(axes)}: {listed}"


def _variant(row: Mapping[str, Any]) -> Variant:
    return Variant(**{name: row[name] for name in (*ROW_KEYS, "stable_sha256", "volatile_sha256", "recipe_sha256")})


def _manifest(directory: Path) -> dict[str, Any]:
    """The manifest, checked to be one this promptc serves from."""
    path = directory / MANIFEST
    data = fsutil.read_input(path, BundleError, MAX_FILE_BYTES)
    try:
        manifest = _checked(json.loads(data.decode("utf-8")))
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        raise BundleError(
            f"not a bundle manifest promptc can read ({type(exc).__name__}: {exc})"[:300], Location(str(path))
        ) from exc
    return manifest


def _checked(manifest: Any) -> dict[str, Any]:
    version = manifest.get("format_version", manifest.get("format"))
    if version == LEGACY_FORMAT:
        raise ValueError("format 1, from before bundles could serve turns: rebuild it")
    if version != FORMAT_VERSION:
        raise ValueError(f"format {quoted(version)}, this promptc reads format {FORMAT_VERSION}")
    if "shard" in manifest:
        shard = manifest["shard"]
        raise ValueError(
            f"shard {shard['index']}/{shard['count']} of a bundle: merge the shards first (promptc bundle merge)"
        )
    if not isinstance(manifest["default_agent"], str) or not isinstance(manifest["variants"], list):
        raise TypeError("default_agent must be text and variants a list")
    for row in manifest["variants"]:
        for field in ("stable_sha256", "recipe_sha256"):
            if not isinstance(row[field], str) or not _SHA.fullmatch(row[field]):
                raise ValueError(f"{field} {quoted(row[field])} is not a SHA-256")
        if not isinstance(row["tiers"], list):
            raise TypeError("tiers must be a list")
    return manifest


def verified_text(directory: Path, name: str) -> str:
    """A bundle file's text, refused when its content does not hash to its name."""
    path = directory / name
    data = fsutil.read_input(path, BundleError, MAX_FILE_BYTES)
    if hashlib.sha256(data).hexdigest() != path.name.rsplit(".", 1)[0]:
        raise BundleError("content does not match its name: the file was changed after the build", Location(str(path)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BundleError(f"not UTF-8 text ({exc})", Location(str(path))) from exc
