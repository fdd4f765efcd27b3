"""The filter table: session kind, setup state, chat type, heartbeat, optional files, hooks; their order and reasons."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
from pathlib import Path

import pytest

from promptc._lib.errors import HookError
from promptc.model.config import HeartbeatConfig
from promptc.model.runfacts import RunFacts
from promptc.model.workspace import BOOTSTRAP_FILE_NAMES
from promptc.workspace import filters

from support.factories import loaded, make_config

ALL_FILES = tuple(loaded(name, f"{name} text") for name in BOOTSTRAP_FILE_NAMES)
HEARTBEATS_ON = make_config(heartbeat=HeartbeatConfig(enabled=True, include_section=True))
HEARTBEATS_OFF = make_config(heartbeat=HeartbeatConfig(enabled=False))


@pytest.fixture(autouse=True)
def fresh_hook_scan():
    """Hook entry points are scanned once per process; tests that fake them need a fresh scan."""
    filters.installed_hooks.cache_clear()
    yield
    filters.installed_hooks.cache_clear()


def names_after(run: RunFacts, cfg=HEARTBEATS_ON, *, setup_complete=False, files=ALL_FILES):
    kept = filters.apply(files, cfg, run, setup_complete=setup_complete, workspace="/ws")
    return [file.name for file in kept]


# --------------------------------------------------------------------------- session kind


@pytest.mark.parametrize(
    ("session", "light", "expected"),
    [
        ("main", False, list(BOOTSTRAP_FILE_NAMES)),
        ("subagent", False, ["AGENTS.md", "TOOLS.md"]),
        ("cron", False, ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"]),
        # BOOTSTRAP.md is for the user's own session: the setup filter drops it on heartbeats.
        ("heartbeat", False, [name for name in BOOTSTRAP_FILE_NAMES if name != "BOOTSTRAP.md"]),
        ("heartbeat", True, ["HEARTBEAT.md"]),
        ("cron", True, []),
        ("main", True, []),
        ("subagent", True, []),
    ],
)
def test_session_kind_decides_the_files(session: str, light: bool, expected: list[str]) -> None:
    assert names_after(RunFacts(session=session, light_context=light)) == expected


def test_cron_drops_lowercase_memory_too() -> None:
    files = ALL_FILES[:-1] + (loaded("memory.md", "notes"),)
    assert "memory.md" not in names_after(RunFacts(session="cron"), files=files)
    assert "memory.md" in names_after(RunFacts(session="main"), files=files)


# --------------------------------------------------------------------------- setup state


def test_bootstrap_only_while_setup_is_not_complete() -> None:
    assert "BOOTSTRAP.md" in names_after(RunFacts(), setup_complete=False)
    assert "BOOTSTRAP.md" not in names_after(RunFacts(), setup_complete=True)


# --------------------------------------------------------------------------- heartbeat


@pytest.mark.parametrize(
    ("enabled", "include", "default_agent", "session", "kept"),
    [
        (False, True, True, "main", False),
        (True, False, True, "main", False),
        (True, True, True, "main", True),
        (False, False, True, "heartbeat", True),
        (False, True, False, "main", True),
    ],
    ids=["off", "section-excluded", "on", "heartbeat-run", "non-default-agent"],
)
def test_heartbeat_file_follows_heartbeat_guidance(enabled, include, default_agent, session, kept) -> None:
    cfg = make_config(
        heartbeat=HeartbeatConfig(enabled=enabled, include_section=include),
        is_default_agent=default_agent,
    )
    assert ("HEARTBEAT.md" in names_after(RunFacts(session=session), cfg)) is kept


# --------------------------------------------------------------------------- the table


def drop_of(name: str, run: RunFacts, cfg=HEARTBEATS_ON, files=ALL_FILES) -> str | None:
    """The filter that removed `name` on this run, or None when every filter keeps it."""
    _, drops = filters.apply_with_drops(files, cfg, run, setup_complete=False, workspace="/ws")
    return next((drop.filter for drop in drops if drop.file == name), None)


def test_a_file_two_filters_would_remove_is_removed_by_the_one_that_runs_first() -> None:
    # session before setup, and before chat type: a sub-agent or cron run never reaches them
    assert drop_of("BOOTSTRAP.md", RunFacts(session="subagent")) == "session"
    assert drop_of("BOOTSTRAP.md", RunFacts(session="heartbeat")) == "setup"
    assert drop_of("MEMORY.md", RunFacts(session="cron", chat_type="group")) == "session"
    assert drop_of("MEMORY.md", RunFacts(chat_type="group")) == "chat"
    # heartbeat before optional files: an absent HEARTBEAT.md with guidance off is the heartbeat filter's
    absent = (*ALL_FILES[:5], loaded("HEARTBEAT.md", None, status="missing"), *ALL_FILES[6:])
    assert drop_of("HEARTBEAT.md", RunFacts(), HEARTBEATS_OFF, absent) == "heartbeat"
    assert drop_of("HEARTBEAT.md", RunFacts(), HEARTBEATS_ON, absent) == "optional"


def test_hooks_run_last_and_see_what_the_other_filters_left(hook_module: str) -> None:
    block = "Default heartbeat prompt:\n`Read HEARTBEAT.md. If nothing needs attention, reply HEARTBEAT_OK.`"
    files = (loaded("AGENTS.md", f"rules\n\n{block}\n"), loaded("MEMORY.md", None, status="missing"))
    cfg = make_config(hooks=(f"{hook_module}:record",))
    filters.apply(files, cfg, RunFacts(session="main"), setup_complete=False, workspace="/ws")
    assert sys.modules[hook_module].files_seen == [[("AGENTS.md", "rules")]]


def test_each_drop_gives_the_reason_of_the_filter_that_removed_it(hook_module: str) -> None:
    cfg = make_config(heartbeat=HeartbeatConfig(enabled=False), hooks=(f"{hook_module}:drop_tools",))
    _, drops = filters.apply_with_drops(ALL_FILES, cfg, RunFacts(session="heartbeat"), setup_complete=False)
    assert [(drop.file, drop.filter, drop.reason) for drop in drops] == [
        ("BOOTSTRAP.md", "setup", "BOOTSTRAP.md only reaches main sessions while setup is pending"),
        ("TOOLS.md", "hooks", "a bootstrap hook removed it"),
    ]


def test_drops_name_the_filter_responsible() -> None:
    cfg = make_config(heartbeat=HeartbeatConfig(enabled=False))
    _, drops = filters.apply_with_drops(ALL_FILES, cfg, RunFacts(session="cron"), setup_complete=True, workspace="/ws")
    assert [(drop.file, drop.filter) for drop in drops] == [
        ("HEARTBEAT.md", "session"),
        ("BOOTSTRAP.md", "session"),
        ("MEMORY.md", "session"),
    ]
    _, drops = filters.apply_with_drops(ALL_FILES, cfg, RunFacts(), setup_complete=True, workspace="/ws")
    assert [(drop.file, drop.filter) for drop in drops] == [
        ("BOOTSTRAP.md", "setup"),
        ("HEARTBEAT.md", "heartbeat"),
    ]


# --------------------------------------------------------------------------- hooks


@pytest.fixture
def hook_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A throwaway importable module with a few hooks; returns its name."""
    name = "promptc_test_hooks"
    sys.modules.pop(name, None)
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent("""
        from dataclasses import replace
        seen = []

        def swap_soul(files, context):
            seen.append((context.workspace, context.agent_id, context.session))
            return [replace(f, content="hook persona") if f.name == "SOUL.md" else f for f in files]

        def drop_tools(files, context):
            return [f for f in files if f.name != "TOOLS.md"]

        files_seen = []

        def record(files, context):
            files_seen.append([(f.name, f.content) for f in files])
            return files

        def explode(files, context):
            raise RuntimeError("boom")

        def wrong_type(files, context):
            return "not a list"

        class Namespace:
            @staticmethod
            def keep(files, context):
                return files
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **_: [])
    yield name
    sys.modules.pop(name, None)


def test_config_hook_replaces_a_file_and_sees_the_context(hook_module: str) -> None:
    cfg = make_config(hooks=(f"{hook_module}:swap_soul", f"{hook_module}:Namespace.keep"))
    kept = filters.apply(ALL_FILES, cfg, RunFacts(session="main"), setup_complete=False, workspace="/ws")
    assert {file.name: file.content for file in kept}["SOUL.md"] == "hook persona"
    assert sys.modules[hook_module].seen == [("/ws", "main", "main")]


def test_hook_error_names_the_hook(hook_module: str) -> None:
    spec = f"{hook_module}:explode"
    with pytest.raises(HookError, match=f"{spec}.*RuntimeError: boom") as caught:
        filters.apply(ALL_FILES, make_config(hooks=(spec,)), RunFacts(), setup_complete=False)
    assert isinstance(caught.value.__cause__, RuntimeError)


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("wrong_type", "must return a list"),
        ("absent", "cannot be loaded"),
        ("", "cannot be loaded"),
    ],
)
def test_bad_hooks_are_reported_by_name(hook_module: str, function: str, message: str) -> None:
    spec = f"{hook_module}:{function}"
    with pytest.raises(HookError, match=message) as caught:
        filters.apply(ALL_FILES, make_config(hooks=(spec,)), RunFacts(), setup_complete=False)
    assert spec in str(caught.value)


def test_spec_without_colon_is_reported(hook_module: str) -> None:
    with pytest.raises(HookError, match="must be 'module:function'"):
        filters.apply(ALL_FILES, make_config(hooks=(hook_module,)), RunFacts(), setup_complete=False)


def test_entry_point_hooks_run_after_config_hooks_sorted_by_name(
    hook_module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    points = [
        importlib.metadata.EntryPoint("zeta", f"{hook_module}:drop_tools", filters.HOOK_ENTRY_POINT_GROUP),
        importlib.metadata.EntryPoint("alpha", f"{hook_module}:swap_soul", filters.HOOK_ENTRY_POINT_GROUP),
    ]

    def fake_entry_points(*, group: str):
        calls.append(group)
        return points

    monkeypatch.setattr(importlib.metadata, "entry_points", fake_entry_points)
    cfg = make_config(hooks=(f"{hook_module}:Namespace.keep",))
    names = [name for name, _ in filters.hook_sources(cfg)]
    assert names == [
        f"{hook_module}:Namespace.keep",
        f"alpha ({hook_module}:swap_soul)",
        f"zeta ({hook_module}:drop_tools)",
    ]
    kept = filters.apply(ALL_FILES, cfg, RunFacts(), setup_complete=False, workspace="/ws")
    assert "TOOLS.md" not in [file.name for file in kept]
    assert calls[-1] == "promptc.hooks"
