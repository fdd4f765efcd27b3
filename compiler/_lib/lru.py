"""A bounded mapping that forgets the least recently used entry."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Iterator, MutableMapping
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(MutableMapping[K, V]):
    """A bounded map that forgets the least recently used entry (for what inputs were turned
    into: parsed layers, frontmatter, templates, rendered parts)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __getitem__(self, key: K) -> V:
        value = self._items[key]
        self._items.move_to_end(key)
        return value

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        """The value for `key` (now the most recent), or `default`; the hot path of every cache."""
        value = self._items.get(key, default)
        if value is not default:
            self._items.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __delitem__(self, key: K) -> None:
        del self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
