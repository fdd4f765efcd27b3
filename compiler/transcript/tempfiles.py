"""The name of the temp file a repair writes beside a session file, and the cleanup of ones a killed repair left.

A repair writes `.FILE.repair-<host>-<pid>-<hex>.tmp` and renames it over FILE. A repair killed
before the rename (kill -9, power loss) leaves that file behind, as large as the session. The next
repair of FILE removes such leftovers when they are stale:

- written on this machine: the pid in the name is not a running process (a reused pid only keeps
  a leftover one run longer; a live repair's pid is always alive);
- written on another machine sharing the directory, whose pids mean nothing here, or by an earlier
  promptc version (`.FILE.XXXXXXXX.tmp`, no pid at all): not written to for `IDLE_STALE_AFTER_S`
  (a live repair keeps writing its file until it renames it).

Backups (`FILE.bak-…`) are never touched.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
import time
from pathlib import Path

IDLE_STALE_AFTER_S = 15 * 60.0
"""How long a temp file whose writer cannot be checked must have been idle before it is removed."""
_LEGACY_RANDOM = r"[a-z0-9_]{8}"
"""What `tempfile.mkstemp` puts between the prefix and suffix (the older promptc writer used it)."""
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def this_host() -> str:
    """This machine's name as it goes into a temp file name (alphanumerics, at most 32)."""
    return _NOT_ALNUM.sub("", socket.gethostname())[:32] or "host"


def temp_path(path: Path, pid: int | None = None, host: str | None = None) -> Path:
    """A new temp file name for repairing `path`, carrying this machine's name and this process's pid."""
    writer = f"{host or this_host()}-{os.getpid() if pid is None else pid}"
    return path.with_name(f".{path.name}.repair-{writer}-{secrets.token_hex(4)}.tmp")


def remove_stale(path: Path, now: float | None = None) -> int:
    """Remove the stale temp files earlier repairs of `path` left beside it; returns how many went."""
    now = time.time() if now is None else now
    ours = re.compile(re.escape(f".{path.name}.repair-") + r"([A-Za-z0-9]{1,32})-(\d+)-[0-9a-f]{8}\.tmp")
    legacy = re.compile(re.escape(f".{path.name}.") + _LEGACY_RANDOM + r"\.tmp")
    removed = 0
    for candidate in _siblings(path):
        match = ours.fullmatch(candidate.name)
        if match and match.group(1) == this_host():
            stale = not _alive(int(match.group(2)))
        else:
            known = match is not None or legacy.fullmatch(candidate.name) is not None
            stale = known and _idle_for(candidate, now) >= IDLE_STALE_AFTER_S
        removed += stale and _remove(candidate)
    return removed


def _siblings(path: Path) -> list[Path]:
    prefix = f".{path.name}."
    try:
        return [p for p in path.parent.iterdir() if p.name.startswith(prefix) and p.name.endswith(".tmp")]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    """Is `pid` a running process on this machine? (Not being allowed to signal it still means it runs.)"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _idle_for(path: Path, now: float) -> float:
    try:
        return now - path.lstat().st_mtime
    except OSError:
        return 0.0


def _remove(path: Path) -> bool:
    """Best effort: a file another cleanup removed first, or one we may not delete, is left to them."""
    try:
        if not path.is_symlink() and path.is_file():
            path.unlink()
            return True
    except OSError:
        pass
    return False
