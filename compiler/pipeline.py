"""The whole compiler in one short function (`run_stages`): each line is one stage and one module.

The stages that read files are reached through `Sources`; `promptc.Compiler` (warm/compiler.py)
keeps their results between turns, `warm.compiler.compile_once` runs the pipeline with nothing kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from . import tiers as cache_tiers
from ._lib.errors import one_line
from .inputs import contributions as providers
from .inputs import layers, toolpolicy
from .model.config import ResolvedConfig, UserVariable
from .model.prompt import Prompt, SectionOrigin
from .model.runfacts import RunFacts
from .model.workspace import ContextFile, FileStatus, LoadedWorkspace, SkillsBlock, WorkspaceFacts, WorkspaceFile
from .sections import catalogue, harness, render, uservars, variables
from .sections.catalogue import Selection
from .sections.partials import Partials
from .workspace import budget, filters, state


class Sources(Protocol):
    """The stages that read files, as the pipeline calls them. A warm Compiler's sources keep each
    result until an input it read changes (`warm.sources.KeptSources`); every method may be
    called again within one compile and must give the same answer."""

    plugins: bool
    """Whether installed provider and hook entry points take part."""
    cuts: budget.Cuts
    """Truncations already worked out, keyed on content (shared across compiles)."""
    renderer: render.Renderer
    """The renderer, which keeps compiled templates and rendered stable parts."""

    def config_set(self) -> layers.ConfigSet: ...
    def config(self, agent: str | None) -> ResolvedConfig: ...
    def workspace_root(self, cfg: ResolvedConfig) -> Path: ...
    def shown_workspace(self, cfg: ResolvedConfig, root: Path) -> str: ...
    def workspace_reason(self, cfg: ResolvedConfig) -> str: ...
    def workspace_state(self, root: Path) -> state.WorkspaceState: ...
    def bootstrap_files(self, root: Path) -> tuple[WorkspaceFile, ...]: ...
    def workspace_facts(self, root: Path) -> WorkspaceFacts: ...
    def heartbeat_skip(self, text: str | None) -> bool: ...
    def seen_signatures(self, session_state: Path | None) -> tuple[str, ...] | None: ...
    def skills(self, cfg: ResolvedConfig, root: Path) -> SkillsBlock: ...
    def sections(self, cfg: ResolvedConfig) -> catalogue.Catalogue: ...
    def contributions(self) -> list[providers.Contribution]: ...


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


@dataclass(frozen=True, slots=True)
class Made:
    """What the stages made on the way to one prompt, for a caller that keeps part of it (a
    bundle keeps what renders the volatile part again without the sources)."""

    config: ResolvedConfig
    """The agent's resolved config."""
    read: tuple[WorkspaceFile, ...]
    """The bootstrap files as read (none in `none` mode)."""
    files: tuple[WorkspaceFile, ...]
    """The files the filters kept."""
    notice_files: tuple[WorkspaceFile, ...]
    """The files the truncation notice counts."""
    loaded: LoadedWorkspace
    """The workspace half: files after the budgets, skills, the notice decision."""
    contribution: providers.Contribution
    """The provider contributions, merged."""
    selected: tuple[Selection, ...]
    """Every section's fate for this mode."""
    partials: Partials
    """The partials sections may include."""
    shown_dir: str
    """The workspace directory the prompt names."""
    user: tuple[UserVariable, ...]
    """The user variables with their values."""
    notes: tuple[str, ...]
    """Warnings about the config, templates and workspace, before the workspace's own."""
    filtered_files: tuple[ContextFile, ...]
    """The files a filter left out, as reported."""
    section_origins: tuple[SectionOrigin, ...]
    """Every section of the catalogue with its source file."""
    workspace_reason: str
    """Why the workspace is the directory it is."""


def run_stages(
    src: Sources,
    run: RunFacts,
    session_state: Path | None = None,
    now: str | None = None,
    observe: Callable[[Made], None] | None = None,
) -> tuple[Prompt, StateUpdate]:
    """Run every stage in order; each line is one stage and one module. `src` serves the stages
    that read files and remembers what they read. `none` mode reads no workspace at all.
    `observe`, when given, is handed what the stages made."""
    cfg = src.config(run.agent)
    run = toolpolicy.with_config(run, cfg)  # the config's tools and model when the run has none
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
    notes = src.config_set().notes + templates.notes + _workspace_notes(shown_dir, root) + _absent_notes(read, files)
    report = _Report(user, filtered_rows(read, drops, run), templates.origins, src.workspace_reason(cfg))
    prompt = _assemble(rendered, cfg, run, loaded, notes, report)
    if observe is not None:
        made = (cfg, read, files, notice_files, loaded, contribution, selected, templates.partials, shown_dir, user)
        observe(Made(*made, notes, report.filtered_files, report.section_origins, report.workspace_reason))
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
    chat does, and the two share their first cache tier, where the notice sits."""
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


def filtered_rows(
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


def _absent_notes(read: Sequence[WorkspaceFile], files: Sequence[WorkspaceFile]) -> tuple[str, ...]:
    """What an absent file a filter left out says about the workspace (a lowercase `memory.md`
    beside no MEMORY.md): the files left in say their own."""
    kept = {f.name for f in files}
    return tuple(d for f in read if f.status == "missing" and f.name not in kept for d in f.diagnostics)


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, slots=True)
class _Report:
    """What a Prompt tells reports about how it was made, besides the rendered text."""

    variables: tuple[UserVariable, ...]
    filtered_files: tuple[ContextFile, ...]
    section_origins: tuple[SectionOrigin, ...]
    workspace_reason: str


def assemble(
    rendered: render.Rendered,
    cfg: ResolvedConfig,
    run: RunFacts,
    loaded: LoadedWorkspace,
    notes: tuple[str, ...],
    report: tuple[tuple[UserVariable, ...], tuple[ContextFile, ...], tuple[SectionOrigin, ...], str],
) -> Prompt:
    """The Prompt for a render and the workspace half, as `run_stages` makes it; `report` is the
    user variables, the files a filter left out, the section origins and why the workspace is the
    one it is (a bundle serves its turns with it)."""
    return _assemble(rendered, cfg, run, loaded, notes, _Report(*report))


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
    tiers = cache_tiers.layout(rendered.units, cfg.cache)
    breakpoints = run.session not in cfg.cache.uncached_sessions
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
        tiers=tiers,
        openai_cache_key=cfg.cache.openai_key,
        openai_cache_retention=cfg.cache.openai_retention,
        keep_warm=cfg.cache.keep_warm if tiers and breakpoints else None,
        breakpoints=breakpoints,
        variables=report.variables,
        filtered_files=report.filtered_files,
        section_origins=report.section_origins,
        workspace_reason=report.workspace_reason,
        heartbeat_message=variables.heartbeat_message(cfg, run),
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
