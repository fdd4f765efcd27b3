"""Safe reads of the files a user names or a workspace holds: bounded in size, never waiting on
a FIFO or a device, and (below a directory) never following a link out of it."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from .errors import Location, PromptcError, one_line

MAX_INPUT_BYTES = 4 * 1024 * 1024
"""Bytes a file the user names may hold (`--config`, `--run`, `--contributions`, `--session-state`, a
matrix): far above any real one, far below what would exhaust memory."""
MAX_SYMLINKS = 40
"""Symlinks followed while opening one path below a directory (the kernel's own limit)."""

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
"""O_NONBLOCK: opening a FIFO returns at once (it is then refused) instead of waiting for a writer."""
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Refused(Exception):
    """An input that is deliberately not read; `reason` is the short status (`too large`, ...)."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail or reason


def read_regular(path: str | Path, limit: int, *, dir_fd: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file and the stat of what was opened, at most `limit` bytes.

    Never blocks on a FIFO and never reads a device: anything but a regular file is Refused
    ("not a regular file"), and so is a file over `limit` bytes, also one that grows past it
    while being read ("too large"). Other failures are the OSError itself.
    """
    fd = os.open(path, _READ_FLAGS, dir_fd=dir_fd)
    try:
        return read_open(fd, limit)
    finally:
        os.close(fd)


def read_open(fd: int, limit: int) -> tuple[bytes, os.stat_result]:
    """`read_regular` for a file descriptor the caller opened (and closes)."""
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise Refused("not a regular file", "is not a regular file")
    if info.st_size > limit:
        raise Refused("too large", f"is {info.st_size} bytes (limit {limit})")
    chunks, left = [], limit + 1
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    data = b"".join(chunks)
    if len(data) > limit:
        raise Refused("too large", f"grew past {limit} bytes while being read")
    return data, info


def open_regular(path: str | Path) -> BinaryIO:
    """A regular file opened to be read as a stream (a transcript may be far larger than any cap):
    opening never blocks on a FIFO, and anything but a regular file is Refused, as by
    `read_regular`. Other failures are the OSError itself."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Refused("not a regular file", "is not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_head(path: str | Path, size: int) -> bytes:
    """The first `size` bytes (or fewer) of a regular file, opened as `open_regular` opens it."""
    with open_regular(path) as handle:
        return handle.read(size)


def read_input(
    path: Path,
    error: type[PromptcError] = PromptcError,
    limit: int = MAX_INPUT_BYTES,
    observe: Callable[[os.stat_result, bytes], None] | None = None,
) -> bytes:
    """A file the user named, as bytes; anything else is one `error` line naming the path.

    `observe` is told what was opened and read (for a freshness check).
    """
    try:
        data, info = read_regular(path, limit)
    except FileNotFoundError as exc:
        raise error("file not found", Location(str(path))) from exc
    except Refused as exc:
        raise error(f"cannot read file: it {exc.detail}", Location(str(path))) from exc
    except OSError as exc:
        raise error(f"cannot read file: {exc.strerror or exc}", Location(str(path))) from exc
    if observe is not None:
        observe(info, data)
    return data


Identity = tuple[int, int]
"""(device, inode): which directory a path led to when a compile resolved it."""


def open_directory(path: str | Path, identity: Identity | None = None) -> int:
    """A descriptor for the directory at `path` (following links to it); the caller closes it.

    With `identity`, the directory must still be that one: a workspace swapped for another
    (or for a link) after the compile resolved it is Refused, never read.
    """
    fd = os.open(path, _DIR_FLAGS)
    if identity is not None:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != identity:
            os.close(fd)
            raise Refused("changed", "was replaced by another directory while it was being read")
    return fd


def path_spellings(path: str | Path, fd: int) -> tuple[str, ...]:
    """The absolute path of the directory open as `fd` as given and, when it still leads to the
    same directory, resolved: the spellings an absolute link target may use for it."""
    given = os.path.abspath(path)
    try:  # realpath reads each link it meets: one swapped away meanwhile is an OSError
        real = os.path.realpath(given)
        same = os.path.samestat(os.stat(real), os.fstat(fd))
    except OSError:
        real, same = given, False
    return (given, real) if same and real != given else (given,)


def resolve_directory(path: str | Path) -> tuple[Path, os.stat_result]:
    """The directory `path` leads to: its resolved path and its stat, taken together.

    The directory is opened first and its resolved path checked to be that very directory and
    no link, so a swap while this runs is an error (Refused, "changed"), never a path that
    names one directory and an identity that names another. OSError when there is none.
    """
    fd = open_directory(path)
    try:
        opened = os.fstat(fd)
        resolved = Path(os.path.realpath(path))
        now = os.lstat(resolved)
    finally:
        os.close(fd)
    if not stat.S_ISDIR(now.st_mode) or not os.path.samestat(now, opened):
        raise Refused("changed", "was replaced by another directory while it was being read")
    return resolved, opened


def open_below(root: str | Path, relative: str, identity: Identity | None = None) -> int:
    """`open_beneath` from the directory at `root` (opened here and closed again)."""
    fd = open_directory(root, identity)
    try:
        return open_beneath(fd, relative, path_spellings(root, fd))
    finally:
        os.close(fd)


def open_child(parent_fd: int, name: str, *, directory: bool = False) -> int | None:
    """`name` in the directory `parent_fd`, opened only when it is no symlink (so it is below
    whatever `parent_fd` is below); None when it is one, for `open_beneath` to follow."""
    try:
        return os.open(name, (_DIR_FLAGS if directory else _READ_FLAGS) | _NOFOLLOW, dir_fd=parent_fd)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise
        try:
            os.readlink(name, dir_fd=parent_fd)
        except OSError:
            raise exc from None
        return None


def open_beneath(
    root_fd: int, relative: str, root_paths: tuple[str, ...], *, directory: bool = False, allowed: tuple[str, ...] = ()
) -> int:
    """Open `relative` (a file, or a directory) below the directory `root_fd` without leaving it.

    Each component is opened relative to its parent's descriptor with O_NOFOLLOW and symlinks are
    followed by hand, so what is checked is what is opened, even while someone swaps directories
    for links. A link may point anywhere inside the root (`root_paths`: its absolute spellings,
    resolved or not, for absolute link targets) or inside one of the resolved `allowed`
    directories; anything else is Refused ("outside workspace"). More than MAX_SYMLINKS links in
    one chain is ELOOP.
    """
    walk = _BeneathWalk(root_fd, root_paths, allowed)
    try:
        return walk.open(relative, directory)
    finally:
        walk.close()


class _BeneathWalk:
    """The directory descriptors from the current base (the root, or an allowed directory a
    link led to) down to the component being opened."""

    def __init__(self, root_fd: int, root_paths: tuple[str, ...], allowed: tuple[str, ...]) -> None:
        self.root_fd = root_fd
        self.stack = [os.dup(root_fd)]
        self.root_paths, self.allowed, self.links = root_paths, allowed, 0
        self.base = root_paths[-1]
        """The absolute path of stack[0] (the root's resolved spelling when it has one)."""

    def open(self, relative: str, directory: bool) -> int:
        parts = _components(relative)
        while parts:
            part = parts.pop(0)
            if part == "..":
                parts[:0] = self._up(parts)
                continue
            last = not parts
            flags = (_DIR_FLAGS if directory or not last else _READ_FLAGS) | _NOFOLLOW
            try:
                fd = os.open(part, flags, dir_fd=self.stack[-1])
            except OSError as exc:
                parts[:0] = self._follow(part, exc)
                continue
            if last:
                return fd
            self.stack.append(fd)
        return os.dup(self.stack[-1])

    def _up(self, rest: list[str]) -> list[str]:
        """`..`: one descriptor back; from the base itself, on by path from the base's parent
        (a relative link may lead out of the root into an allowed directory). Consumes `rest`
        in that case and returns what is left to open from the new base."""
        if len(self.stack) > 1:
            os.close(self.stack.pop())
            return []
        target = os.path.normpath("/".join([os.path.dirname(self.base), *rest]))
        rest.clear()
        return self._restart_at(target)

    def _follow(self, part: str, error: OSError) -> list[str]:
        """The components a symlink stands for; `error` again when `part` is no symlink."""
        try:
            target = os.readlink(part, dir_fd=self.stack[-1])
        except OSError:
            raise error from None
        self.links += 1
        if self.links > MAX_SYMLINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), part)
        if not target.startswith("/"):
            return _components(target)
        return self._restart_at(os.path.normpath(target))

    def _restart_at(self, target: str) -> list[str]:
        """An absolute path: go on from the root or the allowed directory holding it."""
        for base in (*self.root_paths, *self.allowed):
            if _within(target, base):
                in_root = base in self.root_paths
                self._rebase(
                    os.dup(self.root_fd) if in_root else open_directory(base), self.root_paths[-1] if in_root else base
                )
                return _components(target[len(base) :])
        raise Refused("outside workspace", f"resolves to {one_line(target)}, outside its root")

    def _rebase(self, fd: int, path: str) -> None:
        self.close()
        self.stack, self.base = [fd], path

    def close(self) -> None:
        for fd in self.stack:
            os.close(fd)
        self.stack = []


def _within(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _components(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]
