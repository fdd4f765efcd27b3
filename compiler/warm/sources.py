"""The stages that read files, each run once and kept until an input it read changes.

`KeptSources` is the one place where the pipeline touches the file system and the environment:
every stage below reads through `self.tracker`, which records each file, directory listing,
absent path and environment variable with what it looked like. A Compiler keeps one and asks the
tracker before each turn whether anything changed (then `reset()` forgets the stages and keeps
the caches keyed on content); a one-pass compile uses a fresh one.

A new input for a stage (say, whether `<workspace>/.git` exists) is a new method here that
reads it through the tracker, or `record_paths(...)` for paths another module looked at.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .._lib import fsutil
from .._lib.errors import Location, WorkspaceError
from .._lib.lru import LRU
from ..inputs import contributions as providers
from ..inputs import explain, layers, variables
from ..model.config import ResolvedConfig
from ..model.request import FixedInputs
from ..model.workspace import SkillsBlock, WorkspaceFacts, WorkspaceFile
from ..sections import catalogue, render, sectionfile
from ..skills import discover as skills
from ..skills import listing as skillblock
from ..skills import skillfile
from ..workspace import budget, facts, loader, quicklook, state
from . import parsecache
from .freshness import Tracker

T = TypeVar("T")

PARSE_CACHE_SIZE = 2 * skills.MAX_SKILLS
"""Distinct SKILL.md contents, config files and section files remembered across rebuilds."""


def _parsed_empty(text: str) -> bool:
    from ..workspace import heartbeat  # markdown-it is imported only when a quick look cannot tell

    return heartbeat.is_effectively_empty(text)


class LiveEnvironment(Mapping[str, str]):
    """`os.environ` as the stages see it: every variable read is recorded with its value, so a
    change to one of them (PATH for skill binaries, a `requires.env` name) is a change of input."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker

    def __getitem__(self, name: str) -> str:
        value = os.environ.get(name)
        self.tracker.env(name, value)
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(os.environ)

    def __len__(self) -> int:
        return len(os.environ)


class KeptSources:
    """File-reading stages for one set of fixed inputs, each result kept until an input it read
    changes (the `pipeline.Sources` a Compiler uses)."""

    def __init__(self, inputs: FixedInputs) -> None:
        self.inputs = inputs
        self.plugins, self.platform = inputs.plugins, inputs.platform or sys.platform
        self.layer_cache: LRU[tuple, layers.Layer] = LRU(64)
        stores = parsecache.cache_dir()
        self.spec_cache: parsecache.Persisted[tuple, sectionfile.SectionSpec] = parsecache.Persisted(
            LRU(512),
            parsecache.Store(stores, "sections", parsecache.file_key(), 256),
            sectionfile.spec_key,
            sectionfile.spec_data,
            sectionfile.spec_from_data,
        )
        self.skill_cache: parsecache.Persisted[str, skillfile.Parsed] = parsecache.Persisted(
            LRU(PARSE_CACHE_SIZE),
            parsecache.Store(stores, "skills", parsecache.file_key()),
            str,
            skillfile.parsed_data,
            skillfile.parsed_from_data,
        )
        self.heartbeat_cache: LRU[str, bool] = LRU(8)
        self.cuts: budget.Cuts = LRU(32)  # a few per file: the total budget left can vary by session
        self.renderer = render.Renderer()
        self.reset()

    def reset(self) -> None:
        """Forget every stage result (caches keyed on content stay)."""
        self.tracker = Tracker()
        self.env: Mapping[str, str] = LiveEnvironment(self.tracker) if self.inputs.env is None else self.inputs.env
        self._stages: dict[tuple, Any] = {}
        self._which: dict[str, str | None] = {}
        self.identities: dict[str, fsutil.Identity] = {}

    @property
    def live_environment(self) -> bool:
        """Whether environment variables are read from os.environ (and so can change)."""
        return self.inputs.env is None

    def _stage(self, key: tuple, compute: Callable[[], T]) -> T:
        if key not in self._stages:
            self._stages[key] = compute()
        result: T = self._stages[key]
        return result

    # ------------------------------------------------------------------ config

    def config_set(self) -> layers.ConfigSet:
        """Defaults, `--config` files, in-memory layers and `--set`, merged."""
        return self._stage(
            ("config",),
            lambda: layers.load(
                self.inputs.config_paths,
                self.inputs.overrides,
                self.inputs.config_layers,
                tracker=self.tracker,
                cache=self.layer_cache,
            ),
        )

    def config(self, agent: str | None) -> ResolvedConfig:
        """The agent's resolved config (None: the default agent)."""
        return self._stage(
            ("agent", agent),
            lambda: variables.attach(self.config_set(), layers.resolve(self.config_set(), agent, self.env)),
        )

    # ------------------------------------------------------------------ workspace

    def workspace_root(self, cfg: ResolvedConfig) -> Path:
        """The directory the files are read from: `--workspace`, else the configured one."""
        return self._stage(("root", cfg.workspace), lambda: self._root(cfg))

    def _root(self, cfg: ResolvedConfig) -> Path:
        root = (self.inputs.workspace or Path(cfg.workspace)).expanduser()
        try:
            resolved, info = fsutil.resolve_directory(root)
        except fsutil.Refused as refused:
            raise WorkspaceError(f"workspace directory {refused.detail}", Location(str(root))) from refused
        except OSError as error:  # absent, not a directory, a link loop
            raise WorkspaceError("workspace directory not found", Location(str(root))) from error
        self.identities[str(resolved)] = (info.st_dev, info.st_ino)  # every later open must find this one
        self.tracker.listing(str(resolved), info, None, lambda: None)  # it must stay a directory
        self.tracker.resolved(os.path.abspath(root), str(resolved))  # and `root` must still lead to it
        return resolved

    def shown_workspace(self, cfg: ResolvedConfig, root: Path) -> str:
        """The directory the model is told about.

        `--workspace` says where to read the files on this machine; an explicitly configured
        `agents.defaults.workspace` says where the agent sees them at run time, and wins.
        """

        def compute() -> str:
            origin = explain.explain(self.config_set(), "agents.defaults.workspace", cfg.agent_id).origin
            return str(root) if self.inputs.workspace is None or origin.label == "defaults" else cfg.workspace

        return self._stage(("shown", cfg.agent_id, str(root)), compute)

    def workspace_reason(self, cfg: ResolvedConfig) -> str:
        """Why the files are read from the directory they are read from."""
        return "from --workspace" if self.inputs.workspace is not None else cfg.workspace_reason

    def workspace_state(self, root: Path) -> state.WorkspaceState:
        """`.promptc/workspace-state.json`."""
        return self._stage(
            ("state", str(root)), lambda: state.read_state(root, self.tracker, self.identities.get(str(root)))
        )

    def bootstrap_files(self, root: Path) -> tuple[WorkspaceFile, ...]:
        """The eight bootstrap files, read once."""
        return self._stage(
            ("files", str(root)), lambda: loader.load(root, self.tracker, self.identities.get(str(root)))
        )

    def workspace_facts(self, root: Path) -> WorkspaceFacts:
        """What the prompt says about the workspace besides its files (is it a git repo)."""
        return self._stage(("facts", str(root)), lambda: self._probe(root))

    def _probe(self, root: Path) -> WorkspaceFacts:
        self.record_paths([Path(root) / facts.GIT_MARKER])  # before the probe looks (see record_paths)
        return facts.probe(root)

    def heartbeat_skip(self, text: str | None) -> bool:
        """Whether HEARTBEAT.md's text holds no task (parsed once per distinct text)."""
        if text is None:
            return False
        cached = self.heartbeat_cache.get(text)
        if cached is None:
            cached = self.heartbeat_cache[text] = not quicklook.has_task(text) and _parsed_empty(text)
        return cached

    def seen_signatures(self, session_state: Path | None) -> tuple[str, ...] | None:
        """The truncation signatures already shown in this session (None: no session file)."""
        if session_state is None:
            return None
        path = Path(os.path.abspath(session_state))
        return self._stage(("seen", str(path)), lambda: self._read_seen(path))

    def _read_seen(self, path: Path) -> tuple[str, ...]:
        self.record_paths([path])
        return budget.read_seen(path)

    def skills(self, cfg: ResolvedConfig, root: Path) -> SkillsBlock:
        """The agent's skills block: discovery, eligibility and the budgeted listing, a workspace
        skill's location under the workspace directory the prompt names."""
        shown = self.shown_workspace(cfg, root)

        def compute() -> SkillsBlock:
            block = skillblock.build(
                cfg,
                root,
                env=self.env,
                which=self.which,
                platform=self.platform,
                tracker=self.tracker,
                parsed=self.skill_cache,
                workspace_identity=self.identities.get(str(root)),
                shown_root=shown,
            )
            self.skill_cache.flush()
            return block

        return self._stage(("skills", cfg.agent_id, str(root), shown), compute)

    def which(self, name: str) -> str | None:
        """Where a binary is on PATH: looked up once per name while PATH is unchanged."""
        if name not in self._which:
            self._which[name] = shutil.which(name, path=self.env.get("PATH", ""))
        return self._which[name]

    # ------------------------------------------------------------------ templates and providers

    def sections(self, cfg: ResolvedConfig) -> catalogue.Catalogue:
        """Every section and partial: `--templates` dirs, then `prompt.templateDirs`, then the
        built-ins (the partials are read up front, so an edited one is seen like a section)."""
        dirs: tuple[str | Path, ...] = (*self.inputs.template_dirs, *cfg.template_dirs)

        def compute() -> catalogue.Catalogue:
            found = catalogue.load(dirs, self.tracker, self.spec_cache)
            self.spec_cache.flush()
            return found

        return self._stage(("sections", dirs), compute)

    def contributions(self) -> list[providers.Contribution]:
        """The `--contributions` files."""
        return self._stage(
            ("contributions",), lambda: [providers.load_file(p, self.tracker) for p in self.inputs.contribution_paths]
        )

    def runs_user_code(self, cfg: ResolvedConfig) -> bool:
        """Whether hooks or provider plugins run: their results are not known to depend only on
        the files read, so a whole prompt is never reused while they are in play."""
        from ..workspace import filters

        return bool(cfg.hooks) or (self.plugins and bool(providers.installed_plugins() or filters.installed_hooks()))

    # ------------------------------------------------------------------ other inputs

    def record_paths(self, paths: Sequence[Path]) -> None:
        """Make these paths inputs as they are now: a file's content, a directory's presence, or
        absence. For reads done by code that does not take a tracker (recorded before it reads,
        so a change in between still shows)."""
        for path in map(str, paths):
            try:
                info = os.stat(path)
            except OSError:
                self.tracker.missing(path)
                continue
            if os.path.isdir(path):
                self.tracker.listing(path, info, None, lambda: None)
            else:
                self._record_file(path)

    def _record_file(self, path: str) -> None:
        try:
            data, info = fsutil.read_regular(path, fsutil.MAX_INPUT_BYTES)
        except (OSError, fsutil.Refused):
            self.tracker.missing(path)
            return
        self.tracker.file(path, info, data)
