"""Atomic file replacement: a reader sees the old file or the new one, never a half-written one."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable
from pathlib import Path

from ..errors import Location, TranscriptError


def atomic_write(target: Path, chunks: Iterable[bytes], mode: int | None = None, tag: str = "promptc") -> None:
    """Write `chunks` to a temp file beside `target`, fsync it, set `mode`, then rename it over `target`.

    On any failure (including one raised while producing `chunks`) the temp file is removed and
    `target` is left exactly as it was; an OSError becomes a TranscriptError.
    """
    temp = target.with_name(f"{target.name}.{tag}-{os.getpid()}-{time.time_ns() // 1_000_000}.tmp")
    try:
        with open(temp, "xb") as out:
            out.writelines(chunks)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException as error:
        temp.unlink(missing_ok=True)
        if isinstance(error, OSError):
            message = f"could not write the file, left as it was: {error}"
            raise TranscriptError(message, Location(str(target))) from error
        raise
    _fsync_directory(target.parent)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable. Best effort: some platforms cannot open or sync a directory,
    and the new file is already in place either way."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
