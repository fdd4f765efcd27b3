"""Whether the files, directories and environment variables a build read are still what it saw."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

from .._lib import fsutil

RACY_WINDOW_NS = 2_000_000_000
"""Two seconds: coarser than the timestamp tick of every common file system (FAT's is 2 s)."""
RECHECK_LIMIT = fsutil.MAX_INPUT_BYTES
"""Largest file re-read to compare contents; a bigger one that looks touched counts as changed."""
Signature = tuple[int, int, int, int, int]


def signature(info: os.stat_result) -> Signature:
    """What a stat says about a file's identity and version."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def settled(info: os.stat_result, now_ns: int) -> bool:
    """Whether the last change is old enough that a new one must show in the signature."""
    return max(info.st_mtime_ns, info.st_ctime_ns) < now_ns - RACY_WINDOW_NS


def digest(data: bytes) -> bytes:
    """A content fingerprint (not for security: to notice that the bytes changed)."""
    return hashlib.blake2b(data, digest_size=16).digest()


@dataclass(slots=True)
class _File:
    """A file a build read: its stat signature, a digest of its bytes, whether it had settled."""

    signature: Signature
    digest: bytes
    settled: bool


@dataclass(slots=True)
class _Listing:
    """A directory whose listing a build used: its signature, what was taken from it and how to
    take it again, whether it had settled, and the entries that matter (None: all)."""

    signature: Signature
    value: Hashable
    relist: Callable[[], Hashable]
    settled: bool
    interest: frozenset[str] | None


class Tracker:
    """Everything one build read, each with what it looked like; `changed()` re-checks them.

    Stages record as they read: a file with the stat of the opened descriptor (taken before
    reading) and the bytes read; a directory with the part of its listing they used and how to
    list it again; a path found absent; an environment variable's value.
    """

    def __init__(self, clock: Callable[[], int] = time.time_ns) -> None:
        self.clock = clock
        self.files: dict[str, _File] = {}
        self.listings: dict[str, _Listing] = {}
        self.absent: set[str] = set()
        self.environment: dict[str, str | None] = {}
        self.roots: dict[str, str] = {}
        """A directory path as given -> the real path it led to (see `resolved`)."""
        self.version = 0
        """Counts recordings, so a watcher can tell that inputs were added since it looked."""

    # ------------------------------------------------------------------ recording

    def file(self, path: str, info: os.stat_result, data: bytes) -> None:
        """A file that was read: `info` is the fstat of what was opened, `data` what was read."""
        self.files[path] = _File(signature(info), digest(data), settled(info, self.clock()))
        self.version += 1

    def listing(
        self,
        path: str,
        info: os.stat_result,
        value: Hashable,
        relist: Callable[[], Hashable],
        interest: frozenset[str] | None = None,
    ) -> None:
        """A directory whose listing was used: `value` is what the stage took from it, `relist`
        computes that again; `interest` names the entries that matter (None: all of them)."""
        self.listings[path] = _Listing(signature(info), value, relist, settled(info, self.clock()), interest)
        self.version += 1

    def missing(self, path: str) -> None:
        """A path that did not exist (or was a dangling link) when the build looked."""
        self.absent.add(path)
        self.version += 1

    def resolved(self, given: str, real: str) -> None:
        """A directory the build resolved once and then read below (the workspace): `given` led
        to `real`. Re-pointing a link anywhere on the way makes it lead elsewhere: a change, even
        though every file read below the old target is as it was."""
        self.roots[given] = real
        self.version += 1

    def env(self, name: str, value: str | None) -> None:
        """An environment variable the build consulted, with the value it had."""
        self.environment[name] = value

    def refused(self, path: str) -> None:
        """A path a stage would not read: what it is now (a later read of it keeps its own entry)."""
        if path in self.files:
            return
        try:
            self.file(path, os.stat(path), b"")
        except OSError:
            self.missing(path)

    def environment_unchanged(self) -> bool:
        """Whether every recorded variable still has its value in os.environ."""
        return all(os.environ.get(name) == value for name, value in self.environment.items())

    # ------------------------------------------------------------------ checking

    def changed(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The first input that changed (a path, or `$NAME`), or None when all are as seen.

        `environ` is the live environment recorded variables are compared with (None: none were
        read from the live environment). Racy entries that compare equal are refreshed, and
        settle once their last change is old enough.
        """
        now = self.clock()
        for path, seen in self.files.items():
            if not self._file_same(path, seen, now):
                return path
        for path, listing in self.listings.items():
            if not self._listing_same(path, listing, now):
                return path
        for path in self.absent:
            if os.path.exists(path):
                return path
        for given, real in self.roots.items():
            if os.path.realpath(given) != real:
                return given
        if environ is not None:
            for name, value in self.environment.items():
                if environ.get(name) != value:
                    return f"${name}"
        return None

    def _file_same(self, path: str, seen: _File, now: int) -> bool:
        try:
            info = os.stat(path)
        except OSError:
            return False
        current = signature(info)
        if current == seen.signature and seen.settled:
            return True
        if current[:2] != seen.signature[:2]:
            return False  # another file now (replaced, or a link retargeted): read it again properly
        try:
            data, info = fsutil.read_regular(path, RECHECK_LIMIT)
        except (OSError, fsutil.Refused):
            return False
        if digest(data) != seen.digest:
            return False
        seen.signature, seen.settled = signature(info), settled(info, now)
        return True

    def _listing_same(self, path: str, listing: _Listing, now: int) -> bool:
        try:
            info = os.stat(path)
        except OSError:
            return False
        if signature(info) == listing.signature and listing.settled:
            return True
        try:
            value = listing.relist()
        except OSError:
            return False
        if value != listing.value:
            return False
        listing.signature, listing.settled = signature(info), settled(info, now)
        return True

    # ------------------------------------------------------------------ for a watcher

    def directories(self) -> dict[str, frozenset[str] | None]:
        """Directory -> the entry names in it that matter (None: any), for every recorded input."""
        wanted: dict[str, set[str] | None] = {}

        def want(directory: str, name: str | None) -> None:
            if directory in wanted and wanted[directory] is None:
                return
            names = wanted.setdefault(directory, set())
            if name is None:
                wanted[directory] = None
            elif names is not None:
                names.add(name)

        for path in self.files:
            want(*os.path.split(path))
            if os.path.islink(path):  # a change to the file shows in its target's directory
                want(*os.path.split(os.path.realpath(path)))
        for path, listing in self.listings.items():
            if listing.interest is None:
                want(path, None)
            else:
                for name in listing.interest:
                    want(path, name)
        for path in self.absent:
            want(*_nearest_existing(path))
        for given in self.roots:  # a link on the way re-pointed, or a directory renamed
            for step in _steps(given):
                want(*os.path.split(step))
        return {d: None if n is None else frozenset(n) for d, n in wanted.items()}


def _nearest_existing(path: str) -> tuple[str, str]:
    """(the nearest existing ancestor of an absent path, the first name below it on the way)."""
    child, parent = path, os.path.dirname(path)
    while parent != child and not os.path.isdir(parent):
        child, parent = parent, os.path.dirname(parent)
    return parent, os.path.basename(child)


def _steps(path: str) -> list[str]:
    """Each path from the top down to `path` (absolute): `/a`, `/a/b`, `/a/b/c`."""
    parts = os.path.abspath(path).split(os.sep)[1:]
    return [os.sep + os.sep.join(parts[: i + 1]) for i in range(len(parts)) if parts[i]]
