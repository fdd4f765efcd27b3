"""Compare the committed snapshots with freshly generated ones and run every scenario's
expectations (`check`), or rewrite the outputs (`gen`): drifted, missing and stale files.

`gen` writes and deletes only its own output files (known by name), each through a path checked
to stay inside the snapshots directory; files of the user's beside them are named, never touched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..._lib.atomic import write_text_atomic
from ..._lib.errors import Location
from ...model.prompt import Prompt
from ..cache import diff as cache_diff
from . import ondisk
from .outputs import compile_scenario, render
from .scenario import Scenario, discover, ignored
from .verdicts import Seen


@dataclass(frozen=True, slots=True)
class Drift:
    """How the files on disk differ from the generated ones; empty means current."""

    drifted: tuple[tuple[str, str, str], ...]
    """(path relative to the snapshots dir, committed text, generated text), stable.md first."""
    missing: tuple[str, ...]
    """Expected files that do not exist."""
    stale: tuple[str, ...]
    """Output files no scenario generates any more (known by name: OUTPUT_NAMES)."""
    scenarios: int
    """How many scenarios were compiled."""
    files: int
    """How many output files they produce."""
    tiers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """For each drifted stable.md: one line per invalidated cache tier, saying by what."""
    left_alone: tuple[str, ...] = ()
    """Files of the user's in the directories `gen` wrote to: neither inputs nor outputs."""

    @property
    def clean(self) -> bool:
        """True when nothing drifted, is missing or is stale."""
        return not (self.drifted or self.missing or self.stale)

    @property
    def outdated(self) -> tuple[str, ...]:
        """The files `gen` writes: the drifted ones, then the missing ones."""
        return tuple(rel for rel, _, _ in self.drifted) + self.missing


@dataclass(frozen=True, slots=True)
class Compiled:
    """One scenario, compiled."""

    scenario: Scenario
    """The scenario."""
    prompt: Prompt
    """Its prompt as the templates now make it."""
    outputs: Mapping[str, str]
    """Its expected files (name -> text)."""


@dataclass(frozen=True, slots=True)
class Failure:
    """An expectation that does not hold."""

    scenario: str
    """The scenario's name."""
    where: Location
    """The expectation's place in scenario.yaml."""
    label: str
    """The expectation, as its label names it."""
    reason: str
    """Why it fails."""

    def line(self) -> str:
        """`snapshots/x/scenario.yaml:12:7: expect contains 'Safety': not in the prompt`."""
        return f"{self.where}: expect {self.label}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Check:
    """What `check` found."""

    drift: Drift
    """The files that differ."""
    compiled: tuple[Compiled, ...]
    """Every scenario, compiled, in sorted order."""
    failures: tuple[Failure, ...]
    """The expectations that do not hold, scenario by scenario in file order."""
    expectations: int
    """How many expectations were checked."""

    @property
    def passed(self) -> bool:
        """True when the snapshots are current and every expectation holds."""
        return self.drift.clean and not self.failures


def compile_all(root: Path, extra_templates: Sequence[Path] = ()) -> tuple[tuple[Compiled, ...], dict[str, str]]:
    """Every scenario compiled, and every file it should have (path relative to `root` -> text)."""
    compiled = []
    for scenario in discover(root, extra_templates):
        prompt = compile_scenario(scenario)
        compiled.append(Compiled(scenario, prompt, render(scenario, prompt)))
    files = {f"{c.scenario.name}/{name}": text for c in compiled for name, text in c.outputs.items()}
    return tuple(compiled), files


def compare(root: Path, scenarios: Sequence[Scenario], expected: Mapping[str, str]) -> Drift:
    """Sort the output files on disk into drifted, missing and stale against `expected`."""
    present = ondisk.present_outputs(root, scenarios)
    drifted = []
    for rel in sorted(set(expected) & present, key=ondisk.output_order):
        committed = ondisk.read_committed(root, rel)
        if committed != expected[rel].encode("utf-8"):
            drifted.append((rel, committed.decode("utf-8", errors="replace"), expected[rel]))
    missing = tuple(sorted(set(expected) - present, key=ondisk.output_order))
    stale = tuple(sorted(present - set(expected), key=ondisk.output_order))
    return Drift(tuple(drifted), missing, stale, len(scenarios), len(expected))


def check(root: Path, extra_templates: Sequence[Path] = ()) -> Check:
    """Compare the committed snapshots with freshly generated ones and run every expectation;
    nothing is written."""
    compiled, expected = compile_all(root, extra_templates)
    drift = compare(root, [c.scenario for c in compiled], expected)
    prompts = {c.scenario.name: c.prompt for c in compiled}
    tiers = {
        rel: tier_lines(committed, prompts[rel.rpartition("/")[0]])
        for rel, committed, _ in drift.drifted
        if rel.endswith("/stable.md")
    }
    failures = tuple(_failures(compiled, prompts))
    count = sum(len(c.scenario.expectations) for c in compiled)
    return Check(dataclasses.replace(drift, tiers=tiers), compiled, failures, count)


def tier_lines(committed_stable: str, prompt: Prompt) -> tuple[str, ...]:
    """One line per cache tier the change from the committed stable.md invalidates."""
    changes = cache_diff.compare_text(committed_stable.removesuffix("\n"), prompt)
    return tuple(cache_diff.describe(change) for change in changes if change.changed)


def _failures(compiled: Sequence[Compiled], prompts: Mapping[str, Prompt]) -> list[Failure]:
    found = []
    for one in compiled:
        seen = Seen(one.prompt, prompts)
        for expectation in one.scenario.expectations:
            reason = expectation.verdict(seen)
            if reason is not None:
                found.append(Failure(one.scenario.name, expectation.where, expectation.label, reason))
    return found


def gen(root: Path, extra_templates: Sequence[Path] = ()) -> Drift:
    """Write every changed or missing output (each atomically) and delete stale ones.

    Every scenario is compiled, and every path to write or delete checked, before the first
    write, so an error leaves the snapshots untouched. Returns the drift found before writing,
    with the files of the user's that were left alone.
    """
    compiled, expected = compile_all(root, extra_templates)
    scenarios = [c.scenario for c in compiled]
    drift = compare(root, scenarios, expected)
    writes = [(ondisk.owned(root, rel), expected[rel]) for rel in drift.outdated]
    deletes = [ondisk.owned(root, rel) for rel in drift.stale]
    for path, text in writes:
        write_text_atomic(path, text)
    for path in deletes:
        path.unlink()
        _remove_if_empty(path.parent)
    touched = [s.name for s in scenarios] + [rel.partition("/")[0] for rel in drift.stale]
    kept = ondisk.left_alone(root, scenarios, (name for name in touched if (root / name).is_dir()))
    return dataclasses.replace(drift, left_alone=kept)


def _remove_if_empty(directory: Path) -> None:
    """A directory that held only stale outputs goes with them (`gen` made it)."""
    if not ignored(directory) and not any(directory.iterdir()):
        directory.rmdir()
