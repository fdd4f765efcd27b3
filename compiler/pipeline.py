"""The whole compiler in one short function: each line is one stage and one module."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping

from . import budget, config, filters, heartbeat, providers, render, sections, skills, variables, workspace
from .errors import Location, WorkspaceError
from .model import ContextFile, LoadedWorkspace, Prompt, ResolvedConfig, RunFacts

CODEX_DEVELOPER_FILES = ("SOUL.md", "IDENTITY.md", "TOOLS.md", "USER.md")
"""With the codex harness these files go to the developer surface instead of the prompt."""


@dataclass(frozen=True)
class Request:
    """Everything one compile needs, named explicitly."""

    run: RunFacts = field(default_factory=RunFacts)
    """This turn's facts."""
    config_paths: tuple[Path, ...] = ()
    """`--config` files, lowest precedence first."""
    overrides: tuple[str, ...] = ()
    """`--set KEY=VALUE` overrides, applied last."""
    workspace: Path | None = None
    """Where to read the workspace; None reads the configured `agents.defaults.workspace`."""
    template_dirs: tuple[Path, ...] = ()
    """`--templates` dirs, searched before `prompt.templateDirs` and the built-ins."""
    contribution_paths: tuple[Path, ...] = ()
    """`--contributions` files."""
    session_state: Path | None = None
    """Session state file for the `once` truncation-warning mode."""
    env: Mapping[str, str] | None = None
    """Environment for skill `requires.env` and PATH checks; None means os.environ."""
    now: str = "1970-01-01T00:00:00Z"
    """Timestamp recorded in the workspace state file (the CLI passes the real time)."""
    plugins: bool = True
    """Use installed `promptc.providers` / `promptc.hooks` entry points (snapshots turn this off)."""
    platform: str | None = None
    """Operating system for skill `metadata.os` checks; None means sys.platform."""


def compile_prompt(request: Request) -> Prompt:
    """Run every stage in order; state files are written only once everything succeeded."""
    configs = config.load(request.config_paths, request.overrides)
    cfg = config.resolve(configs, agent=request.run.agent)
    root = _workspace_root(cfg, request)
    state = workspace.read_state(root)
    files = workspace.load(root)
    state_after = workspace.next_state(state, bootstrap_present=_present(files, "BOOTSTRAP.md"), now=request.now)
    files = filters.apply(
        files, cfg, request.run, setup_complete=state_after.setup_complete, workspace=root, plugins=request.plugins
    )
    loaded, seen = _budget_and_skills(files, cfg, request, root)
    extra = [providers.load_file(p) for p in request.contribution_paths]
    contribution = providers.resolve(cfg, request.run, extra, plugins=request.plugins)
    mode = request.run.effective_mode
    specs = sections.discover([*request.template_dirs, *cfg.template_dirs])
    selected = sections.select(specs, mode, dict(contribution.section_overrides))
    routed = route_for_harness(loaded, request.run)
    shown_dir = _display_workspace(configs, cfg, request, root)
    contexts = variables.build(cfg, request.run, routed, contribution, shown_dir)
    rendered = render.render(selected, contexts, cfg.boundary_marker, mode)
    prompt = _assemble(rendered, cfg, request.run, loaded, mode)
    _record_state(request, root, (state, state_after), seen)
    return prompt


# --------------------------------------------------------------------------- workspace stage


def _workspace_root(cfg: ResolvedConfig, request: Request) -> Path:
    root = (request.workspace or Path(cfg.workspace)).expanduser()
    if not root.is_dir():
        raise WorkspaceError("workspace directory not found", Location(str(root)))
    return root.resolve()


def _present(files, name: str) -> bool:
    return any(f.name == name and f.status != "missing" for f in files)


def _budget_and_skills(files, cfg: ResolvedConfig, request: Request, root: Path) -> tuple[LoadedWorkspace, tuple | None]:
    context_files = budget.apply(files, cfg.budgets)
    signature = budget.signature(context_files, cfg.budgets)
    show, seen = budget.notice_decision(cfg.budgets, signature, request.session_state)
    env = dict(os.environ if request.env is None else request.env)
    which = _which(env)
    block = skills.build(cfg, root, env=env, which=which, platform=request.platform or sys.platform)
    hb = next((f for f in files if f.name == "HEARTBEAT.md" and f.content is not None), None)
    loaded = LoadedWorkspace(
        root=str(root),
        files=context_files,
        skills=block,
        heartbeat_skip=heartbeat.is_effectively_empty(hb.content if hb else None),
        show_truncation_notice=show,
        truncation_signature=signature,
        diagnostics=tuple(d for f in files for d in f.diagnostics),
    )
    return loaded, seen


def _which(env: Mapping[str, str]) -> Callable[[str], str | None]:
    path = env.get("PATH", "")
    return lambda name: shutil.which(name, path=path)


def _display_workspace(configs: config.ConfigSet, cfg: ResolvedConfig, request: Request, root: Path) -> str:
    """The directory the model is told about.

    `--workspace` says where to read the files on this machine; an explicitly configured
    `agents.defaults.workspace` says where the agent sees them at run time, and wins.
    """
    origin = config.explain(configs, "agents.defaults.workspace", cfg.agent_id).origin
    if request.workspace is None or origin.label == "defaults":
        return str(root)
    return cfg.workspace


def _record_state(request: Request, root: Path, states: tuple, seen: tuple[str, ...] | None) -> None:
    before, after = states
    if after != before:
        workspace.write_state(root, after)
    if request.session_state is not None and seen is not None:
        budget.write_seen(request.session_state, seen)


# --------------------------------------------------------------------------- codex harness


def route_for_harness(loaded: LoadedWorkspace, run: RunFacts) -> LoadedWorkspace:
    """With the codex harness, keep only files that still belong in the instructions."""
    if run.harness != "codex":
        return loaded
    kept = tuple(f for f in loaded.files if _stays_in_instructions(f, run))
    return replace(loaded, files=kept)


def _stays_in_instructions(f: ContextFile, run: RunFacts) -> bool:
    if f.name in ("AGENTS.md", *CODEX_DEVELOPER_FILES):
        return False  # the harness finds AGENTS.md itself; the others go to the developer surface
    return not (f.name.lower() == "memory.md" and run.memory_tools)


def codex_surfaces(instructions: str, loaded: LoadedWorkspace, run: RunFacts, marker: str) -> dict[str, str]:
    """The three codex surfaces: instructions, developer files, and the per-turn notes."""
    developer = "\n\n".join(
        f"## {f.name}\n\n{render.neutralise(f.text, marker)}"
        for f in loaded.files
        if f.name in CODEX_DEVELOPER_FILES and f.injected
    )
    return {"instructions": instructions, "developer": developer, "turn": _codex_turn(loaded, run, marker)}


def _codex_turn(loaded: LoadedWorkspace, run: RunFacts, marker: str) -> str:
    parts = []
    if loaded.skills.text:
        parts.append("Skills you can load by reading their SKILL.md:\n\n" + loaded.skills.text)
    if run.session == "heartbeat" and _heartbeat_has_tasks(loaded):
        parts.append("This is a heartbeat turn: read HEARTBEAT.md in the workspace and follow it.")
    if run.memory_tools:
        parts.append("Workspace memory is not pasted here: look things up with memory_search and memory_get.")
    return render.neutralise("\n\n".join(parts), marker)


def _heartbeat_has_tasks(loaded: LoadedWorkspace) -> bool:
    present = any(f.name == "HEARTBEAT.md" and f.status in ("ok", "truncated") for f in loaded.files)
    return present and not loaded.heartbeat_skip


# --------------------------------------------------------------------------- result


def _assemble(rendered: render.Rendered, cfg: ResolvedConfig, run: RunFacts, loaded: LoadedWorkspace, mode) -> Prompt:
    surfaces = codex_surfaces(rendered.text, loaded, run, cfg.boundary_marker) if run.harness == "codex" else None
    return Prompt(
        stable=rendered.stable,
        volatile=rendered.volatile,
        text=rendered.text,
        boundary=None if mode == "none" else cfg.boundary_marker,
        mode=mode,
        agent=cfg.agent_id,
        session=run.session,
        sections=rendered.sections,
        outline=rendered.outline,
        files=loaded.files,
        skills=loaded.skills,
        heartbeat_skip=loaded.heartbeat_skip,
        warnings=loaded.diagnostics + _budget_warnings(loaded.files),
        surfaces=surfaces,
        settings=_reported_settings(cfg),
    )


def _reported_settings(cfg: ResolvedConfig) -> dict:
    """What the context report shows about the config besides the files."""
    return {
        "bootstrapMaxChars": cfg.budgets.max_chars,
        "bootstrapTotalMaxChars": cfg.budgets.total_max_chars,
        "bootstrapPromptTruncationWarning": cfg.budgets.warning,
        "timeFormat": cfg.time_format,
        "contextLimits": dict(cfg.context_limits),
    }


def _budget_warnings(files: tuple[ContextFile, ...]) -> tuple[str, ...]:
    notes = []
    for f in files:
        if f.status in ("truncated", "dropped", "skipped"):
            notes.append(f"{f.name}: {f.status} ({f.reason or 'budget'}): {f.raw_chars} raw -> {f.injected_chars} injected chars")
    return tuple(notes)
