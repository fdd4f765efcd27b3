"""Installed plugins (entry points), found without importing importlib.metadata when none exist.

Importing importlib.metadata and scanning every distribution costs about a tenth of a second
at start-up, on every `promptc render`. Most installs have no promptc plugin at all, so the
`entry_points.txt` files on sys.path are read first (once per process): when none names the
group, the answer is known. Anything this quick look cannot see into (a zip on sys.path,
another distribution finder) leaves the answer to importlib.metadata.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import keyword
import os
import sys
from importlib.machinery import PathFinder
from typing import Any

from . import fsutil

_METADATA_SUFFIXES = (".dist-info", ".egg-info")


def entry_points(group: str) -> tuple[Any, ...]:
    """The entry points of `group`, sorted by (name, value).

    Once importlib.metadata is imported anyway, it is asked directly: it is the authority, and
    the import is what the quick look saves.
    """
    if "importlib.metadata" not in sys.modules:
        groups = declared_groups()
        if groups is not None and group not in groups:
            return ()
    from importlib import metadata

    return tuple(sorted(metadata.entry_points(group=group), key=lambda e: (e.name, e.value)))


@functools.cache
def declared_groups() -> frozenset[str] | None:
    """Every entry-point group named in an `entry_points.txt` on sys.path; None when the quick
    look cannot see every distribution."""
    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return None
    groups: set[str] = set()
    for entry in sys.path:
        found = _groups_in(entry or os.getcwd())
        if found is None:
            return None
        groups |= found
    return frozenset(groups)


def _groups_in(directory: str) -> set[str] | None:
    """Groups declared by the distributions in one sys.path entry; None when it is not a plain
    directory (a zip, an egg file) and so needs the real machinery."""
    if not os.path.isdir(directory):
        return None if os.path.exists(directory) else set()
    try:
        names = [n for n in os.listdir(directory) if n.endswith(_METADATA_SUFFIXES)]
    except OSError:
        return set()
    groups: set[str] = set()
    for name in names:
        groups |= _groups_of(os.path.join(directory, name, "entry_points.txt"))
    return groups


def _groups_of(path: str) -> set[str]:
    try:
        data, _ = fsutil.read_regular(path, fsutil.MAX_INPUT_BYTES)
    except (OSError, fsutil.Refused):
        return set()
    lines = data.decode("utf-8", errors="replace").splitlines()
    return {line.strip()[1:-1].strip() for line in lines if line.strip().startswith("[")}


def target_problem(spec: str) -> str | None:
    """Why `spec` is not `module:function` (each side dotted Python names), or None. Checked
    before anything is imported: a name of the wrong shape never runs a module's code."""
    module, sep, attribute = spec.partition(":") if isinstance(spec, str) else ("", "", "")
    if not sep or not _dotted_names(module) or not _dotted_names(attribute):
        return f"must be 'module:function' (dotted Python names on each side), got {spec!r}"
    return None


def _dotted_names(text: str) -> bool:
    parts = text.split(".")
    return all(part.isidentifier() and not keyword.iskeyword(part) for part in parts)


def load_target(spec: str) -> Any:
    """The object `module:function` names (the function may be a dotted attribute path),
    imported only once the name has the right shape and the module is found. Whatever the
    module prints while it is imported goes to standard error: standard output carries the
    prompt."""
    problem = target_problem(spec)
    if problem is not None:
        raise ValueError(problem)
    module_name, _, attribute = spec.partition(":")
    if importlib.util.find_spec(module_name) is None:
        raise ModuleNotFoundError(f"no module named {module_name!r}")
    with contextlib.redirect_stdout(sys.stderr):
        target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    return target
