"""Read the eight bootstrap files of a workspace safely.

Reads are guarded (size, symlink escape, bad bytes) and cached on the file's identity.
"""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from ..errors import Location, WorkspaceError
from ..model import BOOTSTRAP_FILE_NAMES, WorkspaceFile
from . import frontmatter

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Files larger than this are not read (`skipped: too large`)."""
MEMORY_FALLBACK_NAME = "memory.md"
"""Used in MEMORY.md's place only when MEMORY.md itself is absent."""

_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class _Decoded:
    """What one read produces, independent of the file's name (so it can be cached)."""

    raw_chars: int
    split: frontmatter.Split
    notes: tuple[str, ...]


_CACHE_LIMIT = 256
_read_cache: OrderedDict[tuple[int, int, int, int], _Decoded] = OrderedDict()
"""Decoded reads keyed on (device, inode, size, mtime), least recently used first."""


# --------------------------------------------------------------------------- bootstrap files


def load(root: Path) -> tuple[WorkspaceFile, ...]:
    """The bootstrap files of the workspace at `root`, in the fixed order; missing ones included.

    Names match exactly (case-sensitive, even on case-insensitive file systems), so the result
    is the same on every platform. Raises WorkspaceError when `root` is not a directory.
    """
    root = Path(os.path.abspath(root))
    if not root.is_dir():
        raise WorkspaceError(f"workspace directory not found: {root}", Location(str(root)))
    try:
        entries = frozenset(os.listdir(root))
    except OSError as error:
        raise WorkspaceError(
            f"cannot list workspace directory: {error.strerror}", Location(str(root))
        ) from error
    real_root = root.resolve()
    return tuple(
        _load_one(name, root / name, real_root, present=name in entries)
        for name in _bootstrap_names(entries)
    )


def _bootstrap_names(entries: frozenset[str]) -> tuple[str, ...]:
    """The fixed list, with `memory.md` standing in for an absent MEMORY.md."""
    if "MEMORY.md" not in entries and MEMORY_FALLBACK_NAME in entries:
        return BOOTSTRAP_FILE_NAMES[:-1] + (MEMORY_FALLBACK_NAME,)
    return BOOTSTRAP_FILE_NAMES


def _load_one(name: str, path: Path, real_root: Path, *, present: bool) -> WorkspaceFile:
    """One file as a WorkspaceFile; every failure becomes a status, never an exception."""
    if not present:
        return WorkspaceFile(name, str(path), None, status="missing")
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop raises RuntimeError on 3.11
        return _skipped(name, path, "unreadable", f"{name}: {error}")
    if not real.is_relative_to(real_root):
        return _skipped(
            name, path, "outside workspace", f"{name} resolves to {real}, outside the workspace"
        )
    try:
        decoded = _read_decoded(real)
    except _Skip as skip:
        return _skipped(name, path, skip.reason, f"{name} {skip.detail}")
    except FileNotFoundError:
        return WorkspaceFile(name, str(path), None, status="missing")
    except OSError as error:
        return _skipped(name, path, "unreadable", f"{name}: {error.strerror or error}")
    return WorkspaceFile(
        name=name,
        path=str(path),
        content=decoded.split.body,
        raw_chars=decoded.raw_chars,
        frontmatter=decoded.split.metadata,
        diagnostics=tuple(f"{name}: {note}" for note in decoded.notes),
    )


def _skipped(name: str, path: Path, reason: str, detail: str) -> WorkspaceFile:
    """A file that exists but is deliberately not read."""
    return WorkspaceFile(
        name, str(path), None, status="skipped", reason=reason, diagnostics=(f"{detail}; skipped",)
    )


class _Skip(Exception):
    """Internal signal: the file is refused for a stated reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def _read_decoded(path: Path) -> _Decoded:
    """Check, open and decode one file, reusing the cached result for an unchanged file."""
    # Checked before opening: opening a FIFO would block.
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise _Skip("not a regular file", "is not a regular file")
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if info.st_size > MAX_FILE_BYTES:
            raise _Skip("too large", f"is {info.st_size} bytes (limit {MAX_FILE_BYTES})")
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        cached = _read_cache.get(key)
        if cached is None:
            data = handle.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise _Skip("too large", f"grew past {MAX_FILE_BYTES} bytes while being read")
            cached = _remember(key, _decode(data))
        else:
            _read_cache.move_to_end(key)
    return cached


def _remember(key: tuple[int, int, int, int], decoded: _Decoded) -> _Decoded:
    """Store a read in the bounded cache, evicting the least recently used entry."""
    _read_cache[key] = decoded
    while len(_read_cache) > _CACHE_LIMIT:
        _read_cache.popitem(last=False)
    return decoded


def _decode(data: bytes) -> _Decoded:
    """UTF-8 without BOM, bad bytes as U+FFFD, CRLF and lone CR as LF, frontmatter split off."""
    notes: list[str] = []
    text = _decode_utf8(data.removeprefix(_UTF8_BOM), notes)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    split = frontmatter.split(text)
    if split.diagnostic is not None:
        notes.append(split.diagnostic)
    return _Decoded(len(text), split, tuple(notes))


def _decode_utf8(data: bytes, notes: list[str]) -> str:
    """Decode strictly when possible; otherwise replace bad bytes and say where the first was."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        notes.append(
            f"invalid UTF-8 at byte {error.start} (after any BOM); "
            "undecodable bytes replaced with U+FFFD"
        )
        return data.decode("utf-8", errors="replace")
