"""The values and records a bundle keeps for its volatile part, as JSON that reads back into equal
values of the same types.

A template prints a tuple, a list and a mapping differently, and `1`, `1.0` and `true` too, so the
encoding keeps every type: a tuple is a JSON array; every other kind is an object with one key
naming it (`{"list": [...]}`, `{"dict": [[key, value], ...]}`, `{"float": "0x1.8p+1"}`), and a
record is `{"RecordName": {field: value, ...}}`. Only the records listed in `RECORDS` are read back.

The large records many recipes share (a workspace file, the workspace half, the skills list, a
section, the config) are parts of their own: a recipe names each by its hash (`{"ref": "<sha256>"}`), and a build stores it once.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from ..._lib.errors import Location
from ..._lib.frozen import FrozenMap
from ...inputs.contributions import Contribution
from ...model.config import (
    Budgets,
    CacheConfig,
    HeartbeatConfig,
    KeepWarm,
    ResolvedConfig,
    SkillsConfig,
    UserVariable,
    VariableDecl,
    VariableValue,
)
from ...model.prompt import RenderedSection, SectionOrigin
from ...model.runfacts import RunFacts
from ...model.runparts import ExecSession, Sandbox, Tool
from ...model.workspace import ContextFile, LoadedWorkspace, SkillEntry, SkillsBlock, WorkspaceFacts
from ...sections.catalogue import Selection
from ...sections.partials import Partial, Partials
from ...sections.sectionfile import SectionSpec
from .model import BundleError, Recipe, Reported, StableLayout

RECORDS: dict[str, type] = {
    kind.__name__: kind
    for kind in (
        Budgets,
        CacheConfig,
        ContextFile,
        Contribution,
        ExecSession,
        HeartbeatConfig,
        KeepWarm,
        LoadedWorkspace,
        Location,
        Partial,
        Partials,
        Recipe,
        RenderedSection,
        Reported,
        ResolvedConfig,
        RunFacts,
        Sandbox,
        SectionOrigin,
        SectionSpec,
        Selection,
        SkillEntry,
        SkillsBlock,
        SkillsConfig,
        StableLayout,
        Tool,
        UserVariable,
        VariableDecl,
        VariableValue,
        WorkspaceFacts,
    )
}
"""The records a bundle keeps, by class name."""

POOLED: tuple[type, ...] = (
    ContextFile,
    Contribution,
    LoadedWorkspace,
    Partial,
    Reported,
    ResolvedConfig,
    Selection,
    SkillsBlock,
    StableLayout,
)
"""The records stored as parts of their own, shared by every recipe that holds one."""
BY_VALUE: tuple[type, ...] = (ContextFile, LoadedWorkspace, Partial, Reported, Selection, SkillsBlock, StableLayout)
"""Pooled records whose fields each have one type, so two equal ones encode alike (`True == 1`, so
a record holding plain user values is recognised by identity instead)."""

_PAIRS: dict[type, str] = {dict: "dict", FrozenMap: "map", MappingProxyType: "proxy"}
_FROM_PAIRS: dict[str, Callable[[list[tuple[Any, Any]]], Any]] = {
    "dict": dict,
    "map": FrozenMap,
    "proxy": lambda pairs: MappingProxyType(dict(pairs)),
}
_TIMES: dict[str, Any] = {"datetime": datetime.datetime, "date": datetime.date, "time": datetime.time}
_TIME_TAGS: dict[type, str] = {kind: tag for tag, kind in _TIMES.items()}
Parts = Callable[[str], Any]
"""A part's decoded value by its SHA-256."""


class Pool:
    """The parts one build's recipes share: SHA-256 -> JSON text, each stored once."""

    def __init__(self) -> None:
        self.parts: dict[str, str] = {}
        self._by_value: dict[Any, str] = {}  # an equal record is encoded once
        self._by_identity: dict[int, tuple[Any, str]] = {}  # so is one that cannot be hashed (kept alive)

    def ref(self, value: Any) -> dict[str, str]:
        """`{"ref": sha}` for a pooled record, its part stored."""
        sha = self._known(value)
        if sha is None:
            text = json.dumps(_record(value, self), separators=(",", ":"))
            sha = hashlib.sha256(text.encode("ascii")).hexdigest()
            self.parts.setdefault(sha, text)
            if not self._remember(value, sha):
                self._by_identity[id(value)] = (value, sha)
        return {"ref": sha}

    def _known(self, value: Any) -> str | None:
        if type(value) in BY_VALUE:
            try:
                return self._by_value.get(value)
            except TypeError:  # a mapping inside (frontmatter): by identity
                pass
        known = self._by_identity.get(id(value))
        return known[1] if known is not None and known[0] is value else None

    def _remember(self, value: Any, sha: str) -> bool:
        if type(value) not in BY_VALUE:
            return False
        try:
            self._by_value[value] = sha
        except TypeError:
            return False
        return True


def dumps(value: Any, pool: Pool | None = None) -> str:
    """`value` encoded as compact JSON (ASCII only, so any text, lone surrogates too, survives);
    with a pool, its large records become parts of the pool."""
    return json.dumps(encode(value, pool), separators=(",", ":"))


def loads(text: str, parts: Parts | None = None) -> Any:
    """The value `dumps` encoded, its parts looked up with `parts`; BundleError for anything else."""
    try:
        return decode(json.loads(text), parts)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise BundleError(f"unreadable ({type(exc).__name__}: {exc})"[:200]) from exc


def encode(value: Any, pool: Pool | None = None) -> Any:
    """Plain JSON data for `value`, its types kept."""
    kind = type(value)
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return {"float": value.hex()}
    if kind is tuple:
        return [encode(item, pool) for item in value]
    if kind is list:
        return {"list": [encode(item, pool) for item in value]}
    if kind in _PAIRS:
        return {_PAIRS[kind]: [[encode(key, pool), encode(item, pool)] for key, item in value.items()]}
    if kind is frozenset:
        return {"frozenset": sorted((encode(item, pool) for item in value), key=json.dumps)}
    if kind in _TIME_TAGS:
        return {_TIME_TAGS[kind]: value.isoformat()}
    if RECORDS.get(kind.__name__) is not kind:
        raise BundleError(f"a bundle cannot keep a value of type {kind.__name__}")
    return pool.ref(value) if pool is not None and kind in POOLED else _record(value, pool)


def _record(value: Any, pool: Pool | None) -> dict[str, Any]:
    kind = type(value)
    return {kind.__name__: {f.name: encode(getattr(value, f.name), pool) for f in dataclasses.fields(kind)}}


def decode(data: Any, parts: Parts | None = None) -> Any:
    """The value `encode` gave `data` for."""
    if data is None or type(data) in (bool, int, str):
        return data
    if type(data) is list:
        return tuple(decode(item, parts) for item in data)
    [(tag, body)] = data.items()
    if tag == "ref" and parts is not None:
        return parts(body)
    if tag == "float":
        return float.fromhex(body)
    if tag == "list":
        return [decode(item, parts) for item in body]
    if tag in _FROM_PAIRS:
        return _FROM_PAIRS[tag]([(decode(key, parts), decode(item, parts)) for key, item in body])
    if tag == "frozenset":
        return frozenset(decode(item, parts) for item in body)
    if tag in _TIMES:
        return _TIMES[tag].fromisoformat(body)
    return RECORDS[tag](**{name: decode(item, parts) for name, item in body.items()})
