"""Partials: shared template files a section includes or imports (`{% include "partials/x.md.j2" %}`).

Every template dir may hold a `partials/` folder (subfolders too); a name is looked up in the
user dirs first, then in the built-in `templates/partials/`. All of them are read up front,
through the tracker, so the renderer stays a pure function of what it is given and a warm
Compiler notices an edited, added or removed partial. A name must stay inside `partials/`: no
absolute paths, no `..`, and a file whose real path (links resolved) leaves its template dir is
refused when included.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .._lib import fsutil
from .._lib.reads import Recorder

PARTIALS_DIR = "partials"
MAX_PARTIAL_BYTES = 1024 * 1024
"""A partial larger than this is refused (partials are a few kilobytes)."""
MAX_PARTIALS = 1000
"""Partial files read per template dir; more is refused when included."""


@dataclass(frozen=True, slots=True)
class Partial:
    """One file under a template dir's `partials/`."""

    name: str
    """What an include names: `partials/rules.md.j2`."""
    path: str
    """The file, as found (errors point here)."""
    source: str | None
    """Its text; None when it cannot be used (see `problem`)."""
    problem: str | None = None
    """Why it cannot be used: it leads outside its template dir, is too large, is not UTF-8."""


@dataclass(frozen=True, slots=True)
class Partials:
    """Every partial the template dirs provide, the first dir's winning by name."""

    by_name: Mapping[str, Partial] = field(default_factory=dict)
    """Name -> the partial an include of that name gets."""
    searched: tuple[str, ...] = ()
    """The `partials/` dirs, in lookup order (for a not-found message)."""
    key: str = ""
    """A digest of every name, path and source: part of every render cache key."""
    files_per_dir: tuple[int, ...] = ()
    """How many partial files each searched dir holds."""


EMPTY = Partials()


def discover(template_dirs: Sequence[tuple[Path, str]], tracker: Recorder) -> Partials:
    """The partials of each (template dir, origin), user dirs first, the built-in dir last."""
    by_name: dict[str, Partial] = {}
    searched, counts = [], []
    for directory, _origin in template_dirs:
        root = directory / PARTIALS_DIR
        searched.append(str(root))
        found = _read_tree(directory, root, tracker)
        counts.append(len(found))
        for partial in found:
            by_name.setdefault(partial.name, partial)
    digest = hashlib.sha256()
    for partial in by_name.values():
        digest.update(
            f"{partial.name}\0{partial.path}\0{partial.source}\0{partial.problem}\0".encode("utf-8", "surrogatepass")
        )
    return Partials(by_name, tuple(searched), digest.hexdigest() if by_name else "", tuple(counts))


def _read_tree(template_dir: Path, root: Path, tracker: Recorder) -> list[Partial]:
    """Every file below `root` (hidden names skipped; linked dirs not followed, so a link
    cycle cannot hold the walk), each dir's listing recorded."""
    try:
        info = os.stat(root)
    except OSError:
        tracker.missing(str(root))  # creating partials/ later is a change
        return []
    found: list[Partial] = []
    pending = [root]
    while pending and len(found) < MAX_PARTIALS:
        directory = pending.pop(0)
        files, dirs = _listing(directory)
        stat = info if directory == root else os.stat(directory)
        tracker.listing(str(directory), stat, (files, dirs), functools.partial(_listing, directory))
        pending += [directory / name for name in dirs]
        found += [_read(template_dir, root, directory / name, tracker) for name in files]
    return found[:MAX_PARTIALS]


def _listing(directory: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(file names, dir names) in a partials dir, sorted, hidden ones left out."""
    with os.scandir(directory) as entries:
        shown = [e for e in entries if not e.name.startswith(".")]
        files = tuple(sorted(e.name for e in shown if e.is_file()))
        dirs = tuple(sorted(e.name for e in shown if e.is_dir(follow_symlinks=False)))
    return files, dirs


def _read(template_dir: Path, root: Path, path: Path, tracker: Recorder) -> Partial:
    name = PARTIALS_DIR + "/" + path.relative_to(root).as_posix()
    if _leaves(template_dir, path):
        return Partial(
            name, str(path), None, f"it resolves to {os.path.realpath(path)}, outside its template dir {template_dir}"
        )
    try:
        data, info = fsutil.read_regular(path, MAX_PARTIAL_BYTES)
    except fsutil.Refused as refused:
        return Partial(name, str(path), None, f"it {refused.detail}")
    except OSError as error:
        return Partial(name, str(path), None, f"it cannot be read ({error.strerror or error})")
    tracker.file(str(path), info, data)
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as error:
        return Partial(name, str(path), None, f"it is not UTF-8 ({error})")
    return Partial(name, str(path), text)


def _leaves(template_dir: Path, path: Path) -> bool:
    """Whether the file's real path (links resolved) is outside the template dir's real path."""
    return not Path(os.path.realpath(path)).is_relative_to(os.path.realpath(template_dir))


def check_name(name: str) -> str | None:
    """Why an include name is refused, or None: it must be a relative path below `partials/`."""
    if not isinstance(name, str) or not name:
        return "a partial is named by a non-empty string"
    if "\\" in name or name.startswith("/") or PurePosixPath(name).is_absolute() or ":" in name.split("/")[0]:
        return f"{name!r} is not allowed: name a partial by its path below the template dir, such as 'partials/rules.md.j2'"
    parts = name.split("/")
    if ".." in parts:
        return f"{name!r} is not allowed: '..' would leave the template dirs"
    if parts[0] != PARTIALS_DIR or len(parts) < 2 or "" in parts or "." in parts:
        return (
            f"{name!r} is not allowed: includes and imports name a file under partials/, such as 'partials/rules.md.j2'"
        )
    return None
