"""Atomic file writes: a reader sees the old file or the new one, never half of either.

`write_output` is for a path the user named (`--out`): it writes through symlinks and straight
into character devices and FIFOs. `write_chunks_atomic` replaces the node at `path` itself, which
is right for files promptc owns (state files inside a workspace it does not trust).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import Location, PromptcError

NEW_FILE_MODE = 0o644
"""mkstemp creates 0600 files; a new output file should be readable like any other."""


def write_output(path: Path, chunks: Iterable[bytes], error: type[PromptcError] = PromptcError) -> None:
    """Write where `path` leads: a regular file (also behind symlinks) is replaced atomically, a
    character device or a FIFO is written directly (it cannot be replaced, and `/dev/stdout` or
    `/proc/self/fd/1` mean "write to that stream"). A directory, a block device or a socket is
    refused, never replaced.
    """
    path = Path(path)
    try:
        node = os.stat(path)
    except FileNotFoundError:
        node = None  # a new file, or a symlink to one that does not exist yet
    except OSError as exc:  # a symlink loop, a component that is not a directory, ...
        raise error(f"cannot write: {exc.strerror or exc}", Location(str(path))) from exc
    if node is not None and (stat.S_ISCHR(node.st_mode) or stat.S_ISFIFO(node.st_mode)):
        _write_stream(path, chunks, error)
    elif node is not None and not stat.S_ISREG(node.st_mode):
        kind = "a directory" if stat.S_ISDIR(node.st_mode) else "not a regular file, a character device or a FIFO"
        raise error(f"cannot write: {kind}; refusing to replace it", Location(str(path)))
    else:
        write_chunks_atomic(Path(os.path.realpath(path)), chunks, error=error)


def _write_stream(path: Path, chunks: Iterable[bytes], error: type[PromptcError]) -> None:
    """Write to a device or FIFO in place: opened without O_CREAT or O_TRUNC, so nothing is made.
    The open does not wait: a FIFO no one reads is refused at once (ENXIO) instead of blocking until
    a reader comes; once open, writes block as usual, so a slow reader loses nothing."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise error("cannot write: a FIFO with no reader; refusing to wait for one", Location(str(path))) from exc
        raise error(f"cannot write: {exc.strerror or exc}", Location(str(path))) from exc
    try:
        os.set_blocking(fd, True)
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(chunks)
    except OSError as exc:
        raise error(f"cannot write: {exc.strerror or exc}", Location(str(path))) from exc


def write_text_atomic(path: Path, text: str) -> None:
    """Write UTF-8 text atomically, keeping the mode of an existing file."""
    write_chunks_atomic(Path(path), [text.encode("utf-8")])


def write_chunks_atomic(
    path: Path,
    chunks: Iterable[bytes],
    mode: int | None = None,
    error: type[PromptcError] = PromptcError,
    *,
    temp_path: Path | None = None,
    before_rename: Callable[[], object] = lambda: None,
) -> None:
    """Write `chunks` to a temp file beside `path`, fsync it, set its mode, rename it over `path`.

    `mode` defaults to the existing file's mode (0644 for a new file). On any failure, including
    one raised while producing `chunks`, the temp file is removed and `path` is left as it was;
    an OSError becomes `error` naming the path. `temp_path` names the temp file (created, never
    reused) when a caller must recognise its own; `before_rename` runs once it is complete.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        existing = _stat_or_none(path)
        fd, temp = _create_temp(path, temp_path)
    except OSError as exc:
        raise error(f"cannot write: {exc.strerror or exc}", Location(str(path))) from exc
    try:
        _fill(fd, chunks)
        os.chmod(temp, mode if mode is not None else existing.st_mode & 0o7777 if existing else NEW_FILE_MODE)
        _keep_owner(temp, existing)
        before_rename()
        os.replace(temp, path)
    except BaseException as exc:
        Path(temp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise error(f"cannot write, left as it was: {exc.strerror or exc}", Location(str(path))) from exc
        raise
    _fsync_directory(path.parent)


def _create_temp(path: Path, named: Path | None) -> tuple[int, str]:
    if named is None:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    return os.open(named, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), str(named)


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def _keep_owner(temp: str, existing: os.stat_result | None) -> None:
    """A file rewritten by another user (root repairing a session) keeps its owner; best effort."""
    if existing is None or (existing.st_uid, existing.st_gid) == (os.getuid(), os.getgid()):
        return
    with contextlib.suppress(OSError):
        os.chown(temp, existing.st_uid, existing.st_gid)


def _fill(fd: int, chunks: Iterable[bytes]) -> None:
    with os.fdopen(fd, "wb") as handle:
        handle.writelines(chunks)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable. Best effort: some platforms cannot sync a directory, and
    the new file is in place either way."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
