"""Kernel change notification for the directories a build read (Linux inotify, through ctypes).

The kernel queues an event for every change in a watched directory before the changing call
returns, so an empty queue means nothing there changed and a compile may skip its stat sweep.
Only local file systems are trusted this way: a network or FUSE mount may change underneath
without telling this kernel. Where inotify is missing or refuses (another OS, the watch limit),
`Watcher.start` or `watch` says so and the caller sweeps instead.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
import sys
from collections.abc import Mapping
from typing import Any

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_Q_OVERFLOW, IN_IGNORED = 0x400, 0x800, 0x4000, 0x8000
IN_ONLYDIR, IN_NONBLOCK, IN_CLOEXEC = 0x01000000, 0o4000, 0o2000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
)
ABOUT_THE_DIRECTORY = IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_Q_OVERFLOW
"""Events that concern a watch as a whole (or every watch, for an overflow): always relevant."""
LOCAL_FILE_SYSTEMS = frozenset(
    {
        "ext2",
        "ext3",
        "ext4",
        "xfs",
        "btrfs",
        "tmpfs",
        "zfs",
        "f2fs",
        "jfs",
        "reiserfs",
        "bcachefs",
        "ramfs",
        "overlay",
        "hfsplus",
        "vfat",
        "exfat",
    }
)
"""File systems whose changes all pass through this kernel (so they all raise events)."""
_HEADER = struct.Struct("iIII")


class Watcher:
    """One inotify instance: the directories watched, which entry names in each matter, and the
    identity of each top directory's path (a watch follows an inode, not the path to it)."""

    def __init__(self, fd: int, libc: Any) -> None:
        self.fd, self.libc, self.pid = fd, libc, os.getpid()
        self.watches: dict[str, int] = {}
        self.interest: dict[int, frozenset[str] | None] = {}
        self.anchors: dict[str, tuple[int, int]] = {}

    @classmethod
    def start(cls) -> Watcher | None:
        """A new watcher, or None where inotify is not available."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(fd, libc) if fd >= 0 else None

    def watch(self, directories: Mapping[str, frozenset[str] | None]) -> bool:
        """Watch exactly these directories (name filters as given); False when that cannot be
        trusted (a network mount, the watch limit, another process's watcher)."""
        if os.getpid() != self.pid:
            return False  # a forked child shares the queue with its parent: never read it
        wanted = _resolved(_with_parents(directories))
        if wanted is None or not _all_local(wanted):
            return False
        for gone in set(self.watches) - set(wanted):
            self.libc.inotify_rm_watch(self.fd, self.watches.pop(gone))
        self.interest = {}
        for real, names in wanted.items():
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(real), MASK)
            if wd < 0:
                return False
            self.watches[real] = wd
            self.interest[wd] = names
        self.anchors = _anchors(directories)
        self.drain()
        return True

    def quiet(self) -> bool:
        """True when no relevant event arrived since the last call and every top directory is
        still the one that was watched."""
        relevant = self.drain()
        return not relevant and all(_identity(path) == seen for path, seen in self.anchors.items())

    def drain(self) -> bool:
        """Read every queued event; whether any of them matters."""
        relevant = False
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return relevant
            relevant = self._relevant(data) or relevant

    def _relevant(self, data: bytes) -> bool:
        offset, found = 0, False
        while offset < len(data):
            wd, mask, _, size = _HEADER.unpack_from(data, offset)
            name = data[offset + _HEADER.size : offset + _HEADER.size + size].rstrip(b"\0")
            offset += _HEADER.size + size
            names = self.interest.get(wd, None)
            found = found or bool(mask & ABOUT_THE_DIRECTORY) or names is None or os.fsdecode(name) in names
        return found

    def close(self) -> None:
        """Stop watching (the descriptor is closed)."""
        if self.fd >= 0 and os.getpid() == self.pid:
            os.close(self.fd)
        self.fd = -1


def _with_parents(directories: Mapping[str, frozenset[str] | None]) -> dict[str, frozenset[str] | None]:
    """The map with each watched directory's own name added to its watched parent's names, so
    renaming a directory away is seen from above."""
    merged = dict(directories)
    for directory in directories:
        parent, name = os.path.split(directory)
        if parent != directory and parent in merged and merged[parent] is not None:
            merged[parent] = merged[parent] | {name}  # type: ignore[operator]
    return merged


def _resolved(directories: Mapping[str, frozenset[str] | None]) -> dict[str, frozenset[str] | None] | None:
    """Keyed by real path (a watch is on the inode a path leads to); None if one is gone."""
    real: dict[str, frozenset[str] | None] = {}
    for directory, names in directories.items():
        target = os.path.realpath(directory)
        if not os.path.isdir(target):
            return None
        before = real.get(target, frozenset())
        real[target] = None if before is None or names is None else before | names
    return real


def _anchors(directories: Mapping[str, frozenset[str] | None]) -> dict[str, tuple[int, int]]:
    """(device, inode) of each directory whose parent is not watched, by the path the build used."""
    tops = [d for d in directories if os.path.dirname(d) not in directories]
    return {path: _identity(path) for path in tops}


def _identity(path: str) -> tuple[int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return (-1, -1)
    return (info.st_dev, info.st_ino)


def _all_local(directories: Mapping[str, Any]) -> bool:
    mounts = _mount_types()
    return bool(mounts) and all(_type_of(path, mounts) in LOCAL_FILE_SYSTEMS for path in directories)


def _mount_types() -> list[tuple[str, str]]:
    """(mount point, file system type), longest mount point first."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    mounts = []
    for line in lines:
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) >= 5 and rest:
            mounts.append((_unescape(parts[4]), rest.split()[0]))
    return sorted(mounts, key=lambda mount: len(mount[0]), reverse=True)


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _type_of(path: str, mounts: list[tuple[str, str]]) -> str:
    for point, kind in mounts:
        if path == point or path.startswith(point.rstrip("/") + "/"):
            return kind
    return ""
