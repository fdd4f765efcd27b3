"""The whole compiler in one short function: each line is one stage and one module."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Mapping

from .config import layers
from .errors import Location, RunFactsError, UsageError, WorkspaceError
from .model import LoadedWorkspace, Prompt, ResolvedConfig, RunFacts
from .sections import catalogue, harness, providers, render, variables
from .workspace import budget, facts, filters, heartbeat, loader, skills, state

@dataclass(frozen=True)
class Request:
    """Everything one compile needs, named explicitly."""

    run: RunFacts = field(default_factory=RunFacts)
    """This turn's facts."""
    config_paths: tuple[Path, ...] = ()
    """`--config` files, lowest precedence first."""
    overrides: tuple[str, ...] = ()
    """`--set KEY=VALUE` overrides, applied last."""
    config_layers: tuple[layers.Layer, ...] = ()
    """Config layers built in memory (`promptc.config.layers.layer_from`), applied after `config_paths`."""
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
    now: str | None = None
    """Timestamp for the workspace state file; None means the current UTC time. Never rendered."""
    plugins: bool = True
    """Use installed `promptc.providers` / `promptc.hooks` entry points (snapshots turn this off)."""
    platform: str | None = None
    """Operating system for skill `metadata.os` checks; None means sys.platform."""

    def __post_init__(self) -> None:
        # Paths given as strings and sequences given as lists are accepted at the API boundary
        # (the types say what is stored: Paths and tuples); a bare string where a sequence
        # belongs would be read one character at a time, so it is refused.
        if not isinstance(self.run, RunFacts):
            raise RunFactsError(f"Request.run: expected RunFacts, got {type(self.run).__name__}")
        for name in ("config_paths", "template_dirs", "contribution_paths", "overrides", "config_layers"):
            if isinstance(getattr(self, name), (str, bytes, Path)):
                raise UsageError(f"Request.{name}: expected a sequence, got a single {type(getattr(self, name)).__name__}")
        for name in ("config_paths", "template_dirs", "contribution_paths"):
            object.__setattr__(self, name, tuple(Path(p) for p in getattr(self, name)))
        for name in ("workspace", "session_state"):
            value = getattr(self, name)
            object.__setattr__(self, name, None if value is None else Path(value))
        object.__setattr__(self, "overrides", tuple(self.overrides))
        object.__setattr__(self, "config_layers", tuple(self.config_layers))


@dataclass(frozen=True)
class StateUpdate:
    """State files a compile wants written once its prompt has been delivered."""

    workspace_root: Path
    """The workspace whose `.promptc/workspace-state.json` may change."""
    workspace_state: state.WorkspaceState | None
    """The new workspace state, or None when it is unchanged."""
    session_state: Path | None
    """The `--session-state` file."""
    seen: tuple[str, ...] | None
    """Truncation signatures to store there, or None to leave it alone."""

    def write(self) -> None:
        """Write what changed (atomically)."""
        if self.workspace_state is not None:
            state.write_state(self.workspace_root, self.workspace_state)
        if self.session_state is not None and self.seen is not None:
            budget.write_seen(self.session_state, self.seen)


def compile_prompt(request: Request) -> Prompt:
    """Compile, then record workspace and session state (the API for a runtime's every turn)."""
    prompt, update = compile_pending(request)
    update.write()
    return prompt


def compile_pending(request: Request) -> tuple[Prompt, StateUpdate]:
    """Run every stage in order; nothing is written, the state changes are returned instead."""
    configs = layers.load(request.config_paths, request.overrides, request.config_layers)
    cfg = layers.resolve(configs, agent=request.run.agent)
    root = _workspace_root(cfg, request)
    before = state.read_state(root)
    files = loader.load(root)
    now = request.now or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    after = state.next_state(before, bootstrap_present=_present(files, "BOOTSTRAP.md"), now=now)
    files = filters.apply(
        files, cfg, request.run, setup_complete=after.setup_complete, workspace=root, plugins=request.plugins
    )
    loaded, seen = _budget_and_skills(files, cfg, request, root)
    extra = [providers.load_file(p) for p in request.contribution_paths]
    contribution = providers.resolve(cfg, request.run, extra, plugins=request.plugins)
    mode = request.run.effective_mode
    specs = catalogue.discover([*request.template_dirs, *cfg.template_dirs])
    selected = catalogue.select(specs, mode, dict(contribution.section_overrides))
    routed = harness.route(loaded, request.run)
    shown_dir = _display_workspace(configs, cfg, request, root)
    contexts = variables.build(cfg, request.run, routed, contribution, shown_dir)
    rendered = render.render(selected, contexts, cfg.boundary_marker, mode)
    notes = configs.notes + _workspace_notes(shown_dir, root)
    prompt = _assemble(rendered, cfg, request.run, loaded, notes)
    changed = after if after != before else None
    return prompt, StateUpdate(root, changed, request.session_state, seen)


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
        diagnostics=tuple(d for f in files for d in f.diagnostics) + block.diagnostics,
        facts=facts.probe(root),
    )
    return loaded, seen


def _which(env: Mapping[str, str]) -> Callable[[str], str | None]:
    path = env.get("PATH", "")
    return lambda name: shutil.which(name, path=path)


def _workspace_notes(shown_dir: str, root: Path) -> tuple[str, ...]:
    if shown_dir == str(root):
        return ()
    return (f"the prompt names the workspace {shown_dir} (agents.defaults.workspace); its files were read from {root}",)


def _display_workspace(configs: layers.ConfigSet, cfg: ResolvedConfig, request: Request, root: Path) -> str:
    """The directory the model is told about.

    `--workspace` says where to read the files on this machine; an explicitly configured
    `agents.defaults.workspace` says where the agent sees them at run time, and wins.
    """
    origin = layers.explain(configs, "agents.defaults.workspace", cfg.agent_id).origin
    if request.workspace is None or origin.label == "defaults":
        return str(root)
    return cfg.workspace


# --------------------------------------------------------------------------- result


def _assemble(
    rendered: render.Rendered, cfg: ResolvedConfig, run: RunFacts, loaded: LoadedWorkspace, notes: tuple[str, ...]
) -> Prompt:
    mode = run.effective_mode
    surfaces = harness.codex_surfaces(rendered.stable, rendered.volatile, loaded, run, cfg.boundary_marker) if run.harness == "codex" else None
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
        warnings=notes + loaded.diagnostics + budget.describe_cuts(loaded.files) + variables.fact_warnings(run),
        surfaces=surfaces,
        settings=_reported_settings(cfg),
        model=run.model,
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
