"""Plain data made immutable and order-exact (what a user variable's value becomes), and the
hashable key of plain data that keeps apart every two values a template could print differently.

A template iterates what it is given, so every collection that reaches one must have a fixed
order: lists become tuples, mappings become FrozenMaps (insertion order, the order written in
the config or run file), and a set, whose order changes with the hash seed, is refused.
"""

from __future__ import annotations

import datetime
from collections.abc import Hashable, Iterable, Iterator, Mapping
from typing import Any


class FrozenMap(Mapping[str, Any]):
    """An immutable mapping in insertion order, hashable, equal only to a FrozenMap with the
    same keys in the same order and values of the same types: `1`, `1.0` and `true` render
    differently, so two inputs that differ only there must never share a cached result."""

    __slots__ = ("_hash", "_items")

    def __init__(self, items: Iterable[tuple[str, Any]] | Mapping[str, Any] = ()) -> None:
        self._items: dict[str, Any] = dict(items)
        self._hash: int | None = None  # worked out on first use: a run's vars are hashed every turn

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrozenMap) and identity(self) == identity(other)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(identity(self))
        return self._hash

    def __repr__(self) -> str:
        return repr(self._items)  # what `{{ value }}` prints: the mapping as a dict would show


EMPTY = FrozenMap()


def identity(value: Any) -> Hashable:
    """A hashable stand-in for plain data, equal only for values of the same types, in the same
    order, all the way down: `1`, `1.0` and `True` are three identities, `0.0` and `-0.0` two, and a
    list, a tuple and a mapping with the same items three. Text, whole numbers and None stand for
    themselves (no other identity equals them); every other value is tagged with its type, and a
    hashable value of a kind not listed here (a mapping of another kind too) is also compared by
    its own equality. Render contexts are keyed on every turn, so the exact types come first."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if kind is float:
        return (float, value.hex())
    if kind is list or kind is tuple:
        return (kind, tuple(map(identity, value)))
    if kind is dict or kind is FrozenMap:
        return (kind, tuple((identity(name), identity(item)) for name, item in value.items()))
    if isinstance(value, Mapping):  # may answer by more than its items (UserVars: which names raise)
        items = tuple((identity(name), identity(item)) for name, item in value.items())
        return (kind, items, value) if isinstance(value, Hashable) else (kind, items)
    if isinstance(value, (list, tuple, set, frozenset)):
        return (kind, tuple(map(identity, value)))  # a set in the order a template would iterate it
    return (kind, value)


def freeze_plain(value: Any, where: str = "") -> Any:
    """`value` as frozen plain data: text, numbers, booleans and null as they are, lists as
    tuples, mappings (text keys) as FrozenMaps. Anything else raises ValueError naming the
    place inside the value (`where`, then `.key` / `[index]`)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze_plain(item, f"{where}[{index}]") for index, item in enumerate(value))
    if isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise ValueError(f"{where or 'value'}: mapping keys must be text, got {key!r}")
        return FrozenMap((key, freeze_plain(item, f"{where}.{key}" if where else key)) for key, item in value.items())
    raise ValueError(
        f"{where + ': ' if where else ''}expected plain data (text, number, boolean, list or mapping), got {_kind(value)}"
    )


def _kind(value: Any) -> str:
    if isinstance(value, (set, frozenset)):
        return "a set (its order changes from process to process; use a list)"
    if isinstance(value, (datetime.date, datetime.time)):
        return "a date or time (quote it to keep it as text)"
    if isinstance(value, (bytes, bytearray)):
        return "binary data"
    return f"a {type(value).__name__}"


def thaw(value: Any) -> Any:
    """Frozen plain data as JSON-ready data: FrozenMaps as dicts, tuples as lists."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value
