"""Decide which bootstrap files a run sees, as an ordered table of named filters.

Session kind, setup state, chat type, heartbeat, optional files, the legacy heartbeat block,
then user hooks; each step can be listed.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._lib import entrypoints
from .._lib.errors import HookError
from ..model.config import ResolvedConfig
from ..model.runfacts import RunFacts
from ..model.workspace import WorkspaceFile
from .legacy import strip_legacy_heartbeat

if TYPE_CHECKING:
    import importlib.metadata

HOOK_ENTRY_POINT_GROUP = "promptc.hooks"
MEMORY_NAMES = frozenset({"MEMORY.md", "memory.md"})
SUBAGENT_FILES = frozenset({"AGENTS.md", "TOOLS.md"})
CRON_DROPPED_FILES = frozenset({"HEARTBEAT.md", "BOOTSTRAP.md"}) | MEMORY_NAMES
OPTIONAL_FILES = CRON_DROPPED_FILES


@dataclass(frozen=True, slots=True)
class HookContext:
    """What a bootstrap hook is told about the run (besides the file list)."""

    workspace: str
    """The workspace directory."""
    agent_id: str
    """The agent being compiled."""
    session: str
    """The session kind (`main`, `subagent`, `cron`, `heartbeat`)."""
    config: ResolvedConfig
    """The agent's resolved config."""


@dataclass(frozen=True, slots=True)
class FilterInputs:
    """Everything a filter may look at besides the files."""

    config: ResolvedConfig
    """The agent's resolved config."""
    run: RunFacts
    """This turn's facts."""
    setup_complete: bool
    """Whether the workspace finished its first-run setup."""
    workspace: str
    """The workspace directory, for hooks."""
    plugins: bool = True
    """Whether `promptc.hooks` entry points run after the configured hooks."""


Filter = Callable[[tuple[WorkspaceFile, ...], FilterInputs], tuple[WorkspaceFile, ...]]


@dataclass(frozen=True, slots=True)
class FilterStep:
    """One named row of the filter table."""

    name: str
    """Short id shown in reports."""
    description: str
    """What the filter keeps or drops."""
    run: Filter
    """The filter itself."""
    left_out: str
    """Why a file this filter removes is left out, as the context report says it; `{session}`
    stands for the session kind."""


@dataclass(frozen=True, slots=True)
class Drop:
    """A file a filter removed, for diagnostics."""

    file: str
    """The file name."""
    filter: str
    """The name of the filter that removed it."""
    reason: str
    """That filter's `left_out`: why the file is left out."""


# --------------------------------------------------------------------------- the filters


def keep_for_session(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """Keep what the session kind (and lightweight context) allows."""
    return tuple(file for file in files if session_keeps(file.name, inputs.run))


def session_keeps(name: str, run: RunFacts) -> bool:
    """Whether a run of this kind sees the named file.

    Lightweight context keeps only HEARTBEAT.md on heartbeat runs and nothing on any other kind.
    """
    if run.light_context:
        return run.session == "heartbeat" and name == "HEARTBEAT.md"
    if run.session == "subagent":
        return name in SUBAGENT_FILES
    if run.session == "cron":
        return name not in CRON_DROPPED_FILES
    return True


def keep_for_setup_state(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """BOOTSTRAP.md only while the workspace's setup is not complete, and only on a main run.

    Setup is a conversation with the user: a heartbeat, cron job or sub-agent cannot carry it
    out, so only the user's own (main) session gets the file and the pending-setup section.
    """
    if not inputs.setup_complete and inputs.run.session == "main":
        return files
    return tuple(file for file in files if file.name != "BOOTSTRAP.md")


def keep_for_chat_type(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """MEMORY.md stays out of group chats unless `agents.defaults.memoryInGroups` is true.

    Long-term memory holds the owner's private context; a group has other people in it.
    """
    if inputs.run.chat_type != "group" or inputs.config.memory_in_groups:
        return files
    return tuple(file for file in files if file.name not in MEMORY_NAMES)


def keep_for_heartbeat(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """Drop HEARTBEAT.md outside heartbeat runs when the default agent has heartbeat guidance off.

    Other agents are left alone: the setting belongs to the default agent only.
    """
    if not heartbeat_guidance_off(inputs.config, inputs.run):
        return files
    return tuple(file for file in files if file.name != "HEARTBEAT.md")


def heartbeat_guidance_off(config: ResolvedConfig, run: RunFacts) -> bool:
    """Whether the heartbeat filter removes HEARTBEAT.md for this run."""
    if run.session == "heartbeat" or not config.is_default_agent:
        return False
    return not (config.heartbeat.enabled and config.heartbeat.include_section)


def keep_present_optional_files(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """An absent HEARTBEAT.md, BOOTSTRAP.md or MEMORY.md is simply not there: no missing marker.

    Missing-file markers are for the five files every workspace is expected to have.
    """
    return tuple(f for f in files if not (f.name in OPTIONAL_FILES and f.status == "missing"))


def drop_legacy_heartbeat_block(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """Remove the stale `Default heartbeat prompt:` block older templates quote (legacy.py)."""
    return tuple(
        replace(file, content=strip_legacy_heartbeat(file.content)) if file.content else file for file in files
    )


def run_hooks(files: tuple[WorkspaceFile, ...], inputs: FilterInputs) -> tuple[WorkspaceFile, ...]:
    """Pass the list through each configured hook, then each `promptc.hooks` entry point."""
    context = HookContext(inputs.workspace, inputs.config.agent_id, inputs.run.session, inputs.config)
    for name, load in hook_sources(inputs.config, plugins=inputs.plugins):
        files = _call_hook(name, load, files, context)
    return files


FILTERS: tuple[FilterStep, ...] = (
    FilterStep(
        "session",
        "session kind and lightweight context",
        keep_for_session,
        left_out="a {session} session leaves it out",
    ),
    FilterStep(
        "setup",
        "BOOTSTRAP.md only on main runs until setup is complete",
        keep_for_setup_state,
        left_out="BOOTSTRAP.md only reaches main sessions while setup is pending",
    ),
    FilterStep(
        "chat",
        "MEMORY.md only outside group chats, unless memoryInGroups",
        keep_for_chat_type,
        left_out="MEMORY.md stays out of group chats (agents.defaults.memoryInGroups)",
    ),
    FilterStep(
        "heartbeat",
        "HEARTBEAT.md only when heartbeat guidance is on",
        keep_for_heartbeat,
        left_out="heartbeat guidance is off for this agent (heartbeat.enabled, includeSystemPromptSection)",
    ),
    FilterStep(
        "optional",
        "absent HEARTBEAT/BOOTSTRAP/MEMORY files get no marker",
        keep_present_optional_files,
        left_out="an absent optional file gets no marker",
    ),
    FilterStep(
        "legacy",
        "the stale default-heartbeat-prompt block is removed",
        drop_legacy_heartbeat_block,
        left_out="it removes a stale block inside a file, never a whole file",
    ),
    FilterStep(
        "hooks",
        "bootstrap hooks from config and entry points",
        run_hooks,
        left_out="a bootstrap hook removed it",
    ),
)
"""The filters, in the order they run."""


# --------------------------------------------------------------------------- running the table


def apply(
    files: Sequence[WorkspaceFile],
    cfg: ResolvedConfig,
    run: RunFacts,
    *,
    setup_complete: bool,
    workspace: Path | str | None = None,
    plugins: bool = True,
) -> tuple[WorkspaceFile, ...]:
    """The files this run sees, after every filter in order."""
    return apply_with_drops(files, cfg, run, setup_complete=setup_complete, workspace=workspace, plugins=plugins)[0]


def apply_with_drops(
    files: Sequence[WorkspaceFile],
    cfg: ResolvedConfig,
    run: RunFacts,
    *,
    setup_complete: bool,
    workspace: Path | str | None = None,
    plugins: bool = True,
) -> tuple[tuple[WorkspaceFile, ...], tuple[Drop, ...]]:
    """Like `apply`, also naming which filter removed each file that disappeared.

    `workspace` (for hooks) defaults to `cfg.workspace`; `plugins=False` skips entry-point hooks.
    """
    inputs = FilterInputs(cfg, run, setup_complete, str(workspace if workspace is not None else cfg.workspace), plugins)
    current, drops = tuple(files), list[Drop]()
    for step in FILTERS:
        kept = step.run(current, inputs)
        names = {file.name for file in kept}  # by name: a step may rewrite a file it keeps
        drops.extend(Drop(file.name, step.name, step.left_out) for file in current if file.name not in names)
        current = kept
    return current, tuple(drops)


# --------------------------------------------------------------------------- hooks


Hook = Callable[[list[WorkspaceFile], HookContext], Any]


def hook_sources(config: ResolvedConfig, *, plugins: bool = True) -> list[tuple[str, Callable[[], Hook]]]:
    """(name, loader) for every hook: config entries in order, then entry points by name."""
    configured = [(spec, _loader_for_spec(spec)) for spec in config.hooks]
    installed = installed_hooks() if plugins else ()
    return configured + [(f"{point.name} ({point.value})", point.load) for point in installed]


@functools.cache
def installed_hooks() -> tuple[importlib.metadata.EntryPoint, ...]:
    """Hook plugins, sorted; scanned once per process (a scan reads the entry points of every installed distribution)."""
    return entrypoints.entry_points(HOOK_ENTRY_POINT_GROUP)  # without importing importlib.metadata


def _loader_for_spec(spec: str) -> Callable[[], Hook]:
    """A loader that imports `module:function` (the function may be a dotted attribute path)."""

    return lambda: entrypoints.load_target(spec)


def _call_hook(
    name: str, load: Callable[[], Hook], files: tuple[WorkspaceFile, ...], context: HookContext
) -> tuple[WorkspaceFile, ...]:
    """Load and run one hook; any failure becomes a HookError naming it."""
    try:
        hook = load()
    except Exception as error:
        raise HookError(f"bootstrap hook {name} cannot be loaded: {_describe(error)}") from error
    if not callable(hook):
        raise HookError(f"bootstrap hook {name} is not callable")
    try:
        result = hook(list(files), context)
    except Exception as error:
        raise HookError(f"bootstrap hook {name} failed: {_describe(error)}") from error
    if not isinstance(result, (list, tuple)) or not all(isinstance(f, WorkspaceFile) for f in result):
        raise HookError(f"bootstrap hook {name} must return a list of WorkspaceFile")
    return tuple(result)


def _describe(error: Exception) -> str:
    """`TypeName: message` for an exception raised by user code."""
    return f"{type(error).__name__}: {error}"
