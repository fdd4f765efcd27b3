"""`cache diff`'s two compiles: two run-fact files, a workspace before and after an edit, or a
bundle's stored variant against the templates as they are now; compared tier by tier, with the
model or provider switch named and the first cause's text diffed."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ... import tiers as cache_tiers
from ...model.prompt import Prompt
from ...model.request import Request
from ...model.runfacts import RunFacts
from ...model.units import DYNAMIC_UNIT
from ...warm import compiler as engine
from . import diff


@dataclass(frozen=True, slots=True)
class Compared:
    """Two compiles' cache tiers side by side."""

    changes: tuple[diff.TierChange, ...]
    """Each tier of the newer compile, compared with the older one."""
    before: Mapping[str, str]
    """The older side's unit texts, by unit name (a bundle keeps its stable units only)."""
    after: Prompt
    """The newer compile."""
    switched: str | None
    """The line naming a model or provider switch; None when both sides share a cache."""

    @property
    def found(self) -> bool:
        """Whether any tier is invalidated (`cache diff` exits 1)."""
        return any(change.changed for change in self.changes)

    def text(self) -> str:
        """The switch, if any; each tier's verdict; and under the first tier a change starts in,
        the diff of its first cause."""
        lines = [self.switched] if self.switched is not None else []
        now = {u.name: u.text for u in self.after.units}
        shown = False
        for change in self.changes:
            lines.append(diff.describe(change))
            if change.own and not shown and not change.switch:
                name = next(n for n in change.causes if self.before.get(n) != now.get(n))
                if name == DYNAMIC_UNIT and name not in self.before:
                    lines.append("  (the bundle keeps no volatile text to compare with)")
                else:
                    lines += ["  " + line for line in diff.unit_diff(name, self.before.get(name), now.get(name))]
                shown = True
        return "\n".join(lines) + "\n"


def runs(request: Request, before: RunFacts, after: RunFacts) -> Compared:
    """The same inputs compiled with two sets of run facts."""
    return _between(dataclasses.replace(request, run=before), dataclasses.replace(request, run=after))


def workspaces(request: Request, before: Path, after: Path) -> Compared:
    """The same inputs compiled on two workspaces. Both prompts name the second directory, so
    only the files' contents can differ."""
    shown = f"agents.defaults.workspace={json.dumps(str(after.absolute()))}"
    overrides = (*request.overrides, shown)
    return _between(*(dataclasses.replace(request, workspace=path, overrides=overrides) for path in (before, after)))


def stored(after: Prompt, run: RunFacts, stable: str, tiers: diff.Entries, identity: diff.Identity) -> Compared:
    """A stored stable part (a bundle variant's text, tiers and cache identity) against `after`,
    compiled now for `run`."""
    changes = diff.compare(tiers, cache_tiers.entries(after.tiers, after.units))
    return _compared(changes, cache_tiers.unit_texts(stable, tiers), after, identity, identity_of(run, identity))


def identity_of(run: RunFacts, fallback: diff.Identity | None = None) -> diff.Identity:
    """The provider and model a run's requests go to (a fact the run leaves unset: `fallback`'s)."""
    provider = run.provider if run.provider is not None or fallback is None else fallback.provider
    model = run.model if run.model is not None or fallback is None else fallback.model
    return diff.Identity(provider, model)


def compile_without_state(request: Request) -> Prompt:
    """A compile that writes no state (neither side of a diff is a real turn)."""
    with engine.Compiler.from_request(request) as compiler:
        prompt, _ = compiler.compile_pending(request.run)
    return prompt


def _between(first: Request, second: Request) -> Compared:
    before, after = compile_without_state(first), compile_without_state(second)
    changes = diff.compare_prompts(before, after)
    texts = {u.name: u.text for u in before.units}
    return _compared(changes, texts, after, identity_of(first.run), identity_of(second.run))


def _compared(
    changes: tuple[diff.TierChange, ...],
    before: Mapping[str, str],
    after: Prompt,
    old: diff.Identity,
    new: diff.Identity,
) -> Compared:
    """With a switch of model or provider, every tier is rewritten whatever its bytes."""
    switched = diff.switch(old, new)
    if switched is None:
        return Compared(changes, before, after, None)
    return Compared(
        diff.rewritten(cache_tiers.entries(after.tiers, after.units), switched[0]), before, after, switched[1]
    )
