"""Parse results kept on disk between processes, keyed by content.

The frontmatter of SKILL.md files and of section templates rarely changes from one run to the
next. These stores keep each parse result under the SHA-256 of what was parsed, so a later
process still reads every file (its bytes are the key, and the freshness check records them)
and skips only the parsing. Like Python's `.pyc` files, a cache can never change an output,
only how long it takes.

Where: `$PROMPTC_CACHE_DIR` (set empty: no disk cache), else `$XDG_CACHE_HOME/promptc`, else
`~/.cache/promptc`. The directory must be this user's and writable by no one else (an entry
becomes prompt text); otherwise nothing is read or written there. A file's name carries what a
parse depends on besides its input: the format, Python's and PyYAML's versions (and whether
PyYAML has libyaml), and the size and mtime of the parsing modules' sources, so an upgrade or an
edited parser starts a fresh file.
An entry that does not decode to exactly what was stored is a miss; every failure to read or
write is silent (the parse is simply done again).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from .._lib import frozen, fsutil
from .._lib.errors import PromptcError
from .._lib.lru import LRU

K = TypeVar("K")
V = TypeVar("V")

FORMAT = 1
"""Bumped when the file layout or the meaning of an entry changes."""
ENV_VAR = "PROMPTC_CACHE_DIR"
MAX_ENTRIES = 2000
"""Entries a file keeps by default, the ones used last: a file is read whole at a cold start, so
it stays small (2,000 SKILL.md entries are about 1 MB)."""
STALE_SECONDS = 7 * 24 * 3600
"""Another key's file of the same kind not written for this long is removed when one is written."""
SUFFIX = ".json"


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where the stores live, or None when `PROMPTC_CACHE_DIR` is set empty (or there is no home
    directory to put them in)."""
    chosen = environ.get(ENV_VAR)
    if chosen is not None:
        return Path(chosen) if chosen else None
    xdg = environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "promptc"
    try:
        return Path.home() / ".cache" / "promptc"
    except (RuntimeError, KeyError, OSError):  # no home directory to be found: no disk cache
        return None


def file_key(sources: Sequence[str]) -> str:
    """What a parse depends on besides its input: format, Python, PyYAML and whether it runs on
    libyaml (the two parsers differ on a few inputs), the parsers' sources."""
    import yaml

    parts = [f"format={FORMAT}", f"python={sys.version_info[:3]}", f"yaml={yaml.__version__}"]
    parts.append(f"libyaml={yaml.__with_libyaml__}")
    for path in sources:
        try:
            info = os.stat(path)
            parts.append(f"{path}={info.st_size}:{info.st_mtime_ns}")
        except OSError:
            parts.append(f"{path}=?")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


class Store:
    """One kind of parse result on disk (`<kind>-<key>.json`: digest -> JSON value), read whole
    on the first lookup and written again by `flush()` when this process added entries."""

    def __init__(self, directory: Path | None, kind: str, key: str, max_entries: int = MAX_ENTRIES) -> None:
        self.kind, self.max_entries = kind, max_entries
        self.path = None if directory is None else directory / f"{kind}-{key}{SUFFIX}"
        self.entries: dict[str, Any] | None = None
        self.added = 0

    def get(self, digest: str) -> Any:
        """The stored value (None: none), moved to the end: the last used are kept longest."""
        entries = self._entries()
        value = entries.pop(digest, None)
        if value is not None:
            entries[digest] = value
        return value

    def put(self, digest: str, value: Any) -> None:
        """Keep `value` if JSON gives it back exactly; a value it would not is parsed again each
        time rather than stored. Past `max_entries`, the least recently used entry goes."""
        entries = self._entries()
        if self.path is not None and entries.get(digest) != value and _round_trips(value):
            entries.pop(digest, None)
            entries[digest] = value
            self.added += 1
            while len(entries) > self.max_entries:
                del entries[next(iter(entries))]

    def flush(self) -> None:
        """Write the file again if entries were added (atomically; a failure is ignored)."""
        if not self.added or self.path is None or self.entries is None:
            return
        self.added = 0
        data = json.dumps({"format": FORMAT, "entries": self.entries}, separators=(",", ":"))
        try:
            fsutil.write_chunks_atomic(self.path, [data.encode("ascii")], mode=0o600)
        except (OSError, PromptcError):
            return
        _prune(self.path, self.kind)

    def _entries(self) -> dict[str, Any]:
        if self.entries is None:
            if self.path is not None and not _private(self.path.parent):
                self.path = None  # not ours alone: neither read nor written
            self.entries = {} if self.path is None else _load(self.path)
        return self.entries


class Persisted(MutableMapping[K, V], Generic[K, V]):
    """An in-memory LRU of parse results in front of a Store: a memory miss asks the store (by
    `digest(key)`, the value rebuilt by `decode`, None for an entry it does not accept), and
    every result set is offered to the store (`encode`d)."""

    def __init__(
        self,
        memory: LRU[K, V],
        store: Store,
        digest: Callable[[K], str],
        encode: Callable[[V], Any],
        decode: Callable[[Any], V | None],
    ) -> None:
        self.memory, self.store = memory, store
        self.digest, self.encode, self.decode = digest, encode, decode

    def __contains__(self, key: object) -> bool:
        if key in self.memory:
            return True
        stored = self.store.get(self.digest(key))  # type: ignore[arg-type]
        value = None if stored is None else self.decode(stored)
        if value is None:
            return False
        self.memory[key] = value  # type: ignore[index]
        return True

    def __getitem__(self, key: K) -> V:
        if key not in self:
            raise KeyError(key)
        return self.memory[key]

    def __setitem__(self, key: K, value: V) -> None:
        self.memory[key] = value
        self.store.put(self.digest(key), self.encode(value))

    def __delitem__(self, key: K) -> None:
        del self.memory[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self.memory)

    def __len__(self) -> int:
        return len(self.memory)

    def flush(self) -> None:
        self.store.flush()


def _private(directory: Path) -> bool:
    """The directory (made if absent, mode 0700) is a real directory of this user's that no one
    else can write to."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(directory)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def _load(path: Path) -> dict[str, Any]:
    """The file's entries; none when it is absent, unreadable or not the shape `flush` writes."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
        return {}
    entries: dict[str, Any] = data["entries"]
    return entries


def _round_trips(value: Any) -> bool:
    try:
        return frozen.identity(json.loads(json.dumps(value, allow_nan=False))) == frozen.identity(value)
    except (TypeError, ValueError, RecursionError):
        return False


def _prune(kept: Path, kind: str) -> None:
    """Remove this kind's files under other keys not written for a week (an upgrade leaves one)."""
    cutoff = time.time() - STALE_SECONDS
    try:
        for entry in os.scandir(kept.parent):
            ours = entry.name.startswith(kind + "-") and entry.name.endswith(SUFFIX) and entry.name != kept.name
            if ours and entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)
    except OSError:
        return
