"""Replay a session trace through the compiler: a copy of the workspace, each event's edits
applied to it, each turn compiled by one warm Compiler and turned into the simulator's `Turn`s.

Also checks the promise the design rests on: no volatile fact changes the stable part. Every
event is compiled a second time with its volatile facts reset to the base run's, and the two
stable parts must be equal.
"""

from __future__ import annotations

import array
import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import tiers as cache_tiers
from ..._lib.errors import Location, PromptcError, RunFactsError
from ...emit import payloads, tokens
from ...inputs import runfacts
from ...inputs.pricing import Rules, identity
from ...model.config import KeepWarm
from ...model.prompt import CacheTier, Prompt
from ...model.request import Request
from ...model.runfacts import FACTS, RunFacts
from ...warm import compiler as engine
from ...warm.sources import KeptSources
from .keepwarm import with_pings
from .simulate import Turn, Unit
from .trace import Event, TraceError, apply

VOLATILE_FACTS: tuple[str, ...] = tuple(d.name for d in FACTS if d.fact.replay == "volatile")
"""Run facts that must never change the stable part (their declarations say so). The model and
provider reach it through provider contributions and the chat type through MEMORY.md in groups:
those are variants."""
VARIANT_FACTS: tuple[str, ...] = tuple(d.name for d in FACTS if d.fact.replay == "variant")
"""What tells the prompt variants of a trace apart (each has its own cache history)."""


@dataclass(frozen=True, slots=True)
class Compiled:
    """One trace event, compiled."""

    event: Event
    """The event."""
    variant: str
    """Its variant label."""
    units: tuple[Unit, ...]
    """The stable part's units with their digests and token counts."""
    tiers: tuple[CacheTier, ...]
    """The tiers as compiled."""
    breakpoints: tuple[CacheTier, ...]
    """The tiers as sent to Anthropic and Bedrock (ones too short to cache merged)."""
    volatile_tokens: int
    """Tokens after the last breakpoint (below the boundary)."""
    model: str = ""
    """The cache identity: the turn's model with its provider (a cache is per model)."""
    sequence: bytes = b""
    """The OpenAI request's text as automatic caching matches it (see `simulate.Turn.sequence`)."""
    unit_bytes: tuple[int, ...] = ()
    """Each unit's UTF-8 size with its separator (what the merge of short tiers measures)."""
    session: str = "main"
    """The turn's session kind."""
    keep_warm: KeepWarm | None = None
    """The keep-warm pings the runtime sends after this turn (`Prompt.keep_warm`)."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A whole trace, compiled."""

    events: tuple[Compiled, ...]
    """Every event, in order."""
    leaks: tuple[int, ...]
    """Trace lines where resetting the volatile facts changed the stable part (should be none)."""
    token_method: str
    """How tokens were counted."""
    openai_retention: str | None = None
    """`prompt.cache.openaiRetention` as the trace's first turn compiled it."""

    def turns(self, rules: Rules, pings: bool = True) -> tuple[Turn, ...]:
        """The trace as the simulator sees it under `rules`: explicit caches get the breakpoints
        sent to them, and the keep-warm pings the config asks for between them (unless `pings`
        is false); automatic ones the compiled tiers (for naming where a miss began) and the
        request's bytes (matched token by token)."""
        if not rules.explicit:
            return tuple(dataclasses.replace(_turn(c, c.tiers), sequence=c.sequence) for c in self.events)
        turns = tuple(_turn(c, c.breakpoints) for c in self.events)
        return with_pings(turns, [c.keep_warm for c in self.events]) if pings else turns


def replay(request: Request, events: Sequence[Event], trace_path: Path, check_leaks: bool = True) -> Replay:
    """Compile every event of a trace over `request` (its run is the base facts) on a copy of
    the workspace, which each event's edits change before it compiles (`check_leaks`: compile
    each a second time with the volatile facts reset, to check the stable part stays)."""
    counter = _Counter()
    with _workspace_copy(request) as (workspace, source):
        compiler = engine.Compiler.from_request(dataclasses.replace(request, workspace=workspace))
        with compiler:
            compiled, leaks = [], []
            for event in events:
                apply(event.edits, workspace, event, trace_path)
                run = _run(request.run, event, trace_path)
                try:
                    prompt = compiler.compile(run)
                    stays = (
                        not check_leaks or compiler.compile(_reset_volatile(run, request.run)).stable == prompt.stable
                    )
                except PromptcError as exc:
                    raise _as_users(exc, workspace, source, Location(str(trace_path), event.line, 1)) from exc
                if not stays:
                    leaks.append(event.line)
                compiled.append(_compiled(event, run, prompt, counter))
                retention = prompt.openai_cache_retention  # config, so the same on every turn
    return Replay(tuple(compiled), tuple(leaks), counter.method, retention)


def _run(base: RunFacts, event: Event, trace_path: Path) -> RunFacts:
    """The base facts with the event's facts laid over them."""
    try:
        given = runfacts.from_mapping(event.run)
    except RunFactsError as exc:
        raise TraceError(f"run facts: {exc.message}", Location(str(trace_path), event.line, 1)) from exc
    return dataclasses.replace(base, **{key: getattr(given, key) for key in event.run})


def _variant_value(run: RunFacts, name: str) -> object:
    """A variant fact as the prompt uses it: the mode a session kind implies when none is given."""
    return run.effective_mode if name == "mode" else getattr(run, name)


def _reset_volatile(run: RunFacts, base: RunFacts) -> RunFacts:
    return dataclasses.replace(run, **{name: getattr(base, name) for name in VOLATILE_FACTS})


def _compiled(event: Event, run: RunFacts, prompt: Prompt, counter: _Counter) -> Compiled:
    units = tuple(Unit(u.name, u.sha256, counter(u.text + u.separator)) for u in prompt.units)
    variant = "/".join(str(_variant_value(run, name) or "-") for name in VARIANT_FACTS)
    breakpoints = cache_tiers.merged(prompt.tiers, cache_tiers.min_tokens(prompt.model)) if prompt.breakpoints else ()
    rest = cache_tiers.uncovered(prompt.volatile, prompt.units)
    model = identity(run.provider, run.model)
    rest_tokens = counter(rest) if rest else 0
    sequence = counter.sequence(payloads.unmarked_text(prompt))
    sizes = tuple(len((u.text + u.separator).encode("utf-8")) for u in prompt.units)
    return Compiled(
        event,
        variant,
        units,
        prompt.tiers,
        breakpoints,
        rest_tokens,
        model,
        sequence,
        sizes,
        run.session,
        prompt.keep_warm,
    )


def _turn(compiled: Compiled, tiers: Sequence[CacheTier]) -> Turn:
    ends, position = [], 0
    for tier in tiers:
        position += len(tier.units)
        ends.append(position)
    ttls = tuple(t.ttl for t in tiers)
    return Turn(
        compiled.event.at, compiled.variant, compiled.units, tuple(ends), ttls, compiled.volatile_tokens, compiled.model
    )


class _Counter:
    """o200k token counts with the `tokens` extra, otherwise the UTF-8 bytes / 4 estimate;
    each distinct text counted once."""

    def __init__(self) -> None:
        self.exact = tokens.count("") is not None
        self.method = (
            "o200k_base (exact)" if self.exact else "estimate: UTF-8 bytes / 4 (install promptc[tokens] for o200k)"
        )
        self.seen: dict[str, int] = {}
        self.count: Callable[[str], Any] = tokens.count if self.exact else tokens.estimate

    def __call__(self, text: str) -> int:
        if text not in self.seen:
            self.seen[text] = int(self.count(text))
        return self.seen[text]

    def sequence(self, text: str) -> bytes:
        """`text` as `simulate.Turn.sequence`: its token ids, four bytes each, or its UTF-8 bytes
        when tokens are estimated as four bytes each."""
        ids = tokens.encode(text) if self.exact else None
        return text.encode("utf-8") if ids is None else array.array("I", ids).tobytes()


def _as_users(exc: PromptcError, copy: Path, source: Path, turn: Location) -> TraceError:
    """A compile error of a simulated turn in the user's terms: the workspace's own path where
    the error names the temporary copy's, and the trace line of the turn."""

    def shown(text: str) -> str:
        return text.replace(str(copy), str(source))

    where = exc.location
    if where is not None and where.path is not None:
        where = Location(shown(where.path), where.line, where.column)
    return TraceError(f"turn on {turn}: {shown(exc.message)}", where or turn)


@contextlib.contextmanager
def _workspace_copy(request: Request) -> Iterator[tuple[Path, Path]]:
    """A temporary copy of the request's workspace (its `.git` left out), removed afterwards,
    with the workspace it copies."""
    sources = KeptSources(request.fixed())
    source = sources.workspace_root(sources.config(request.run.agent))
    with tempfile.TemporaryDirectory(prefix="promptc-cache-") as temp:
        target = Path(temp) / "workspace"
        try:
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        except OSError as exc:
            raise PromptcError(f"cannot copy the workspace for the simulation: {exc}", Location(str(source))) from exc
        yield target, source
