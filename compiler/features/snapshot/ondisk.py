"""What is on disk in a snapshots directory: the output files promptc wrote (known by name), the
files of the user's it must leave alone, and the paths it may write or delete."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..._lib.errors import Location
from ..._lib.fsutil import Refused, read_input
from ..._lib.owned import owned_path, walk_tree
from .keys import ScenarioError
from .outputs import OUTPUT_NAMES
from .scenario import SCENARIO_FILE, Scenario, ignored

WALK_DEPTH = 8
"""How deep below a scenario directory files of the user's are looked for, to be named."""


def output_order(rel: str) -> tuple[str, int, str]:
    """Sort key of `scenario/file`: by scenario, then in OUTPUT_NAMES order (stable.md first)."""
    scenario, _, name = rel.rpartition("/")
    return scenario, OUTPUT_NAMES.index(name) if name in OUTPUT_NAMES else len(OUTPUT_NAMES), name


def present_outputs(root: Path, scenarios: Sequence[Scenario]) -> set[str]:
    """Output-named files beside each scenario.yaml, and in directories that lost theirs."""
    found: set[str] = set()
    for directory in (*(s.dir for s in scenarios), *orphans(root, scenarios)):
        found |= {f"{directory.name}/{name}" for name in OUTPUT_NAMES if (directory / name).is_file()}
    return found


def orphans(root: Path, scenarios: Sequence[Scenario]) -> list[Path]:
    """Directories of `root` (not links, fixtures or inputs of a scenario) without a scenario.yaml."""
    known = {s.dir for s in scenarios}
    inputs = [path for s in scenarios for path in s.inputs]
    return [
        d
        for d in sorted(root.iterdir())
        if d.is_dir() and not d.is_symlink() and d not in known and not ignored(d) and not _within(d, inputs)
    ]


def _within(path: Path, inputs: Iterable[Path]) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(i) for i in inputs)


def left_alone(root: Path, scenarios: Sequence[Scenario], directories: Iterable[str]) -> tuple[str, ...]:
    """Files below the given scenario or orphan directories (relative to `root`) that are neither
    outputs nor inputs: the user's own, which promptc never writes or deletes. Hidden files and
    directories are left out of the list."""
    inputs = [path for s in scenarios for path in s.inputs]
    found = []
    for name in sorted(set(directories)):
        for folder, files in walk_tree(
            root / name, WALK_DEPTH, follow_links=False, skip=lambda path: _hidden(path.name)
        ):
            for file in files:
                path = folder / file
                if _hidden(file) or (folder == root / name and file in (*OUTPUT_NAMES, SCENARIO_FILE)):
                    continue
                if not _within(path, inputs):
                    found.append(path.relative_to(root).as_posix())
    return tuple(found)


def _hidden(name: str) -> bool:
    return name.startswith(".")


def owned(root: Path, rel: str) -> Path:
    """`root / rel` for gen to write or delete, refused when it would lead out of `root` (a
    symlinked scenario directory or output file)."""
    try:
        return owned_path(root, rel)
    except Refused as exc:
        raise ScenarioError(f"refusing to write or delete: {exc.detail}", Location(str(root / rel))) from exc


def read_committed(root: Path, rel: str) -> bytes:
    """A committed output's bytes (a regular file, bounded; anything else is one error line)."""
    return read_input(root / rel, ScenarioError)
