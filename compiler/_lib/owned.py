"""Paths below a directory promptc owns (to write or delete there without leaving it), and a walk of
a directory tree that is bounded in depth and never recursive."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

from .errors import one_line
from .fsutil import Refused

MAX_PATH_PARTS = 64
"""Names in one relative path promptc writes to or walks (far above any workspace's depth)."""
MAX_NAME_BYTES = 255
"""The longest file name common file systems take."""


def owned_path(root: Path, relative: str) -> Path:
    """`relative` below the directory `root`, for promptc to write or delete there: a relative path
    of ordinary names (no NUL, no `..`, not absolute, at most MAX_PATH_PARTS names of at most
    MAX_NAME_BYTES bytes) none of whose existing parts below `root` is a symlink, so that what is
    written or removed is inside `root`. Anything else is Refused, saying why."""
    if not isinstance(relative, str) or not relative:
        raise Refused("bad path", "expected a relative path")
    if "\0" in relative:
        raise Refused("bad path", "a path cannot hold a NUL character")
    if relative.startswith("/") or (os.sep != "/" and os.path.isabs(relative)):
        raise Refused("bad path", f"{one_line(relative)} is absolute: give a path inside the directory")
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if not parts:
        raise Refused("bad path", "expected a file name")
    if len(parts) > MAX_PATH_PARTS:
        raise Refused("bad path", f"more than {MAX_PATH_PARTS} names in one path")
    for part in parts:
        if part == "..":
            raise Refused("bad path", f"{one_line(relative)} leads out of the directory ('..')")
        if not _encodable(part) or len(os.fsencode(part)) > MAX_NAME_BYTES:
            raise Refused("bad path", f"a name longer than {MAX_NAME_BYTES} bytes or not encodable")
    current = Path(root)
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise Refused("outside workspace", f"{one_line(relative)} passes through a symlink ({part})")
    return current


def _encodable(name: str) -> bool:
    try:
        os.fsencode(name)
    except UnicodeEncodeError:
        return False
    return True


def walk_tree(
    root: Path, max_depth: int, *, follow_links: bool = True, skip: Callable[[Path], bool] | None = None
) -> Iterator[tuple[Path, list[str]]]:
    """Every directory at or below `root` with the names of the files in it, breadth first, without
    recursion: at most `max_depth` levels down, each real directory once (a link loop ends), links
    followed only when `follow_links` (never one back to `root` or a directory holding it: that is a
    loop too, and through a link to `/` the whole disk), directories whose path `skip` accepts and
    unreadable ones left out. Every walk of a user's tree goes through here, so none can exhaust
    the stack."""
    around = _leads_around(Path(root))
    seen: set[tuple[int, int]] = set()
    queue: deque[tuple[Path, int]] = deque([(Path(root), 0)])
    while queue:
        directory, depth = queue.popleft()
        try:
            info = os.stat(directory)
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        files = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=follow_links)
            except OSError:
                continue
            if is_dir:
                if entry.is_symlink() and around(entry.path):
                    continue
                if depth < max_depth and not (skip and skip(Path(entry.path))):
                    queue.append((Path(entry.path), depth + 1))
            else:
                files.append(entry.name)
        yield directory, files


def _leads_around(root: Path) -> Callable[[str], bool]:
    """Whether a link leads to `root` or to a directory above it."""
    real = os.path.realpath(root)

    def around(link: str) -> bool:
        target = os.path.realpath(link)
        return real == target or real.startswith(target.rstrip("/") + "/")

    return around
