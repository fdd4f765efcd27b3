"""Parse results kept on disk between processes, keyed by content.

The frontmatter of SKILL.md files and of section templates rarely changes from one run to the
next. These stores keep each parse result under the SHA-256 of what was parsed, so a later
process still reads every file (its bytes are the key, and the freshness check records them)
and skips only the parsing. Like Python's `.pyc` files, a cache can never change an output,
only how long it takes.

Where: `$PROMPTC_CACHE_DIR` (set empty: no disk cache), else `$XDG_CACHE_HOME/promptc`, else
`~/.cache/promptc`. The directory must be this user's and writable by no one else (an entry
becomes prompt text); otherwise nothing is read or written there. Each file is checked the same
way as it is opened: a regular file of this user's, no link, writable by no one else, under
MAX_FILE_BYTES; any other is not read. A file's name carries what a parse depends on besides its
input: the format, Python's and PyYAML's versions (and whether PyYAML has libyaml), and a
fingerprint of the whole package (every module and template by name, size and mtime), so an
upgrade or an edit to any code that may decide a cached answer starts a fresh file.
An entry that does not decode to exactly what was stored is a miss; every failure to read or
write is silent (the parse is simply done again).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from .._lib import atomic, frozen, fsutil, resources
from .._lib.errors import PromptcError
from .._lib.lru import LRU
from .._lib.owned import walk_tree

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
MAX_FILE_BYTES = 16 * 1024 * 1024
"""Largest store file read (a full one of SKILL.md entries is about 1 MB)."""
PACKAGE_DEPTH = 8
"""Folder levels of the package and its templates taken into the fingerprint (they have three)."""


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


def file_key() -> str:
    """What a parse depends on besides its input: format, Python, PyYAML and whether it runs on
    libyaml (the two parsers differ on a few inputs), and the package's own code and templates."""
    import yaml

    parts = [f"format={FORMAT}", f"python={sys.version_info[:3]}", f"yaml={yaml.__version__}"]
    parts += [f"libyaml={yaml.__with_libyaml__}", f"package={package_fingerprint()}"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@functools.cache
def package_fingerprint() -> str:
    """`fingerprint` of the package's modules and its built-in templates, taken once per process:
    which modules decide a cached answer (a parser, a check, a text helper) need not be listed."""
    return fingerprint(package_files())


def package_files() -> list[tuple[str, Path]]:
    """(name, path) of every module of the package and every file of its templates, sorted."""
    code, templates = Path(__file__).resolve().parents[1], resources.templates_root()
    files = [(f"code/{name}", path) for name, path in _files_below(code) if name.endswith(".py")]
    return files + [(f"templates/{name}", path) for name, path in _files_below(templates)]


def fingerprint(files: Sequence[tuple[str, Path]]) -> str:
    """A digest of each file's name, size and modification time (a missing one counts too)."""
    lines = []
    for name, path in files:
        try:
            info = os.stat(path)
            lines.append(f"{name}={info.st_size}:{info.st_mtime_ns}")
        except OSError:
            lines.append(f"{name}=?")
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _files_below(root: Path) -> list[tuple[str, Path]]:
    found = []
    for folder, names in walk_tree(root, PACKAGE_DEPTH, follow_links=False, skip=lambda p: p.name == "__pycache__"):
        inside = folder.relative_to(root).as_posix()
        prefix = "" if inside == "." else inside + "/"
        found += [(prefix + name, folder / name) for name in names]
    return sorted(found)


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
            atomic.write_chunks_atomic(self.path, [data.encode("ascii")], mode=0o600)
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
    """The file's entries; none when it is absent, unreadable, not this user's alone (see
    `_read_private`) or not the shape `flush` writes."""
    try:
        data = json.loads(_read_private(path))
    except (OSError, fsutil.Refused, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
        return {}
    entries: dict[str, Any] = data["entries"]
    return entries


def _read_private(path: Path) -> bytes:
    """The bytes of a store file checked as its directory is: opened without following a link
    (ELOOP) or waiting on a FIFO, a regular file under MAX_FILE_BYTES, this user's, writable by
    no one else. Anything else is Refused before a byte of it is read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if info.st_mode & 0o022 or (hasattr(os, "getuid") and info.st_uid != os.getuid()):
            raise fsutil.Refused("not private", "can be written by someone else")
        return fsutil.read_open(fd, MAX_FILE_BYTES)[0]
    finally:
        os.close(fd)


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
