"""`Compiler`: the pipeline kept warm, for a runtime that compiles a prompt on every turn.

A Compiler is built once from everything that is not per turn. Each `compile(run)` first asks
whether any input the last build read has changed: the recorded file signatures (see
freshness.py), or, after the first turns on Linux, only the kernel's change queue for the
directories involved (inotify.py). When nothing changed it reuses every file-reading stage, the
compiled templates and the rendered stable part, and for facts it has seen before it returns
the very same Prompt. `check_files=False` skips the check for runtimes that watch files
themselves and call `invalidate()`.

`compile_prompt(request)` goes through a small, bounded cache of Compilers keyed on the
request's fixed inputs; it is the only module-level cache of inputs in the package.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import pipeline
from .._lib import checks
from .._lib.errors import RunFactsError, UsageError
from .._lib.lru import LRU
from ..model.prompt import Prompt
from ..model.request import FixedInputs, Request, fixed_inputs
from ..model.runfacts import RunFacts
from ..pipeline import StateUpdate
from .freshness import Tracker
from .sources import KeptSources

if TYPE_CHECKING:
    from .inotify import Watcher

TURN_CACHE_SIZE = 16
"""Prompts remembered per Compiler, keyed on the whole run facts."""
COMPILER_CACHE_SIZE = 8
"""Compilers `compile_prompt` keeps, keyed on the request's fixed inputs."""


@dataclass(frozen=True, slots=True)
class _Turn:
    prompt: Prompt
    update: StateUpdate


class Compiler:
    """Compiles prompts for one set of fixed inputs, reusing everything a turn did not change.

    The arguments are those of `Request` that are not per turn. Config is read here, so a bad
    config file fails at construction; the workspace, skills and templates are read by the first
    `compile`. A returned Prompt may be shared with later turns that have the same facts: treat
    it as read-only (it is frozen). Safe to call from several threads (one compile at a time).
    """

    def __init__(
        self, inputs: FixedInputs | None = None, *, check_files: bool = True, notify: bool = True, **given: Any
    ) -> None:
        """`inputs`, or the same fields as keywords (`config_paths=["config.yaml"], workspace="ws"`)."""
        if inputs is None:
            inputs = fixed_inputs("Compiler", given)
        elif not isinstance(inputs, FixedInputs):
            raise UsageError(f"Compiler.inputs: expected FixedInputs or a Request, got {type(inputs).__name__}")
        elif given:
            raise UsageError("Compiler: give the fixed inputs as one FixedInputs or as keywords, not both")
        options = checks.checked_arguments(
            "Compiler",
            {"check_files": check_files, "notify": notify},
            {"check_files": checks.flag, "notify": checks.flag},
        )
        self.check_files, self.notify = options["check_files"], options["notify"]
        self.inputs = inputs.fixed()
        self._sources = KeptSources(self.inputs)
        self._turns: LRU[Hashable, _Turn] = LRU(TURN_CACHE_SIZE)
        self._lock = threading.Lock()
        self._watcher = _Watching(self.notify)
        self._built = False
        self._sources.config_set()

    @classmethod
    def from_request(cls, request: FixedInputs, *, check_files: bool = True) -> Compiler:
        """A Compiler for a request's fixed inputs (its run, session state and time are per turn)."""
        return cls(request.fixed(), check_files=check_files)

    def compile(
        self, run: RunFacts | None = None, *, session_state: str | Path | None = None, now: str | None = None
    ) -> Prompt:
        """This turn's prompt, with the workspace and session state recorded (as `compile_prompt`)."""
        prompt, update = self.compile_pending(run, session_state=session_state, now=now)
        update.write()
        return prompt

    def compile_pending(
        self, run: RunFacts | None = None, *, session_state: str | Path | None = None, now: str | None = None
    ) -> tuple[Prompt, StateUpdate]:
        """This turn's prompt and the state changes it wants written (`update.write()`)."""
        return self._compile_checked(*_turn_arguments(run, session_state, now))

    def _compile_checked(self, run: RunFacts, state_path: Path | None, now: str | None) -> tuple[Prompt, StateUpdate]:
        """compile_pending with its arguments already checked (a Request checked them)."""
        with self._lock:
            if self.check_files:
                self._refresh()
            key = _turn_key(run, state_path)
            turn = None if key is None else self._turns.get(key)
            if turn is None:
                turn = self._build(run, state_path, now, key)
            return turn.prompt, turn.update

    def invalidate(self) -> None:
        """Forget everything read so far: the next compile reads every input again."""
        with self._lock:
            self._forget()

    def close(self) -> None:
        """Release the change watcher (the Compiler still works, checking by stat)."""
        self._watcher.close()

    def __enter__(self) -> Compiler:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _build(self, run: RunFacts, state_path: Path | None, now: str | None, key: Hashable | None) -> _Turn:
        prompt, update = pipeline.run_stages(self._sources, run, state_path, now)
        self._built = True
        turn = _Turn(prompt, update)
        pending = update.workspace_state is not None or update.seen is not None
        # A turn with state still to write, or one that ran hooks or plugins, is built again next time.
        if key is not None and not pending and not self._sources.runs_user_code(self._sources.config(run.agent)):
            self._turns[key] = turn
        return turn

    def _refresh(self) -> None:
        """Forget what changed inputs fed. The kernel's queue answers when it can be trusted;
        otherwise (or when it reports something) every recorded input is checked."""
        tracker = self._sources.tracker
        live = os.environ if self._sources.live_environment else None
        if self._watcher.quiet(tracker) and (live is None or tracker.environment_unchanged()):
            return
        if self._turns or self._built:  # a one-shot compile never starts a watcher
            self._watcher.arm(tracker)  # before the sweep, so a change during it is queued, not lost
        if tracker.changed(live) is not None:
            self._forget()

    def _forget(self) -> None:
        self._sources.reset()
        self._turns.clear()
        self._watcher.disarm()


class _Watching:
    """The Compiler's use of kernel change notification: started lazily (a one-shot command
    never loads it), armed again whenever inputs were recorded since, given up when it cannot
    be trusted. Only a queue armed over every recorded input answers for them."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.watcher: Watcher | None = None
        self.armed_at: int | None = None  # the tracker version the watches cover
        self.pid = os.getpid()

    def quiet(self, tracker: Tracker) -> bool:
        if os.getpid() != self.pid:  # a forked child: the queue belongs to the parent
            self.pid, self.watcher, self.armed_at = os.getpid(), None, None
        if self.armed_at != tracker.version or self.watcher is None:
            return False
        return self.watcher.quiet()

    def arm(self, tracker: Tracker) -> None:
        if not self.enabled or self.armed_at == tracker.version or not (tracker.files or tracker.listings):
            return
        if self.watcher is None:
            from .inotify import Watcher

            self.watcher = Watcher.start()  # imports ctypes: only a Compiler used twice gets here
            if self.watcher is None:
                self.enabled = False
                return
        self.armed_at = tracker.version if self.watcher.watch(tracker.directories()) else None

    def disarm(self) -> None:
        self.armed_at = None

    def close(self) -> None:
        if self.watcher is not None:
            self.watcher.close()
        self.watcher, self.armed_at, self.enabled = None, None, False


_STATE_PATH = checks.optional(checks.path)
_NOW = checks.optional(checks.timestamp)


def _turn_arguments(run: object, session_state: object, now: object) -> tuple[RunFacts, Path | None, str | None]:
    """A compile's own arguments, checked as a Request checks them (the common case, all None,
    costs three comparisons: this runs on every turn)."""
    if run is None:
        run = RunFacts()
    elif not isinstance(run, RunFacts):
        raise RunFactsError(f"Compiler.compile.run: expected RunFacts, got {type(run).__name__}")
    if session_state is None and now is None:
        return run, None, None
    checked = checks.checked_arguments(
        "Compiler.compile", {"session_state": session_state, "now": now}, {"session_state": _STATE_PATH, "now": _NOW}
    )
    return run, checked["session_state"], checked["now"]


def _turn_key(run: RunFacts, state_path: Path | None) -> Hashable | None:
    """The whole run facts (and the session file): a turn is reused only when all are equal."""
    key = (run, None if state_path is None else os.path.abspath(state_path))
    try:
        return _Hashed(key, hash(key))
    except TypeError:  # a run fact that is not hashable: never reused
        return None


class _Hashed:
    """A key with its hash worked out once: a turn's key holds the whole run facts (a tool list of
    records), and an LRU lookup would hash it again for every step."""

    __slots__ = ("hash", "key")

    def __init__(self, key: Hashable, hashed: int) -> None:
        self.key, self.hash = key, hashed

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Hashed) and self.hash == other.hash and self.key == other.key


# --------------------------------------------------------------------------- compile_prompt

_COMPILERS: LRU[Hashable, Compiler] = LRU(COMPILER_CACHE_SIZE)
_COMPILERS_LOCK = threading.Lock()


def compile_prompt(request: Request) -> Prompt:
    """Compile, then record workspace and session state (the API for a runtime's every turn)."""
    prompt, update = compile_pending(request)
    update.write()
    return prompt


def compile_pending(request: Request) -> tuple[Prompt, StateUpdate]:
    """Like `compile_prompt`, but the state changes are returned for `update.write()`."""
    return compiler_for(request)._compile_checked(request.run, request.session_state, request.now)


def compiler_for(request: Request) -> Compiler:
    """A warm Compiler for the request's fixed inputs (relative paths read from this directory)."""
    key = _request_key(request)
    with _COMPILERS_LOCK:
        compiler = None if key is None else _COMPILERS.get(key)
    if compiler is None:
        compiler = Compiler.from_request(request)
        if key is not None:
            with _COMPILERS_LOCK:
                _keep(key, compiler)
    return compiler


def _keep(key: Hashable, compiler: Compiler) -> None:
    before = dict(_COMPILERS)
    _COMPILERS[key] = compiler
    for old_key, old in before.items():
        if old_key not in _COMPILERS and old is not compiler:
            old.close()


def _request_key(request: Request) -> Hashable | None:
    key = (os.getcwd(), request.key())  # relative paths name other files in another directory
    try:
        return _Hashed(key, hash(key))
    except TypeError:
        return None


def compile_once(request: Request) -> tuple[Prompt, StateUpdate]:
    """One pass through every stage with nothing kept; the state changes are returned (snapshot
    generation and tests compare against it)."""
    return pipeline.run_stages(KeptSources(request.fixed()), request.run, request.session_state, request.now)
