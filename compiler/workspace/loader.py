"""Read the eight bootstrap files of a workspace safely.

Every file is opened relative to one descriptor of the workspace directory, with symlinks
followed by hand and only inside the workspace, so what is checked is what is read even while
directories are being swapped (see fsutil.open_beneath). Non-regular files, files over 2 MiB and
anything resolving outside the workspace get a status instead of content. Nothing is cached
here: a Compiler keeps the whole stage while the files it read are unchanged.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

from .._lib import frontmatter, fsutil
from .._lib.errors import Location, WorkspaceError
from .._lib.reads import UNRECORDED, Recorder
from ..model.workspace import BOOTSTRAP_FILE_NAMES, WorkspaceFile

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Files larger than this are not read (`skipped: too large`)."""
MEMORY_FALLBACK_NAME = "memory.md"
"""The lowercase name older workspaces gave MEMORY.md. It is never loaded, as OpenClaw loads only
MEMORY.md (spelled exactly); when it is there and MEMORY.md is not, a warning says so."""
LISTED_NAMES = frozenset(BOOTSTRAP_FILE_NAMES) | {MEMORY_FALLBACK_NAME}
"""The entries of the workspace directory this stage looks at."""
UNREAD_LOWERCASE_MEMORY = (
    f"{MEMORY_FALLBACK_NAME} is not loaded: only MEMORY.md is (as in OpenClaw); rename it to MEMORY.md to inject it"
)

_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class _Decoded:
    """What one read produces, independent of the file's name."""

    raw_chars: int
    split: frontmatter.Split
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Root:
    """The open workspace directory: its descriptor and the absolute spellings of its path."""

    fd: int
    path: Path
    spellings: tuple[str, ...]


# --------------------------------------------------------------------------- bootstrap files


def load(
    root: Path, tracker: Recorder | None = None, identity: fsutil.Identity | None = None
) -> tuple[WorkspaceFile, ...]:
    """The bootstrap files of the workspace at `root`, in the fixed order; missing ones included.

    Names match exactly (case-sensitive, even on case-insensitive file systems), so the result
    is the same on every platform. Raises WorkspaceError when `root` is not a directory, or not
    the directory `identity` names. `tracker` records what was read, for a freshness check.
    """
    tracker = tracker or UNRECORDED
    root = Path(os.path.abspath(root))
    fd = _open_root(root, identity)
    try:
        entries = frozenset(os.listdir(fd)) & LISTED_NAMES
        tracker.listing(
            str(root), os.fstat(fd), entries, lambda: frozenset(os.listdir(root)) & LISTED_NAMES, LISTED_NAMES
        )
        opened = _Root(fd, root, fsutil.path_spellings(root, fd))
        files = tuple(_load_one(name, opened, name in entries, tracker) for name in BOOTSTRAP_FILE_NAMES)
        return _with_lowercase_memory_note(files, entries)
    finally:
        os.close(fd)


def _open_root(root: Path, identity: fsutil.Identity | None) -> int:
    try:
        return fsutil.open_directory(root, identity)
    except fsutil.Refused as refused:
        raise WorkspaceError(f"workspace directory {refused.detail}", Location(str(root))) from refused
    except (FileNotFoundError, NotADirectoryError) as error:
        raise WorkspaceError(f"workspace directory not found: {root}", Location(str(root))) from error
    except OSError as error:
        raise WorkspaceError(f"cannot list workspace directory: {error.strerror}", Location(str(root))) from error


def _with_lowercase_memory_note(files: tuple[WorkspaceFile, ...], entries: frozenset[str]) -> tuple[WorkspaceFile, ...]:
    """The files, the absent MEMORY.md carrying a warning when a `memory.md` is there instead."""
    if "MEMORY.md" in entries or MEMORY_FALLBACK_NAME not in entries:
        return files
    memory = files[-1]
    return (*files[:-1], dataclasses.replace(memory, diagnostics=(*memory.diagnostics, UNREAD_LOWERCASE_MEMORY)))


def _load_one(name: str, root: _Root, present: bool, tracker: Recorder) -> WorkspaceFile:
    """One file as a WorkspaceFile; every failure becomes a status, never an exception."""
    path = root.path / name
    if not present:
        return WorkspaceFile(name, str(path), None, status="missing")
    try:
        data = _read(name, root, tracker)
    except fsutil.Refused as refused:
        tracker.refused(str(path))
        return _skipped(name, path, refused.reason, f"{name} {refused.detail}")
    except FileNotFoundError:
        tracker.missing(str(path))  # a dangling link: it counts once its target appears
        return WorkspaceFile(name, str(path), None, status="missing")
    except OSError as error:
        tracker.refused(str(path))
        return _skipped(name, path, "unreadable", f"{name}: {error.strerror or error}")
    decoded = _decode(data)
    return WorkspaceFile(
        name=name,
        path=str(path),
        content=decoded.split.body,
        raw_chars=decoded.raw_chars,
        frontmatter=decoded.split.metadata,
        diagnostics=tuple(f"{name}: {note}" for note in decoded.notes),
    )


def _read(name: str, root: _Root, tracker: Recorder) -> bytes:
    """Open `name` below the workspace descriptor (never outside it), check it, read it."""
    fd = fsutil.open_beneath(root.fd, name, root.spellings)
    try:
        try:
            data, info = fsutil.read_open(fd, MAX_FILE_BYTES)
        except fsutil.Refused:
            tracker.file(str(root.path / name), os.fstat(fd), b"")
            raise
    finally:
        os.close(fd)
    tracker.file(str(root.path / name), info, data)
    return data


def _skipped(name: str, path: Path, reason: str, detail: str) -> WorkspaceFile:
    """A file that exists but is deliberately not read."""
    return WorkspaceFile(name, str(path), None, status="skipped", reason=reason, diagnostics=(f"{detail}; skipped",))


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
        notes.append(f"invalid UTF-8 at byte {error.start} (after any BOM); undecodable bytes replaced with U+FFFD")
        return data.decode("utf-8", errors="replace")
