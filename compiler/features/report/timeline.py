"""What the cache timeline page shows, as data: the simulator's per-turn accounting of a replayed
trace under every rule set, and the same trace priced under other cache layouts to compare."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...model.request import Request
from ..cache import replay as replaying
from ..cache import report
from ..cache.optimize import NO_KEEP_WARM
from ..cache.replay import Replay
from ..cache.simulate import Result
from ..cache.trace import Event

CONFIGURED = "as configured"
"""The layout the request's own config gives."""
OTHER_LAYOUTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("one breakpoint at the boundary, 5m", ("prompt.cache.tiers=[]", "prompt.cache.ttl=5m", NO_KEEP_WARM)),
    ("the configured tiers, 1h on every breakpoint", ("prompt.cache.ttl=1h",)),
)
"""The layouts the configured one is compared with, each as `--set` overrides laid over the request."""


@dataclass(frozen=True, slots=True)
class Layout:
    """One cache layout and what the trace costs under it, per rule set."""

    name: str
    """How the page names it."""
    overrides: tuple[str, ...]
    """The `--set` overrides that make it from the configured layout."""
    results: Mapping[str, Result]
    """The simulation under every rule set, by rule-set name."""


@dataclass(frozen=True, slots=True)
class Timeline:
    """Everything the cache timeline page shows."""

    trace: str
    """The trace file as given."""
    replayed: Replay
    """The trace compiled with the configured layout."""
    document: Mapping[str, object]
    """`cache simulate --format json`'s document for the configured layout."""
    layouts: tuple[Layout, ...]
    """The configured layout first, then the others."""

    @property
    def results(self) -> Mapping[str, Result]:
        """The configured layout's simulation, by rule-set name."""
        return self.layouts[0].results


def build(request: Request, events: Sequence[Event], trace_path: Path, replayed: Replay) -> Timeline:
    """The configured layout's replay simulated under every rule set, and the trace replayed and
    simulated again under each of OTHER_LAYOUTS."""
    configured = report.simulate_all(replayed)
    layouts = [Layout(CONFIGURED, (), configured)]
    for name, overrides in OTHER_LAYOUTS:
        changed = dataclasses.replace(request, overrides=(*request.overrides, *overrides))
        layouts.append(Layout(name, overrides, report.simulate_all(replaying.replay(changed, events, trace_path))))
    document = report.document(replayed, configured, str(trace_path))
    return Timeline(str(trace_path), replayed, document, tuple(layouts))
