"""Watch a compile's inputs and compile again on every template, config, run-facts or workspace
change, saying whether the stable part (the cache prefix) changed: what `promptc render --watch`
runs. Needs the `watch` extra (watchfiles)."""

from __future__ import annotations

import functools
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lib import resources
from .._lib.errors import PromptcError
from .._lib.owned import walk_tree
from ..inputs import layers
from ..model.prompt import Prompt
from ..model.request import Request
from ..pipeline import StateUpdate
from ..warm import compiler as engine
from .cache import diff as cache_diff

DEBOUNCE_MS = 300
"""Changes closer together than this are one re-render (an editor's save is several events)."""
TICK_MS = 200
"""How often the watcher wakes up with no change, to honour a timeout or signal readiness."""
STATE_DIR = ".promptc"
"""The workspace state dir: the compile writes it, so watching it would loop."""
EDITOR_TEMP = re.compile(
    r"""(
        .*~ | \.\#.* | \#.*\# | 4913 | .*\.tmp | sed[A-Za-z0-9]{6}      # backups, locks, autosaves, vim's probe, sed -i
      | \.?.*\.sw[a-z] | .*\.kate-swp | .*___jb_(?:tmp|old)___ | \.goutputstream-.* | .*\.crswap
      | \.~lock\..*\# | \.DS_Store
    )""",
    re.VERBOSE,
)
"""Names editors and tools write beside a file while saving it: never a reason to render, never
named as what changed (vim's swap files and 4913 probe, emacs' #autosaves# and .#locks, sed -i's
sedXXXXXX, JetBrains' ___jb_tmp___, gedit's .goutputstream-*, ...)."""
RULE_WIDTH = 78
SKIPPED_DIR_NAMES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        "node_modules",
        ".venv",
        ".tox",
        ".mypy_cache",
        ".pytest_cache",
        ".hypothesis",
        ".idea",
    }
)
"""Dirs not watched at all (watchfiles' default filter would drop their events anyway)."""
WATCH_DEPTH = 32
"""Levels below a watched dir that are watched (far deeper than any workspace or skills tree)."""
MAX_WATCHED_DIRS = 4096
"""Dirs watched below one target at most, the shallowest first (a link to `/` stops here)."""


@dataclass(frozen=True, slots=True)
class Named:
    """What the command line names besides what the config says: the paths to watch and the
    files the render itself writes."""

    templates: tuple[Path, ...]
    """`--templates` dirs."""
    files: tuple[Path, ...]
    """Config, run-facts and contribution files (standard input is not watched)."""
    workspace: Path | None
    """`--workspace`, when given."""
    written: tuple[Path, ...]
    """`--out` and `--session-state`: changed by each render, never a reason for one."""


Show = Callable[[Prompt | None, Prompt, StateUpdate, list[str]], None]
"""Print a compiled prompt: (the previous one, this one, its state changes, what changed)."""
Refuse = Callable[[PromptcError], None]
"""Report bad input; the watch goes on with the last good prompt."""


@dataclass(frozen=True)  # no slots: `roots` is a cached_property
class Targets:
    """What to watch: dirs (with everything below them) and single files, minus what we write."""

    dirs: tuple[Path, ...]
    """Template dirs, the workspace and skill dirs; any change below them counts."""
    files: tuple[Path, ...]
    """Config, run-facts and contribution files; only they count in their directories."""
    ignored: tuple[Path, ...]
    """Files the render itself writes (`--out`, `--session-state`), and their temp files."""
    ignored_dirs: tuple[Path, ...]
    """The workspace's `.promptc/` state dir, also written by the render itself."""
    pending: tuple[Path, ...]
    """Dirs and files that did not exist when the watcher started."""

    @functools.cached_property
    def roots(self) -> tuple[Path, ...]:
        """Directories handed to the watcher, each watched without recursion: every dir below
        `dirs` (minus the state dir and the dirs watchfiles ignores), the parent of each file,
        and for a pending target its nearest existing ancestor (so its creation is noticed)."""
        roots: set[Path] = set()
        for directory in self.dirs:
            roots |= set(_subdirs(directory, self.ignored_dirs)) if directory.is_dir() else {_nearest_dir(directory)}
        roots |= {_nearest_dir(f.parent) for f in self.files}
        return tuple(sorted(roots))

    def accepts(self, _change: Any, path: str) -> bool:
        """Whether a changed path should trigger a re-render."""
        changed = Path(path)
        if self._ignores(changed):
            return False
        if changed in self.files or any(changed.is_relative_to(d) for d in self.dirs):
            return True
        return any(target.is_relative_to(changed) for target in self.pending)

    def _ignores(self, changed: Path) -> bool:
        if is_editor_temp(changed.name):
            return True
        if any(changed == path or _is_temp_of(changed, path) for path in self.ignored):
            return True
        return any(changed.is_relative_to(d) for d in self.ignored_dirs)


def is_editor_temp(name: str) -> bool:
    """Whether a file name is an editor's (or sed's) temp, swap or backup file."""
    return EDITOR_TEMP.fullmatch(name) is not None


def _is_temp_of(changed: Path, path: Path) -> bool:
    """Whether `changed` is an atomic writer's temp file for `path` (see _lib/atomic.py)."""
    name = changed.name
    return changed.parent == path.parent and name.startswith(f".{path.name}.") and name.endswith(".tmp")


@dataclass
class _Loop:
    """What the watch loop carries from one watcher (set of targets) to the next."""

    request: Callable[[], Request]
    """Builds the request from its inputs, anew for each render."""
    named: Named
    """What the command line names."""
    show: Show
    """Prints a compiled prompt."""
    refuse: Refuse
    """Reports bad input."""
    stop_after: int | None
    """Stop after this many re-renders (tests)."""
    deadline: float | None
    """Stop at this `time.monotonic()` value (tests)."""
    ready: threading.Event | None
    """Cleared when a watcher starts, set once on its first idle tick (tests)."""
    last: Prompt | None = None
    """The last prompt that compiled, to compare the next one against."""
    renders: int = 0
    """Re-renders so far, errors included."""
    compiler: engine.Compiler | None = None
    """Kept across renders; told of each change (it does not check files itself)."""

    def finished(self) -> bool:
        """Whether a test limit has been reached."""
        enough = self.stop_after is not None and self.renders >= self.stop_after
        return enough or (self.deadline is not None and time.monotonic() >= self.deadline)


def run(
    request: Callable[[], Request],
    named: Named,
    show: Show,
    refuse: Refuse,
    *,
    stop_after: int | None = None,
    timeout: float | None = None,
    ready: threading.Event | None = None,
) -> int:
    """Compile, then compile again after every relevant change until interrupted (Ctrl-C).
    `request` builds the request anew each time (a run file may have changed).

    `stop_after` (re-renders), `timeout` (seconds) and `ready` (cleared when a watcher starts,
    on new targets too, and set once it is running) exist so tests can drive the loop.
    """
    watchfiles = _watchfiles()
    deadline = None if timeout is None else time.monotonic() + timeout
    loop = _Loop(request, named, show, refuse, stop_after, deadline, ready)
    loop.last = _render(loop, [])
    while not loop.finished():
        _watch_targets_once(watchfiles, loop)
    return 0


def _watch_targets_once(watchfiles: Any, loop: _Loop) -> None:
    """Watch one set of targets until a limit is reached or the targets change (the config
    names other dirs, a dir appears or goes)."""
    if loop.ready is not None:
        loop.ready.clear()
    targets, announced = watch_targets(loop.named, loop.request), False
    for changes in watchfiles.watch(
        *targets.roots,
        watch_filter=_filter(watchfiles, targets),
        recursive=False,
        debounce=DEBOUNCE_MS,
        rust_timeout=TICK_MS,
        yield_on_timeout=True,
    ):
        if changes:
            if loop.compiler is not None:
                loop.compiler.invalidate()
            loop.last = _render(loop, sorted({Path(path).name for _, path in changes}))
            loop.renders += 1
        elif loop.ready is not None and not announced:
            loop.ready.set()  # the first idle tick: this watcher is certainly running
            announced = True
        if loop.finished() or (changes and _must_restart(loop, targets, changes)):
            return


def _must_restart(loop: _Loop, targets: Targets, changes: set[tuple[Any, str]]) -> bool:
    """Whether the watcher needs new roots: a watched dir came or went, or the config (or a
    target's creation) changed what to watch. Files changing need no walk of the tree."""
    paths = [Path(path) for _, path in changes]
    return any(p in targets.roots or p.is_dir() for p in paths) or watch_targets(loop.named, loop.request) != targets


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


def _render(loop: _Loop, changed: list[str]) -> Prompt | None:
    """Compile and show; on bad input refuse it and keep the last good prompt."""
    changed = [name for name in changed if not is_editor_temp(name)]
    try:
        request = loop.request()
        if loop.compiler is None:
            loop.compiler = engine.Compiler.from_request(request, check_files=False)  # the watcher says what changed
        prompt, update = loop.compiler.compile_pending(
            request.run, session_state=request.session_state, now=request.now
        )
    except PromptcError as exc:
        loop.refuse(exc)
        return loop.last
    loop.show(loop.last, prompt, update, changed)
    return prompt


def rule_line(clock: str, changed: list[str]) -> str:
    """`==== 14:03:22  SOUL.md changed ====...`: where one render ends and the next begins."""
    what = f"{', '.join(changed)} changed" if changed else "re-rendered"
    label = f"==== {clock}  {what} "
    return "\n" + label + "=" * max(4, RULE_WIDTH - len(label)) + "\n\n"


def stable_summary(previous: Prompt | None, prompt: Prompt) -> str:
    """One line on the stable part: its size first, then whether it changed and which cache
    tiers that invalidated (and by which section or file)."""
    if previous is None:
        return f"stable part: {len(prompt.stable)} chars, sha256 {prompt.stable_sha256[:12]}"
    if previous.stable == prompt.stable:
        return "stable part unchanged"
    return f"stable part changed: {cache_diff.summary(cache_diff.compare_prompts(previous, prompt))}"


# --------------------------------------------------------------------------- what to watch


def watch_targets(named: Named, request: Callable[[], Request]) -> Targets:
    """The built-in and user templates, the workspace and skill dirs, and the input files.

    The workspace and config template dirs come from the config; while it does not load, the
    files themselves are still watched so that fixing them triggers a render.
    """
    dirs = [resources.templates_root(), *named.templates]
    workspace = named.workspace
    try:
        given = request()
        cfg = layers.resolve(
            layers.load(given.config_paths, given.overrides, given.config_layers), agent=given.run.agent
        )
        dirs += [Path(d) for d in (*cfg.template_dirs, *cfg.skills.extra_dirs)]
        workspace = named.workspace or Path(cfg.workspace)
    except PromptcError:
        pass  # watch what is known; fixing the config triggers a render and a retarget
    dirs = sorted({d.resolve() for d in (*dirs, *([workspace] if workspace else []))})
    files = sorted({f.resolve() for f in named.files})
    ignored = tuple(sorted({p.resolve() for p in named.written}))
    state = (workspace.resolve() / STATE_DIR,) if workspace else ()
    pending = tuple(path for path in (*dirs, *files) if not path.exists())
    return Targets(tuple(dirs), tuple(files), ignored, state, pending)


def _subdirs(directory: Path, skipped: tuple[Path, ...]) -> Iterator[Path]:
    """`directory` and the dirs below it, breadth first, following symlinked dirs (a skills dir is
    often one) but entering each real dir once, so a link cycle ends; at most WATCH_DEPTH levels
    down and MAX_WATCHED_DIRS dirs in all, so a deep tree or a link to `/` costs a bounded walk."""

    def skip(path: Path) -> bool:
        return path.name in SKIPPED_DIR_NAMES or path in skipped

    walk = walk_tree(directory, WATCH_DEPTH, follow_links=True, skip=skip)
    for folder, _ in itertools.islice(walk, MAX_WATCHED_DIRS):
        yield folder


def _nearest_dir(path: Path) -> Path:
    """`path` when it is a directory, else its nearest ancestor that is one."""
    return next(p for p in (path, *path.parents) if p.is_dir())
