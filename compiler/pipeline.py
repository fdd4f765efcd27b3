"""The whole compiler in one short function (`run_stages`): each line is one stage and one module.

`compile_pending` runs it once with nothing kept; `promptc.Compiler` (compiler/engine.py) runs it
with the file-reading stages kept between turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from . import tiers as cache_tiers
from ._lib import checks
from ._lib.errors import RunFactsError, one_line
from .inputs import contributions as providers
from .inputs import layers
from .model.config import ResolvedConfig, UserVariable
from .model.prompt import Prompt, SectionOrigin
from .model.runfacts import RunFacts
from .model.workspace import ContextFile, FileStatus, LoadedWorkspace, SkillsBlock, WorkspaceFile
from .sections import catalogue, harness, render, uservars, variables
from .warm.sources import Sources
from .workspace import budget, filters, state


@dataclass(frozen=True, slots=True)
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
    """Timestamp for the workspace state file, in UTC as promptc writes it (`2026-01-31T09:30:00Z`);
    None means the current time. Never rendered."""
    plugins: bool = True
    """Use installed `promptc.providers` / `promptc.hooks` entry points (snapshots turn this off)."""
    platform: str | None = None
    """Operating system for skill `metadata.os` checks; None means sys.platform."""

    def __post_init__(self) -> None:
        # Paths given as strings and sequences given as lists are accepted at the API boundary
        # (the types say what is stored: Paths and tuples); anything else is refused here, so a
        # compile never meets a value it cannot use (checks.py).
        if not isinstance(self.run, RunFacts):
            raise RunFactsError(f"Request.run: expected RunFacts, got {type(self.run).__name__}")
        given = {name: getattr(self, name) for name in REQUEST_CHECKS}
        for name, value in checks.checked_arguments("Request", given, REQUEST_CHECKS).items():
            if value is not given[name]:
                object.__setattr__(self, name, value)


_LAYER = checks.instance_of(layers.Layer, "a config layer (promptc.config.layers.Layer)")
FIXED_INPUT_CHECKS: dict[str, checks.Check] = {
    "config_paths": checks.sequence_of(checks.path, "paths"),
    "overrides": checks.sequence_of(checks.text, "KEY=VALUE strings"),
    "config_layers": checks.sequence_of(_LAYER, "config layers"),
    "workspace": checks.optional(checks.path),
    "template_dirs": checks.sequence_of(checks.path, "paths"),
    "contribution_paths": checks.sequence_of(checks.path, "paths"),
    "env": checks.optional(checks.environment),
    "plugins": checks.flag,
    "platform": checks.optional(checks.name_text),
}
"""The check of each input a Request and a Compiler share (everything but the turn's)."""
REQUEST_CHECKS: dict[str, checks.Check] = {
    **FIXED_INPUT_CHECKS,
    "session_state": checks.optional(checks.path),
    "now": checks.optional(checks.timestamp),
}
"""The check of every Request field but `run` (RunFacts checks its own)."""


@dataclass(frozen=True, slots=True)
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
    """Compile once, then record workspace and session state; nothing is kept for a next turn
    (a runtime compiling every turn wants `promptc.compile_prompt` or a `promptc.Compiler`)."""
    prompt, update = compile_pending(request)
    update.write()
    return prompt


def compile_pending(request: Request) -> tuple[Prompt, StateUpdate]:
    """One pass through every stage with nothing kept; the state changes are returned."""
    return run_stages(sources_for(request), request.run, request.session_state, request.now)


def sources_for(request: Request) -> Sources:
    """File-reading stages for the request's fixed inputs (everything but the turn)."""
    return Sources(
        config_paths=request.config_paths,
        overrides=request.overrides,
        config_layers=request.config_layers,
        workspace=request.workspace,
        template_dirs=request.template_dirs,
        contribution_paths=request.contribution_paths,
        env=request.env,
        plugins=request.plugins,
        platform=request.platform,
    )


def run_stages(
    src: Sources, run: RunFacts, session_state: Path | None = None, now: str | None = None
) -> tuple[Prompt, StateUpdate]:
    """Run every stage in order; each line is one stage and one module. `src` serves the stages
    that read files and remembers what they read. `none` mode reads no workspace at all."""
    cfg = src.config(run.agent)
    root, mode = src.workspace_root(cfg), run.effective_mode
    reads_workspace = mode != "none"  # a none-mode prompt is one line: no files, no skills
    before = src.workspace_state(root) if reads_workspace else state.WorkspaceState()
    read = src.bootstrap_files(root) if reads_workspace else ()
    after = state.next_state(before, bootstrap_present=_present(read, "BOOTSTRAP.md"), now=now or _utc_now())
    files, drops = read, tuple[filters.Drop, ...]()
    if reads_workspace:
        files, drops = filters.apply_with_drops(
            read, cfg, run, setup_complete=after.setup_complete, workspace=root, plugins=src.plugins
        )
    notice_files = _with_chat_dropped(files, read, drops)
    loaded, seen = _workspace_half(src, files, notice_files, cfg, root, session_state, skills=reads_workspace)
    contribution = providers.resolve(cfg, run, src.contributions(), plugins=src.plugins)
    templates = src.sections(cfg)
    cache_tiers.check_sections(cfg.cache, {spec.id: spec.side for spec in templates.sections})
    selected = catalogue.select(templates.sections, mode, dict(contribution.section_overrides))
    routed = harness.route(loaded, run)
    shown_dir = src.shown_workspace(cfg, root)
    user = uservars.resolve(cfg, run)
    contexts = variables.build(cfg, run, routed, contribution, shown_dir, user)
    rendered = src.renderer.render(selected, contexts, cfg.boundary_marker, mode, templates.partials, cfg.cache)
    notes = src.config_set().notes + templates.notes + _workspace_notes(shown_dir, root)
    report = _Report(user, _filtered_rows(read, drops, run), templates.origins)
    prompt = _assemble(rendered, cfg, run, loaded, notes, report)
    changed = after if after != before else None
    return prompt, StateUpdate(root, changed, session_state, seen)


def _utc_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- workspace stage


def _present(files, name: str) -> bool:
    return any(f.name == name and f.status != "missing" for f in files)


def _with_chat_dropped(
    files: Sequence[WorkspaceFile], read: Sequence[WorkspaceFile], drops: Sequence[filters.Drop]
) -> tuple[WorkspaceFile, ...]:
    """The files the truncation notice counts: those injected, plus what the chat-type filter
    left out of a group chat (MEMORY.md). So a group chat shows the notice its owner's direct
    chat does, and the two share their first cache tier, where the notice sits (issue 11)."""
    chat = {drop.file for drop in drops if drop.filter == "chat"}
    if not chat:
        return tuple(files)
    order = {f.name: index for index, f in enumerate(read)}
    left_out = [f for f in read if f.name in chat]
    return tuple(sorted((*files, *left_out), key=lambda f: order.get(f.name, len(order))))


def _workspace_half(
    src: Sources,
    files: Sequence[WorkspaceFile],
    notice_files: Sequence[WorkspaceFile],
    cfg: ResolvedConfig,
    root: Path,
    session_state: Path | None,
    *,
    skills: bool,
) -> tuple[LoadedWorkspace, tuple | None]:
    context_files = budget.apply(files, cfg.budgets, src.cuts)
    counted = context_files if notice_files == tuple(files) else budget.apply(notice_files, cfg.budgets, src.cuts)
    signature = budget.signature(counted, cfg.budgets)
    previous = src.seen_signatures(session_state)
    decision = budget.decide_notice(cfg.budgets.warning, signature, previous)
    block = src.skills(cfg, root) if skills else SkillsBlock("")
    hb = next((f for f in files if f.name == "HEARTBEAT.md" and f.content is not None), None)
    loaded = LoadedWorkspace(
        root=str(root),
        files=context_files,
        skills=block,
        heartbeat_skip=src.heartbeat_skip(hb.content if hb else None),
        show_truncation_notice=decision.show,
        truncation_signature=signature,
        diagnostics=tuple(d for f in files for d in f.diagnostics) + block.diagnostics,
        facts=src.workspace_facts(root),
    )
    # Writing the same signatures again would only make the file look changed to the next turn.
    return loaded, None if decision.seen == previous else decision.seen


def _filtered_rows(
    read: Sequence[WorkspaceFile], drops: Sequence[filters.Drop], run: RunFacts
) -> tuple[ContextFile, ...]:
    """A report row for each file a filter left out, in load order, naming the filter."""
    by_name = {drop.file: drop for drop in drops}
    session = f"{run.session} (light context)" if run.light_context else run.session
    rows = []
    for file in (f for f in read if f.name in by_name):
        drop = by_name[file.name]
        status: FileStatus
        if file.status == "missing":
            status, reason = "missing", "absent (an optional file: no marker)"
        else:
            status, reason = "filtered", f"{drop.filter} filter: " + drop.reason.format(session=session)
        raw = len(file.content.rstrip()) if file.content is not None else file.raw_chars  # as budget.apply counts
        rows.append(ContextFile(file.name, file.path, "", status, reason, raw, 0, file.frontmatter))
    return tuple(rows)


def _workspace_notes(shown_dir: str, root: Path) -> tuple[str, ...]:
    if shown_dir == str(root):
        return ()
    return (f"the prompt names the workspace {shown_dir} (agents.defaults.workspace); its files were read from {root}",)


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True)
class _Report:
    """What a Prompt tells reports about how it was made, besides the rendered text."""

    variables: tuple[UserVariable, ...]
    filtered_files: tuple[ContextFile, ...]
    section_origins: tuple[SectionOrigin, ...]


def _assemble(
    rendered: render.Rendered,
    cfg: ResolvedConfig,
    run: RunFacts,
    loaded: LoadedWorkspace,
    notes: tuple[str, ...],
    report: _Report,
) -> Prompt:
    mode = run.effective_mode
    surfaces = (
        harness.codex_surfaces(rendered.stable, rendered.volatile, loaded, run, cfg.boundary_marker)
        if run.harness == "codex"
        else None
    )
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
        warnings=tuple(
            one_line(w)
            for w in notes + loaded.diagnostics + budget.describe_cuts(loaded.files) + variables.fact_warnings(run)
        ),
        surfaces=surfaces,
        settings=_reported_settings(cfg),
        model=run.model,
        units=rendered.units,
        tiers=cache_tiers.layout(rendered.units, cfg.cache),
        openai_cache_key=cfg.cache.openai_key,
        breakpoints=run.session not in cfg.cache.uncached_sessions,
        variables=report.variables,
        filtered_files=report.filtered_files,
        section_origins=report.section_origins,
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
