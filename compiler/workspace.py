"""Read the eight bootstrap files of a workspace safely, and keep its setup state.

Reads are guarded (size, symlink escape, bad bytes) and cached on the file's identity.
"""

from __future__ import annotations

import json
import os
import stat
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import frontmatter, fsutil, resources
from .errors import Location, WorkspaceError
from .model import BOOTSTRAP_FILE_NAMES, WorkspaceFile

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Files larger than this are not read (`skipped: too large`)."""
MEMORY_FALLBACK_NAME = "memory.md"
"""Used in MEMORY.md's place only when MEMORY.md itself is absent."""
STATE_RELATIVE_PATH = Path(".promptc") / "workspace-state.json"
STATE_VERSION = 1
SEEDED_TEMPLATE_NAMES: tuple[str, ...] = tuple(n for n in BOOTSTRAP_FILE_NAMES if n != "MEMORY.md")
"""What `promptc init` writes, in load order (MEMORY.md is the agent's own to start)."""

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


# --------------------------------------------------------------------------- setup state


@dataclass(frozen=True)
class WorkspaceState:
    """`.promptc/workspace-state.json`: when the workspace was seeded and when setup finished."""

    version: int = STATE_VERSION
    """Format version of the state file."""
    bootstrap_seeded_at: str | None = None
    """When `promptc init` wrote BOOTSTRAP.md (ISO 8601, as passed in)."""
    setup_completed_at: str | None = None
    """When BOOTSTRAP.md was first seen deleted after seeding."""

    @property
    def setup_complete(self) -> bool:
        """Whether BOOTSTRAP.md should no longer be injected."""
        return self.setup_completed_at is not None


def state_path(root: Path) -> Path:
    """Where the workspace keeps its setup state."""
    return Path(root) / STATE_RELATIVE_PATH


def read_state(root: Path) -> WorkspaceState:
    """The workspace's setup state; the default (nothing seeded) when there is no state file."""
    path = state_path(root)
    data = read_json_object(path, "workspace state")
    if data is None:
        return WorkspaceState()
    return WorkspaceState(
        version=_state_field(data, "version", int, str(path), default=STATE_VERSION),
        bootstrap_seeded_at=_state_field(data, "bootstrapSeededAt", str, str(path)),
        setup_completed_at=_state_field(data, "setupCompletedAt", str, str(path)),
    )


def _state_field(data: dict[str, Any], key: str, kind: type, path: str, default: Any = None) -> Any:
    """One optional field of the state object, type-checked."""
    value = data.get(key, default)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise WorkspaceError(
            f"workspace state field {key!r} must be {kind.__name__}", Location(path)
        )
    return value


def write_state(root: Path, state: WorkspaceState) -> None:
    """Persist the setup state atomically."""
    data: dict[str, Any] = {"version": state.version}
    if state.bootstrap_seeded_at is not None:
        data["bootstrapSeededAt"] = state.bootstrap_seeded_at
    if state.setup_completed_at is not None:
        data["setupCompletedAt"] = state.setup_completed_at
    write_json_atomic(state_path(root), data)


def next_state(state: WorkspaceState, *, bootstrap_present: bool, now: str) -> WorkspaceState:
    """Pure rule: a seeded workspace whose BOOTSTRAP.md is gone has completed its setup now."""
    if state.bootstrap_seeded_at is None or state.setup_complete or bootstrap_present:
        return state
    return replace(state, setup_completed_at=now)


# --------------------------------------------------------------------------- init


def init(root: Path, *, now: str) -> list[str]:
    """Seed a workspace with our default files, never overwriting; return the names written.

    BOOTSTRAP.md (the first-run setup guide) is written only into a brand-new workspace: no
    bootstrap file present and no setup recorded. Writing it records `bootstrapSeededAt = now`.
    """
    root = Path(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WorkspaceError(f"cannot create the workspace: {error.strerror or error}", Location(str(root))) from error
    state = read_state(root)
    brand_new = _is_brand_new(root, state)
    written = [
        name
        for name in SEEDED_TEMPLATE_NAMES
        if (name != "BOOTSTRAP.md" or brand_new) and _write_new(root / name, template_text(name))
    ]
    if "BOOTSTRAP.md" in written:
        write_state(root, replace(state, bootstrap_seeded_at=now))
    return written


def _is_brand_new(root: Path, state: WorkspaceState) -> bool:
    """No bootstrap file (or memory.md) exists and no setup was ever recorded."""
    entries = set(os.listdir(root))
    known = set(BOOTSTRAP_FILE_NAMES) | {MEMORY_FALLBACK_NAME}
    recorded = state.bootstrap_seeded_at is not None or state.setup_complete
    return not recorded and not (entries & known)


def _write_new(path: Path, text: str) -> bool:
    """Create `path` with `text` unless it exists already; True when written."""
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True


def template_text(name: str) -> str:
    """The text of one of our built-in workspace templates (`templates/workspace/<name>`)."""
    return (resources.templates_root() / "workspace" / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- JSON state files


def read_json_object(path: Path, what: str) -> dict[str, Any] | None:
    """A small JSON state file's top-level object, or None when the file does not exist.

    Anything unreadable is a WorkspaceError naming `what` and, for bad JSON, the line and column.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise WorkspaceError(f"cannot read {what}: {error}", Location(str(path))) from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        where = Location(str(path), error.lineno, error.colno)
        raise WorkspaceError(f"{what} is not valid JSON: {error.msg}", where) from error
    if not isinstance(data, dict):
        raise WorkspaceError(f"{what} must be a JSON object", Location(str(path)))
    return data


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as indented JSON, atomically (temp file beside it, then rename)."""
    fsutil.write_text_atomic(Path(path), json.dumps(data, indent=2, ensure_ascii=False) + "\n")
