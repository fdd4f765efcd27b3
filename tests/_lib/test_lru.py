"""A bounded mapping that forgets the least recently used entry (_lib/lru.py)."""

from __future__ import annotations

from promptc._lib.lru import LRU


def test_lru_forgets_the_least_recently_used() -> None:
    cache: LRU[str, int] = LRU(2)
    cache["a"], cache["b"] = 1, 2
    assert cache["a"] == 1  # a is now the most recent
    cache["c"] = 3
    assert sorted(cache) == ["a", "c"] and len(cache) == 2
