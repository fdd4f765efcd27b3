"""`promptc render --watch`: re-render on every template, config, run-facts or workspace change
and say whether the stable part (the cache prefix) changed. Needs the `watch` extra."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import cli, config, pipeline, resources
from .emit import payloads
from .errors import PromptcError
from .model import Prompt

DEBOUNCE_MS = 300
"""Changes closer together than this are one re-render (an editor's save is several events)."""
TICK_MS = 200
"""How often the watcher wakes up with no change, to honour a timeout or signal readiness."""
IGNORED_DIR_NAMES = frozenset({".promptc"})
"""The workspace state file is written by the compile itself; watching it would loop."""


@dataclass(frozen=True)
class Targets:
    """What to watch: dirs (recursively) and single files, minus paths we write ourselves."""

    dirs: tuple[Path, ...]
    """Template dirs, the workspace and skill dirs; any change below them counts."""
    files: tuple[Path, ...]
    """Config, run-facts and contribution files; only they count in their directories."""
    ignored: tuple[Path, ...]
    """The `--out` file."""

    @property
    def roots(self) -> tuple[Path, ...]:
        """Directories handed to the watcher, none inside another."""
        candidates = sorted({*self.dirs, *(f.parent for f in self.files)})
        return tuple(c for c in candidates if not any(c != o and c.is_relative_to(o) for o in candidates))

    def accepts(self, _change: Any, path: str) -> bool:
        """Whether a changed path should trigger a re-render."""
        changed = Path(path)
        if changed in self.ignored or IGNORED_DIR_NAMES & set(changed.parts):
            return False
        return changed in self.files or any(changed.is_relative_to(d) for d in self.dirs)


@dataclass
class _Loop:
    """What the watch loop carries from one watcher (set of targets) to the next."""

    last: Prompt | None
    """The last prompt that compiled, to compare the next one against."""
    stop_after: int | None
    """Stop after this many re-renders (tests)."""
    deadline: float | None
    """Stop at this `time.monotonic()` value (tests)."""
    ready: threading.Event | None
    """Set once a watcher is running (tests)."""
    renders: int = 0
    """Re-renders so far, errors included."""

    def finished(self) -> bool:
        """Whether a test limit has been reached."""
        enough = self.stop_after is not None and self.renders >= self.stop_after
        return enough or (self.deadline is not None and time.monotonic() >= self.deadline)


def run(args: argparse.Namespace, *, stop_after: int | None = None, timeout: float | None = None,
        ready: threading.Event | None = None) -> int:  # fmt: skip
    """Render, then re-render after every relevant change until interrupted (Ctrl-C).

    `stop_after` (re-renders), `timeout` (seconds) and `ready` (set once the watcher is
    running) exist so tests can drive the loop.
    """
    watchfiles = _watchfiles()
    deadline = None if timeout is None else time.monotonic() + timeout
    loop = _Loop(render_once(args, None, ()), stop_after, deadline, ready)
    while not loop.finished():
        _watch_targets_once(watchfiles, args, loop)
    return 0


def _watch_targets_once(watchfiles: Any, args: argparse.Namespace, loop: _Loop) -> None:
    """Watch one set of targets until a limit is reached or the config names other dirs."""
    targets = watch_targets(args)
    for changes in watchfiles.watch(*targets.roots, watch_filter=_filter(watchfiles, targets),
                                    debounce=DEBOUNCE_MS, rust_timeout=TICK_MS, yield_on_timeout=True):  # fmt: skip
        if changes:
            loop.last = render_once(args, loop.last, sorted({Path(path).name for _, path in changes}))
            loop.renders += 1
        elif loop.ready is not None:
            loop.ready.set()  # an idle tick: the watcher is certainly running
        if loop.finished() or (changes and watch_targets(args) != targets):
            return


def _watchfiles() -> Any:
    try:
        import watchfiles
    except ImportError as exc:
        raise PromptcError("--watch needs the watchfiles package: pip install 'promptc[watch]'") from exc
    return watchfiles


def _filter(watchfiles: Any, targets: Targets) -> Any:
    """watchfiles' default filter (swap files, .git, ...) and then our own targets."""
    default = watchfiles.DefaultFilter()
    return lambda change, path: default(change, path) and targets.accepts(change, path)


# --------------------------------------------------------------------------- one render


def render_once(args: argparse.Namespace, previous: Prompt | None, changed: list[str]) -> Prompt | None:
    """Compile and print; on bad input print the error and keep the last good prompt."""
    trigger = f"{', '.join(changed)} changed; " if changed else ""
    try:
        prompt = pipeline.compile_prompt(cli.request_from_args(args))
    except PromptcError as exc:
        print(f"promptc: error: {exc}", file=sys.stderr, flush=True)
        return previous
    cli.emit(_payload(args, prompt), args.out)
    sys.stdout.flush()
    print(f"promptc: {trigger}{stable_summary(previous, prompt)}", file=sys.stderr, flush=True)
    return prompt


def _payload(args: argparse.Namespace, prompt: Prompt) -> str:
    if args.list_sections:
        return cli.format_section_list(prompt)
    return payloads.FORMATS[args.format](prompt)


def stable_summary(previous: Prompt | None, prompt: Prompt) -> str:
    """One line on the stable part: its size first, then whether (and where) it changed."""
    if previous is None:
        return f"stable part: {len(prompt.stable)} chars, sha256 {prompt.stable_sha256[:12]}"
    if previous.stable == prompt.stable:
        return "stable part unchanged"
    ids = changed_sections(previous, prompt)
    where = f": sections {', '.join(ids)}" if ids else ""
    return f"stable part changed{where} (cache invalidated)"


def changed_sections(before: Prompt, after: Prompt) -> list[str]:
    """Stable sections added, removed or edited, in the new prompt's order, removed ones last."""
    old = {s.id: s.text for s in before.sections if s.side == "stable"}
    new = {s.id: s.text for s in after.sections if s.side == "stable"}
    return [i for i in new if old.get(i) != new[i]] + [i for i in old if i not in new]


# --------------------------------------------------------------------------- what to watch


def watch_targets(args: argparse.Namespace) -> Targets:
    """The built-in and user templates, the workspace and skill dirs, and the input files.

    The workspace and config template dirs come from the config; while it does not load, the
    files themselves are still watched so that fixing them triggers a render.
    """
    dirs = [resources.templates_root(), *args.templates]
    files = [*args.config, *([args.run] if args.run else []), *args.contributions]
    try:
        request = cli.request_from_args(args)
        cfg = config.resolve(config.load(request.config_paths, request.overrides), agent=request.run.agent)
        dirs += [Path(d) for d in (*cfg.template_dirs, *cfg.skills.extra_dirs)]
        dirs.append(args.workspace or Path(cfg.workspace))
    except PromptcError:
        dirs += [args.workspace] if args.workspace else []
    ignored = (args.out.resolve(),) if args.out else ()
    existing = tuple(sorted({d.resolve() for d in dirs if d.is_dir()}))
    return Targets(existing, tuple(sorted({f.resolve() for f in files})), ignored)
