"""The bundle directory: written whole and swapped in atomically, never over a directory
promptc did not write as a bundle."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from ..._lib import fsutil
from ..._lib.errors import Location
from ..._lib.fsutil import Refused
from ..._lib.owned import owned_path
from ...emit import payloads
from .model import LEGACY_FORMAT, Built, BundleError

MANIFEST = "manifest.json"
STABLE_DIR = "stable"
RECIPES_DIR = "recipes"
RECIPE_NAME = re.compile(r"[0-9a-f]{64}\.json")
"""A recipe file's name: its SHA-256 (recipes share parts the manifest does not list, so a recipe
file is recognised by its name alone)."""
MARKER = ".promptc-bundle"
"""A file only promptc writes into a bundle: a rebuild replaces a directory only when it holds it."""
MARKER_TEXT = "promptc bundle: this directory is replaced whole by `promptc bundle --out`\n"
MAX_FILE_BYTES = 256 * 1024 * 1024
"""The largest manifest, stable text or recipe file read from a bundle dir (by `Bundle.open`,
`bundle --check` and a rebuild)."""
LEGACY_MANIFEST_KEYS = frozenset({"format", "token_method", "variants"})
"""The keys of a legacy bundle's manifest (format 1), one that has no marker beside it."""


def write(built: Built, out: Path) -> int:
    """Build the bundle in a temp dir beside `out`, then swap it in; returns stale files removed.

    `out` is resolved first, so a symlink keeps pointing at the directory it names and that
    directory is replaced. Any OSError becomes a BundleError naming the path.
    """
    try:
        target = _target(out)
        before = stored_hashes(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            _fill(staging, built)
            _swap(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(out) else ""
        raise BundleError(f"cannot write the bundle: {exc.strerror or exc}{where}", Location(str(out))) from exc
    return len(before - set(built.stable))


def stored_hashes(out: Path, folder: str = STABLE_DIR) -> set[str]:
    """The hashes of the stable (or recipe) files in a bundle dir (empty when there is none); files only."""
    directory = out / folder
    suffix = ".md" if folder == STABLE_DIR else ".json"
    if not directory.is_dir():
        return set()
    return {p.name.removesuffix(suffix) for p in directory.glob("*" + suffix) if p.is_file()}


def _target(out: Path) -> Path:
    """The directory a rebuild replaces: `out` resolved, checked to be replaceable."""
    try:
        target = out.resolve()
    except RuntimeError as exc:  # a symlink loop
        raise BundleError(f"cannot resolve --out: {exc}", Location(str(out))) from exc
    if Path.cwd().resolve().is_relative_to(target):
        raise BundleError("--out must not be the current directory or one of its parents", Location(str(out)))
    _check_replaceable(target, out)
    return target


def _check_replaceable(target: Path, out: Path) -> None:
    """Refuse to replace anything promptc did not write as a bundle: a rebuild deletes the old
    directory, so a directory that merely has a `manifest.json` (a browser extension, a web app)
    must never qualify."""
    if target.exists() and not target.is_dir():
        raise BundleError("--out must be a directory", Location(str(out)))
    parent = next(p for p in target.parents if p.exists())
    if not parent.is_dir():
        raise BundleError(f"cannot create the bundle: {parent} is not a directory", Location(str(out)))
    if target.is_dir() and any(target.iterdir()):
        problem = _not_a_bundle(target)
        if problem is not None:
            raise BundleError(f"not a promptc bundle ({problem}); refusing to replace it", Location(str(out)))


def _not_a_bundle(directory: Path) -> str | None:
    """Why a non-empty directory is not one promptc wrote, or None when it is: it has the
    marker (or a legacy manifest) and nothing, at any depth, that promptc did not write."""
    stored = _stored_manifest(directory)
    foreign = _foreign_entry(directory, _listed_hashes(stored))
    if foreign is None:
        return None if has_marker(directory) or _is_legacy_manifest(stored) else f"no {MARKER} marker"
    if stored is None and foreign.startswith(f"{STABLE_DIR}/") and (directory / MANIFEST).exists():
        return f"its {MANIFEST} cannot be read, so the files in {STABLE_DIR}/ promptc wrote are unknown"
    return f"it holds {foreign!r}, which a bundle never does"


def _foreign_entry(directory: Path, hashes: set[str]) -> str | None:
    """The first entry (in sorted order, as a path inside the bundle) promptc did not write: a
    bundle holds its manifest and marker files and `stable/` with one `<sha256>.md` file per
    stable hash its manifest lists. Nothing is followed: a link is foreign."""
    for entry in _sorted_entries(directory):
        if entry.name in (MANIFEST, MARKER) and entry.is_file(follow_symlinks=False):
            continue
        if entry.name in (STABLE_DIR, RECIPES_DIR) and entry.is_dir(follow_symlinks=False):
            owned = _is_stable_file if entry.name == STABLE_DIR else _is_recipe_file
            inner = next((e for e in _sorted_entries(Path(entry.path)) if not owned(e, hashes)), None)
            if inner is None:
                continue
            return f"{entry.name}/{_first_inside(inner)}"
        return _first_inside(entry)
    return None


def _sorted_entries(directory: Path) -> list[os.DirEntry]:
    with os.scandir(directory) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def _is_stable_file(entry: os.DirEntry, hashes: set[str]) -> bool:
    return entry.name.endswith(".md") and entry.name[:-3] in hashes and entry.is_file(follow_symlinks=False)


def _is_recipe_file(entry: os.DirEntry, _hashes: set[str]) -> bool:
    return RECIPE_NAME.fullmatch(entry.name) is not None and entry.is_file(follow_symlinks=False)


def _first_inside(entry: os.DirEntry) -> str:
    """`entry`'s name, or for a real directory the path of the first thing in it (the file
    a user would miss)."""
    shown = entry.name
    while entry.is_dir(follow_symlinks=False):
        inside = _sorted_entries(Path(entry.path))
        if not inside:
            return shown + "/"
        entry = inside[0]
        shown += "/" + entry.name
    return shown


def _listed_hashes(stored: Any) -> set[str]:
    """The stable hashes a parsed manifest lists (none when there is no readable one)."""
    rows = stored.get("variants") if isinstance(stored, dict) else None
    rows = rows if isinstance(rows, list) else []
    return {row["stable_sha256"] for row in rows if isinstance(row, dict) and isinstance(row.get("stable_sha256"), str)}


def _stored_manifest(directory: Path) -> Any:
    """The parsed `manifest.json` of a directory, or None when it is no readable JSON file."""
    if not _is_regular(directory / MANIFEST):
        return None
    try:
        return json.loads(read_stored(directory / MANIFEST))
    except (OSError, Refused, ValueError, RecursionError):  # RecursionError: nested past what the parser takes
        return None


def read_stored(path: Path) -> bytes:
    """A file of a bundle dir through the bounded reader: a regular file of at most MAX_FILE_BYTES
    (a FIFO put in a bundle never blocks a check). Refused or OSError otherwise."""
    return fsutil.read_regular(path, MAX_FILE_BYTES)[0]


def _is_regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def has_marker(directory: Path) -> bool:
    expected = MARKER_TEXT.encode("utf-8")
    if (directory / MARKER).is_symlink():
        return False
    try:
        return fsutil.read_regular(directory / MARKER, len(expected))[0] == expected
    except (OSError, Refused):  # none, a FIFO, or longer than the marker
        return False


def _is_legacy_manifest(stored: Any) -> bool:
    """A legacy bundle, one without the marker: its manifest has exactly promptc's keys."""
    return isinstance(stored, dict) and set(stored) == LEGACY_MANIFEST_KEYS and stored["format"] == LEGACY_FORMAT


def _fill(staging: Path, built: Built) -> None:
    os.chmod(staging, 0o755)  # mkdtemp makes it private; a bundle is meant to be shared
    _staged(staging, STABLE_DIR).mkdir()
    for sha, text in built.stable.items():
        _staged(staging, f"{STABLE_DIR}/{sha}.md").write_bytes(text.encode("utf-8"))
    _staged(staging, RECIPES_DIR).mkdir()
    for sha, text in built.recipes.items():
        _staged(staging, f"{RECIPES_DIR}/{sha}.json").write_bytes(text.encode("ascii"))
    _staged(staging, MANIFEST).write_text(payloads.dumps(built.manifest), encoding="utf-8")
    _staged(staging, MARKER).write_text(MARKER_TEXT, encoding="utf-8")


def _staged(staging: Path, relative: str) -> Path:
    """A path below the staging dir, checked as every path promptc writes below a dir it owns
    (the names are hashes promptc made, so a refusal is a bug, reported as a bundle error)."""
    try:
        return owned_path(staging, relative)
    except Refused as exc:
        raise BundleError(f"refusing to write: {exc.detail}", Location(str(staging / relative))) from exc


def _swap(staging: Path, out: Path) -> None:
    """Two renames: readers see the old bundle or the new one, never a half-written one.

    When the second rename fails the old bundle is renamed back, so `out` still holds it.
    Removing the retired bundle afterwards is best effort: the new one is already in place.
    """
    if not out.exists():
        os.rename(staging, out)
        return
    retired = out.parent / f".{out.name}.old-{uuid.uuid4().hex}"
    os.rename(out, retired)
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(retired, out)
        raise
    shutil.rmtree(retired, ignore_errors=True)
