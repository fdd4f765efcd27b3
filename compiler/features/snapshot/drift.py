"""Compare the committed snapshots with freshly generated ones (`check`), or rewrite them
(`gen`): drifted, missing and stale files."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..._lib.fsutil import write_text_atomic
from ...warm.compiler import compile_once
from ..cache import diff as cache_diff
from .outputs import OUTPUT_NAMES, render
from .scenario import Scenario, discover, ignored


@dataclass(frozen=True, slots=True)
class Drift:
    """What `check` found; empty lists mean the committed snapshots are current."""

    drifted: tuple[tuple[str, str, str], ...]
    """(path relative to the snapshots dir, committed text, generated text)."""
    missing: tuple[str, ...]
    """Expected files that do not exist."""
    stale: tuple[str, ...]
    """Files that are neither inputs nor expected outputs."""
    scenarios: int
    """How many scenarios were compiled."""
    files: int
    """How many output files they produce."""
    tiers: Mapping[str, str] = field(default_factory=dict)
    """For each drifted stable.md: which cache tiers the change invalidates, and by what."""

    @property
    def clean(self) -> bool:
        """True when nothing drifted, is missing or is stale."""
        return not (self.drifted or self.missing or self.stale)

    @property
    def outdated(self) -> tuple[str, ...]:
        """The files `gen` writes: the drifted ones, then the missing ones."""
        return tuple(rel for rel, _, _ in self.drifted) + self.missing


def expected_files(root: Path, extra_templates: Sequence[Path] = ()) -> tuple[list[Scenario], dict[str, str]]:
    """Every scenario and every file it should have (path relative to `root` -> text)."""
    scenarios = discover(root, extra_templates)
    files = {}
    for scenario in scenarios:
        for name, text in render(scenario).items():
            files[f"{scenario.name}/{name}"] = text
    return scenarios, files


def present_files(root: Path, scenarios: Sequence[Scenario]) -> set[str]:
    """Files that are outputs or stale candidates: everything in a scenario dir but its inputs,
    and the output-named files left in dirs that lost their scenario.yaml."""
    found: set[str] = set()
    for scenario in scenarios:
        found |= {_rel(root, p) for p in _files_under(scenario.dir) if _generated_or_stale(p, scenario)}
    known = {s.dir for s in scenarios}
    for orphan in (d for d in sorted(root.iterdir()) if d.is_dir() and d not in known and not ignored(d)):
        found |= {_rel(root, orphan / name) for name in OUTPUT_NAMES if (orphan / name).is_file()}
    return found


def _files_under(directory: Path) -> list[Path]:
    """Files below `directory`, skipping hidden ones (editor swap files, .gitkeep, ...)."""
    files = (p for p in sorted(directory.rglob("*")) if p.is_file())
    return [p for p in files if not any(part.startswith(".") for part in p.relative_to(directory).parts)]


def _generated_or_stale(path: Path, scenario: Scenario) -> bool:
    """An output name beside scenario.yaml, or any file that is no input (a stale candidate)."""
    if path.parent == scenario.dir and path.name in OUTPUT_NAMES:
        return True  # even when an input names the scenario dir itself (`docsPath: .`)
    resolved = path.resolve()
    return not any(resolved.is_relative_to(i) for i in scenario.inputs)


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def check(root: Path, extra_templates: Sequence[Path] = ()) -> Drift:
    """Compare the committed snapshots with freshly generated ones; nothing is written."""
    scenarios, expected = expected_files(root, extra_templates)
    drift = compare(root, scenarios, expected)
    by_name = {scenario.name: scenario for scenario in scenarios}
    words = {}
    for rel, committed, _ in drift.drifted:
        if rel.endswith("/stable.md"):
            prompt, _ = compile_once(by_name[rel.rsplit("/", 1)[0]].request)
            words[rel] = cache_diff.summary(cache_diff.compare_text(committed.removesuffix("\n"), prompt))
    return dataclasses.replace(drift, tiers=words)


def compare(root: Path, scenarios: Sequence[Scenario], expected: Mapping[str, str]) -> Drift:
    """Sort the files on disk into drifted, missing and stale against `expected`."""
    present = present_files(root, scenarios)
    drifted = []
    for rel in sorted(set(expected) & present):
        committed = (root / rel).read_bytes()
        if committed != expected[rel].encode("utf-8"):
            drifted.append((rel, committed.decode("utf-8", errors="replace"), expected[rel]))
    missing = tuple(sorted(set(expected) - present))
    stale = tuple(sorted(present - set(expected)))
    return Drift(tuple(drifted), missing, stale, len(scenarios), len(expected))


def gen(root: Path, extra_templates: Sequence[Path] = ()) -> Drift:
    """Write every changed or missing output (each atomically) and delete stale files.

    Every scenario is compiled before the first write, so an error leaves the snapshots
    untouched. Returns the drift found before writing.
    """
    scenarios, expected = expected_files(root, extra_templates)
    drift = compare(root, scenarios, expected)
    for rel in drift.outdated:
        write_text_atomic(root / rel, expected[rel])
    for rel in drift.stale:
        (root / rel).unlink()
        _remove_empty_parents((root / rel).parent, root)
    return drift


def _remove_empty_parents(directory: Path, root: Path) -> None:
    while directory != root and directory.is_dir() and not any(directory.iterdir()):
        directory.rmdir()
        directory = directory.parent
