"""`promptc bundle`: compile every variant of a matrix into `manifest.json` (hashes and sizes per
variant) plus `stable/<sha256>.md`, each distinct stable part stored once."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import hashlib
import itertools
import json
import os
import shutil
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import tiers as cache_tiers
from .._lib.errors import Location, PromptcError
from ..emit import context, payloads, tokens
from ..inputs import runfacts, yamlsrc
from ..model.prompt import Prompt
from ..model.request import Request
from ..model.runfacts import RunFacts
from ..warm import batch
from ..warm import compiler as engine
from .cache import diff as cache_diff

AXES: tuple[tuple[str, str], ...] = (
    ("agents", "agent"),
    ("sessions", "session"),
    ("modes", "mode"),
    ("providers", "provider"),
    ("channels", "channel"),
    ("chat_types", "chat_type"),
)
"""Matrix keys and the run fact each one sets, outermost loop first. The chat type is an axis
of its own because it can change the stable part: MEMORY.md stays out of group chats unless
`agents.defaults.memoryInGroups` is set."""
ROW_KEYS = ("agent", "session", "mode", "provider", "model", "channel", "chat_type")
"""What identifies a variant in the manifest."""
MANIFEST = "manifest.json"
STABLE_DIR = "stable"
FORMAT = 1
MARKER = ".promptc-bundle"
"""A file only promptc writes into a bundle: a rebuild replaces a directory only when it holds it."""
MARKER_TEXT = "promptc bundle: this directory is replaced whole by `promptc bundle --out`\n"
LEGACY_MANIFEST_KEYS = frozenset({"format", "token_method", "variants"})
"""A manifest written before the marker existed has exactly these keys."""


class BundleError(PromptcError):
    """The matrix is malformed, or the output directory cannot be used."""


@dataclass(frozen=True, slots=True)
class Built:
    """A bundle in memory: the manifest and each distinct stable text by its SHA-256."""

    manifest: Mapping[str, Any]
    """The `manifest.json` document."""
    stable: Mapping[str, str]
    """SHA-256 hex -> stable text, in first-use order."""
    parts: Mapping[str, StableParts] = dataclasses.field(default_factory=dict)
    """SHA-256 hex -> what that stable text is made of (for `--check` to say what changed)."""


@dataclass(frozen=True, slots=True)
class StableParts:
    """The sections and workspace files one stable text is made of."""

    sections: tuple[tuple[str, str], ...]
    """(section id, its text), in prompt order."""
    files: tuple[tuple[str, str], ...]
    """(bootstrap file name, its injected text) for the files above the boundary."""


# --------------------------------------------------------------------------- matrix


def load_matrix(path: Path, base: RunFacts) -> list[RunFacts]:
    """The run facts of every variant: the product of the matrix axes applied over `base`.

    Each axis is a list whose entries are a plain value (`telegram`) or a mapping of run facts
    that names the axis' own fact (`{provider: openai, model: openai/gpt-5.5}`). An absent
    axis keeps the base value.
    """
    located = yamlsrc.load_file(path, BundleError)
    data = located.value if located.value is not None else {}
    if not isinstance(data, dict):
        raise BundleError("a matrix must be a mapping of axis lists", located.where(()))
    for key in data:
        if key not in dict(AXES):
            raise BundleError(f"unknown matrix key '{key}' (expected {', '.join(dict(AXES))})", located.where((key,)))
    axes = [_axis(data, key, fact, located) for key, fact in AXES]
    variants = [_apply(base, combo) for combo in itertools.product(*axes)]
    _check_distinct(variants, Location(str(path)))
    return variants


def _axis(data: dict, key: str, fact: str, located: yamlsrc.Located) -> list[dict[str, Any]]:
    if key not in data:
        return [{}]
    entries = data[key]
    if not isinstance(entries, list) or not entries:
        raise BundleError(f"'{key}' must be a non-empty list", located.where((key,)))
    return [_entry(entry, fact, located, (key, index)) for index, entry in enumerate(entries)]


def _entry(entry: Any, fact: str, located: yamlsrc.Located, where: tuple) -> dict[str, Any]:
    """One axis entry as converted run facts."""
    raw = entry if isinstance(entry, dict) else {fact: entry}
    if fact not in raw:
        raise BundleError(f"a mapping entry here must set '{fact}'", located.where(where))
    facts = {}
    for key, value in raw.items():
        if key not in runfacts.FIELD_NAMES:
            raise BundleError(f"unknown run-fact key '{key}'", located.where(where + (key,)))
        try:
            facts[key] = runfacts.converter(key)(value)
        except ValueError as exc:
            raise BundleError(f"{key}: {exc}", located.where(where)) from exc
    return facts


def _apply(base: RunFacts, combo: Sequence[dict[str, Any]]) -> RunFacts:
    facts: dict[str, Any] = {}
    for entry in combo:
        facts.update(entry)
    return dataclasses.replace(base, **facts)


def row_key(run: RunFacts) -> tuple[str | None, ...]:
    """The values that identify a variant in the manifest (the mode is the effective one)."""
    values = {**{key: getattr(run, key) for key in ROW_KEYS if key != "mode"}, "mode": run.effective_mode}
    return tuple(values[key] for key in ROW_KEYS)


def _check_distinct(variants: Sequence[RunFacts], where: Location) -> None:
    seen: set[tuple] = set()
    for run in variants:
        key = row_key(run)
        if key in seen:
            raise BundleError(f"two variants are identical ({variant_id(key)}); make the matrix entries differ", where)
        seen.add(key)


ID_NAMES = {"chat_type": "chat"}
"""How a variant id names a row key (`chat=direct`)."""


def variant_id(key: Sequence[Any], with_model: bool = True) -> str:
    """`agent=main session=main mode=full provider=anthropic channel=telegram chat=direct`: the
    row's set values by name; the model only when `with_model` (the matrix varies it)."""
    shown = [
        (name, value) for name, value in zip(ROW_KEYS, key) if value is not None and (with_model or name != "model")
    ]
    return " ".join(f"{ID_NAMES.get(name, name)}={value}" for name, value in shown)


# --------------------------------------------------------------------------- build


def build(variants: Sequence[RunFacts], request: Request, jobs: int = 1) -> Built:
    """Compile every variant with `request` (its run replaced) and collect the distinct stable texts.

    One warm Compiler per process reads the inputs once; with `jobs` > 1 consecutive variants
    are compiled in worker processes (compiler/batch.py). Each distinct stable text is rendered
    and counted once per worker. A build writes no state files: its variants are not turns of
    a real session.
    """
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    parts: dict[str, StableParts] = {}
    tokens.count("")  # build the encoding here, once: forked workers inherit it
    for chunk_rows, chunk_stable, chunk_parts in batch.map_chunks(request, variants, _build_chunk, jobs):
        rows += chunk_rows
        stable.update((sha, text) for sha, text in chunk_stable.items() if sha not in stable)
        parts.update((sha, made) for sha, made in chunk_parts.items() if sha not in parts)
    manifest = {"format": FORMAT, "token_method": token_method(), "variants": rows}
    return Built(manifest, stable, parts)


Chunk = tuple[list[dict[str, Any]], dict[str, str], dict[str, StableParts]]


def _build_chunk(compiler: engine.Compiler, variants: Sequence[RunFacts]) -> Chunk:
    """Rows for consecutive variants and the stable texts they use (with what each is made
    of), in first-use order."""
    rows: list[dict[str, Any]] = []
    stable: dict[str, str] = {}
    parts: dict[str, StableParts] = {}
    stable_tokens: dict[str, int] = {}
    for run in variants:
        prompt, _ = compiler.compile_pending(run)
        sha = prompt.stable_sha256
        if sha not in stable:
            stable[sha], stable_tokens[sha] = prompt.stable, context.token_count(prompt.stable)
            parts[sha] = StableParts(
                tuple((s.id, s.text) for s in prompt.sections if s.side == "stable"),
                tuple((f.name, f.text) for f in prompt.files if f.injected and not f.dynamic),
            )
        rows.append(_row(run, prompt, stable_tokens[sha]))
    return rows, stable, parts


def _row(run: RunFacts, prompt: Prompt, stable_tokens: int) -> dict[str, Any]:
    return {
        **dict(zip(ROW_KEYS, row_key(run))),
        "agent": prompt.agent,  # the resolved id, also when the matrix leaves it to the default
        "stable_sha256": prompt.stable_sha256,
        "volatile_sha256": prompt.volatile_sha256,
        "stable_chars": len(prompt.stable),
        "volatile_chars": len(prompt.volatile),
        "tokens": {"stable": stable_tokens, "volatile": context.token_count(prompt.volatile)},
        "tiers": cache_tiers.entries(prompt.tiers, prompt.units),
    }


def token_method() -> str:
    """How the manifest's token counts were made; counts made differently are not compared."""
    return tokens.ENCODING_NAME if tokens.count("") is not None else "estimate: UTF-8 bytes / 4"


# --------------------------------------------------------------------------- write


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
        return None if _has_marker(directory) or _is_legacy_manifest(stored) else f"no {MARKER} marker"
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
        if entry.name == STABLE_DIR and entry.is_dir(follow_symlinks=False):
            stable = (e for e in _sorted_entries(Path(entry.path)) if not _is_stable_file(e, hashes))
            inner = next(stable, None)
            if inner is None:
                continue
            return f"{STABLE_DIR}/{_first_inside(inner)}"
        return _first_inside(entry)
    return None


def _sorted_entries(directory: Path) -> list[os.DirEntry]:
    with os.scandir(directory) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def _is_stable_file(entry: os.DirEntry, hashes: set[str]) -> bool:
    return entry.name.endswith(".md") and entry.name[:-3] in hashes and entry.is_file(follow_symlinks=False)


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
        return json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    except (ValueError, RecursionError):  # RecursionError: nested past what the parser takes
        return None


def _is_regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def _has_marker(directory: Path) -> bool:
    expected = MARKER_TEXT.encode("utf-8")
    if not _is_regular(directory / MARKER):
        return False
    with open(directory / MARKER, "rb") as handle:
        return handle.read(len(expected) + 1) == expected


def _is_legacy_manifest(stored: Any) -> bool:
    """A bundle written before the marker existed: its manifest has exactly promptc's keys."""
    return isinstance(stored, dict) and set(stored) == LEGACY_MANIFEST_KEYS and stored["format"] == FORMAT


def _fill(staging: Path, built: Built) -> None:
    os.chmod(staging, 0o755)  # mkdtemp makes it private; a bundle is meant to be shared
    (staging / STABLE_DIR).mkdir()
    for sha, text in built.stable.items():
        (staging / STABLE_DIR / f"{sha}.md").write_bytes(text.encode("utf-8"))
    (staging / MANIFEST).write_text(payloads.dumps(built.manifest), encoding="utf-8")
    (staging / MARKER).write_text(MARKER_TEXT, encoding="utf-8")


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


def stored_hashes(out: Path) -> set[str]:
    """The hashes of the stable files in a bundle dir (empty when there is none); files only."""
    directory = out / STABLE_DIR
    if not directory.is_dir():
        return set()
    return {p.name.removesuffix(".md") for p in directory.glob("*.md") if p.is_file()}


# --------------------------------------------------------------------------- check


def verify(built: Built, out: Path) -> list[str]:
    """What differs between the bundle on disk and `built`, as report lines; empty when it is
    current. Variants whose stable part changed the same way are one group, which names the
    sections and files that changed and shows the first change as a short diff."""
    path = out / MANIFEST
    if not path.is_file():
        return [f"{MANIFEST}: missing (no bundle at {out})"]
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        rows = {_stored_key(row): row for row in stored["variants"]}
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{MANIFEST}: unreadable ({exc})"]
    same_tokens = stored.get("token_method") == built.manifest["token_method"]
    problems = _row_changes(rows, built, out, same_tokens=same_tokens)
    # The groups above explain a new stable file not written yet and an old one no longer
    # used; what is listed here is a file that is wrong on its own.
    explained = {row.get("stable_sha256") for row in rows.values()} ^ {
        row["stable_sha256"] for row in built.manifest["variants"]
    }
    problems += _stable_file_problems(out, built, explained)
    # Token counts made another way (the `tokens` extra missing here) differ in every row, so
    # the whole-file comparison is only meaningful when the counting method is the same.
    if not problems and same_tokens and path.read_text(encoding="utf-8") != payloads.dumps(built.manifest):
        problems.append(f"{MANIFEST}: same variants, but the file differs (order or format)")
    return problems


def _stored_key(row: Mapping[str, Any]) -> tuple:
    return tuple(row[key] for key in ROW_KEYS)


SHOWN_VARIANTS = 3
"""Variant ids listed per group before `... and N more`."""
DIFF_LINES = 16
"""At most this many lines of the first change's diff are shown per group."""


def _row_changes(stored: Mapping[tuple, Mapping[str, Any]], built: Built, out: Path, *, same_tokens: bool) -> list[str]:
    expected = {_stored_key(row): row for row in built.manifest["variants"]}
    with_model = len({key[ROW_KEYS.index("model")] for key in (*expected, *stored)}) > 1
    name = functools.partial(variant_id, with_model=with_model)
    lines = [f"variant {name(k)}: missing from the bundle" for k in expected if k not in stored]
    lines += [f"variant {name(k)}: in the bundle but not in the matrix" for k in stored if k not in expected]
    groups: dict[tuple, list[tuple]] = {}
    for key in (k for k in expected if k in stored):
        old, new = stored[key], expected[key]
        if old.get("stable_sha256") != new["stable_sha256"]:
            groups.setdefault(("stable", old.get("stable_sha256"), new["stable_sha256"]), []).append(key)
        elif old.get("volatile_sha256") != new["volatile_sha256"]:
            groups.setdefault(("volatile",), []).append(key)
        elif any(old.get(f) != new[f] for f in new if f not in ROW_KEYS and (same_tokens or f != "tokens")):
            groups.setdefault(("counts",), []).append(key)
    for group, keys in groups.items():
        old_tiers, new_tiers = stored[keys[0]].get("tiers"), expected[keys[0]]["tiers"]
        tiers = _tier_words(old_tiers, new_tiers) if old_tiers != new_tiers else None
        lines += _group_report(group, keys, built, out, name, tiers)
    return lines


def _tier_words(old: Any, new: list[dict[str, Any]]) -> str:
    """The tier changes in the words watch mode and `cache diff` use."""
    if not isinstance(old, list):
        return "cache tiers added (the bundle was built before them)"
    try:
        return cache_diff.summary(cache_diff.compare(old, new))
    except (KeyError, TypeError):
        return "cache tiers unreadable in the stored manifest"


def _group_report(group: tuple, keys: list[tuple], built: Built, out: Path, name: Any, tiers: str | None) -> list[str]:
    count = f"{len(keys)} {'variant' if len(keys) == 1 else 'variants'}"
    if group[0] == "volatile":
        head = f"volatile part changed in {count} (stable part unchanged):"
    elif group[0] == "counts":
        head = f"token or character counts differ in {count} (texts unchanged):"
    else:
        head = f"stable part changed in {count} ({str(group[1])[:12]} in the bundle, {group[2][:12]} now; cache invalidated):"
    lines = [head, *(f"  {name(key)}" for key in keys[:SHOWN_VARIANTS])]
    if len(keys) > SHOWN_VARIANTS:
        lines.append(f"  ... and {len(keys) - SHOWN_VARIANTS} more")
    if tiers is not None:
        lines.append(f"  {tiers}")
    if group[0] == "stable":
        lines += _what_changed(out / STABLE_DIR / f"{group[1]}.md", built.stable[group[2]], built.parts.get(group[2]))
    return lines


def _what_changed(old_path: Path, new_text: str, parts: StableParts | None) -> list[str]:
    """The sections and files whose text is not in the bundle's stable part, and the first
    change as a unified diff."""
    try:
        old_text = old_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return [f"  (the bundle's {STABLE_DIR}/{old_path.name} is not there to compare with)"]
    sections = [sid for sid, text in (parts.sections if parts else ()) if text not in old_text]
    files = [fname for fname, text in (parts.files if parts else ()) if text not in old_text]
    lines = [f"  sections changed: {', '.join(sections) if sections else 'none (text was removed)'}"]
    if files:
        lines.append(f"  files changed: {', '.join(files)}")
    where = f" (section {sections[0]})" if sections else ""
    lines.append(f"  first change{where}:")
    return lines + [f"    {line}" for line in _first_hunk(old_text, new_text)]


def _first_hunk(old_text: str, new_text: str) -> list[str]:
    diff = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), "in the bundle", "now", n=2, lineterm="")
    lines: list[str] = []
    for line in diff:
        if line.startswith("@@") and any(seen.startswith("@@") for seen in lines):
            break
        lines.append(line)
    return lines[:DIFF_LINES] + (["..."] if len(lines) > DIFF_LINES else [])


def _stable_file_problems(out: Path, built: Built, explained: set[Any]) -> list[str]:
    present = stored_hashes(out)
    problems = [
        f"{STABLE_DIR}/{sha}.md: missing" for sha in built.stable if sha not in present and sha not in explained
    ]
    stale = sorted(present - set(built.stable) - explained)
    problems += [f"{STABLE_DIR}/{sha}.md: stale (no variant uses it)" for sha in stale]
    for sha in (s for s in built.stable if s in present):
        if hashlib.sha256((out / STABLE_DIR / f"{sha}.md").read_bytes()).hexdigest() != sha:
            problems.append(f"{STABLE_DIR}/{sha}.md: content does not match its name")
    return problems


# --------------------------------------------------------------------------- CLI
