"""The warm Compiler (warm/compiler.py): the same output as the one-pass pipeline, every input edit
seen on the next turn, and bounded caches."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from pathlib import Path

import pytest

from promptc import Compiler, Request, RunFacts, compile_prompt
from promptc._lib.errors import ConfigError
from promptc.features import snapshot
from promptc.warm import compiler as engine
from promptc.warm.compiler import compile_once

from support.paths import CORPUS, REPO

SCENARIOS = snapshot.discover(REPO / "snapshots")
MODES = [pytest.param({}, id="notify"), pytest.param({"notify": False}, id="stat-sweep")]
SKILL = "---\nname: {name}\ndescription: {description}\n---\n"


def _same(a, b) -> None:
    """Two prompts are the same compile: every field, not only the text."""
    assert a.text == b.text
    assert dataclasses.asdict(a) == dataclasses.asdict(b)


# --------------------------------------------------------------------------- same output


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_a_warm_compiler_gives_the_committed_snapshot_and_the_one_pass_pipeline_output(scenario):
    compiler = Compiler.from_request(scenario.request)
    cold, _ = compiler.compile_pending(scenario.request.run, now=scenario.request.now)
    warm, _ = compiler.compile_pending(scenario.request.run, now=scenario.request.now)
    reference, _ = compile_once(scenario.request)
    committed = scenario.dir / "stable.md"
    assert committed.read_text(encoding="utf-8") == (warm.stable + "\n" if warm.stable else "")
    assert (scenario.dir / "volatile.md").read_text(encoding="utf-8") == (warm.volatile + "\n" if warm.volatile else "")
    _same(cold, reference)
    _same(warm, reference)


def test_compile_prompt_is_the_compiler(make_workspace):
    ws = make_workspace({"AGENTS.md": "Rules.\n", "skills/a/SKILL.md": SKILL.format(name="a", description="A")})
    run = RunFacts(channel="telegram")
    direct = Compiler(workspace=ws, env={}).compile(run)
    _same(compile_prompt(Request(run=run, workspace=ws, env={})), direct)


CORPUS_SAMPLE = ["okbest2024-backup", "openclaw-templates-2026.9.6", "goose2openclaw"]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present in this checkout")
@pytest.mark.parametrize("folder", CORPUS_SAMPLE)
def test_warm_turns_on_real_workspaces_match_the_pipeline_for_every_session_kind(folder):
    compiler = Compiler(workspace=CORPUS / folder, env={})
    for session in ("main", "subagent", "cron", "heartbeat", "main"):
        run = RunFacts(session=session, channel="discord", chat_type="group")
        first, second = compiler.compile_pending(run)[0], compiler.compile_pending(run)[0]
        reference = compile_once(Request(run=run, workspace=CORPUS / folder, env={}))[0]
        _same(first, reference)
        assert second is first  # the same facts again: the very same prompt


def test_new_volatile_facts_keep_the_stable_part_and_change_the_volatile_one(make_workspace):
    compiler = Compiler(workspace=make_workspace({"AGENTS.md": "Rules.\n"}), env={})
    telegram = compiler.compile(RunFacts(channel="telegram"))
    discord = compiler.compile(RunFacts(channel="discord"))
    assert telegram.stable == discord.stable and telegram.volatile != discord.volatile
    assert "discord" in discord.volatile


# --------------------------------------------------------------------------- freshness


@pytest.mark.parametrize("options", MODES)
def test_an_edit_at_the_same_size_within_the_same_second_is_seen(make_workspace, options):
    ws = make_workspace({"SOUL.md": "Be kind.\n"})
    compiler = Compiler(workspace=ws, env={}, **options)
    assert "Be kind." in compiler.compile().stable
    assert "Be kind." in compiler.compile().stable  # a warm turn (watches armed, if any)
    (ws / "SOUL.md").write_text("Be calm.\n")  # same size, same second as the read
    assert "Be calm." in compiler.compile().stable


def _rewrite_keeping_size_and_mtime(path: Path, old: str, new: str) -> None:
    stamp = path.stat().st_mtime_ns
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(path.read_text(encoding="utf-8").replace(old, new))
    os.utime(path, ns=(stamp, stamp))  # size and mtime as before: only ctime and content moved


@pytest.mark.parametrize("options", MODES)
def test_a_rewrite_with_its_mtime_restored_is_seen_also_in_config(make_workspace, tmp_path, options):
    ws = make_workspace({"SOUL.md": "first\n"})
    config = tmp_path / "config.yaml"
    config.write_text("agents:\n  defaults:\n    userTimezone: Europe/Paris\n")
    old = time.time_ns() - 3_600_000_000_000  # an hour ago: settled, trusted by its stat alone
    for path in (ws / "SOUL.md", config):
        os.utime(path, ns=(old, old))
    compiler = Compiler(config_paths=[config], workspace=ws, env={}, **options)
    compiler.compile()
    compiler.compile()
    _rewrite_keeping_size_and_mtime(ws / "SOUL.md", "first", "FIRST")
    _rewrite_keeping_size_and_mtime(config, "Europe/Paris", "Europe/Rome ")
    prompt = compiler.compile()
    assert "FIRST" in prompt.stable and "Europe/Rome" in prompt.stable


@pytest.mark.parametrize("options", MODES)
def test_skill_template_config_and_new_files_are_seen_on_the_next_turn(make_workspace, tmp_path, options):
    ws = make_workspace({"AGENTS.md": "Rules.\n", "skills/a/SKILL.md": SKILL.format(name="a", description="Alpha")})
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "note.md.j2").write_text(
        "---\nid: note\norder: 5\nside: stable\nmodes: [full]\ntitle: Note\n---\nNOTE ONE\n"
    )
    config = tmp_path / "config.yaml"
    config.write_text("agents:\n  defaults:\n    userTimezone: Europe/Berlin\n")
    compiler = Compiler(config_paths=[config], workspace=ws, template_dirs=[templates], env={}, **options)
    for _ in range(2):
        prompt = compiler.compile()
    assert "Alpha" in prompt.stable and "NOTE ONE" in prompt.stable and "Europe/Berlin" in prompt.stable

    (ws / "skills/a/SKILL.md").write_text(SKILL.format(name="a", description="Omega"))
    assert "Omega" in compiler.compile().stable
    (templates / "note.md.j2").write_text((templates / "note.md.j2").read_text().replace("ONE", "TWO"))
    assert "NOTE TWO" in compiler.compile().stable
    config.write_text("agents:\n  defaults:\n    userTimezone: Asia/Tokyo\n")
    assert "Asia/Tokyo" in compiler.compile().stable
    (ws / "MEMORY.md").write_text("remember the milk\n")
    assert "remember the milk" in compiler.compile().stable
    (ws / "skills/b").mkdir()
    (ws / "skills/b/SKILL.md").write_text(SKILL.format(name="b", description="Beta"))
    assert "<name>b</name>" in compiler.compile().stable
    (ws / "MEMORY.md").unlink()
    assert "remember the milk" not in compiler.compile().stable


@pytest.mark.parametrize("options", MODES)
def test_the_workspace_becoming_a_git_repo_is_seen_on_the_next_turn(make_workspace, options):
    ws = make_workspace({"AGENTS.md": "Rules.\n"})
    compiler = Compiler(workspace=ws, env={}, **options)
    for _ in range(2):
        before = compiler.compile()
    (ws / ".git").mkdir()
    after = compiler.compile()
    assert before.stable != after.stable
    assert after.stable == compile_prompt(Request(workspace=ws, env={})).stable
    (ws / ".git").rmdir()
    assert compiler.compile().stable == before.stable


def _repoint(link: Path, target: Path) -> None:
    """Re-point `link` at `target` in one rename, as a deploy swaps a `current` link."""
    fresh = link.with_name(link.name + ".new")
    fresh.symlink_to(target, target_is_directory=True)
    os.replace(fresh, link)


@pytest.mark.parametrize("options", MODES)
@pytest.mark.parametrize("through", ["ws", "releases/current/ws"])
def test_a_workspace_link_re_pointed_is_followed_on_the_next_turn(tmp_path, options, through):
    """Every turn names the workspace the link leads to now, also when the re-pointed link is a
    directory above the workspace rather than the workspace itself."""
    for name in ("a", "b"):
        (tmp_path / name / "ws").mkdir(parents=True)
        (tmp_path / name / "ws" / "SOUL.md").write_text(f"The soul of {name}.\n", encoding="utf-8")
    link = tmp_path / ("ws" if through == "ws" else "releases/current")
    link.parent.mkdir(exist_ok=True)
    leads = {"ws": lambda name: tmp_path / name / "ws", "releases/current/ws": lambda name: tmp_path / name}
    _repoint(link, leads[through]("a"))
    compiler = Compiler(workspace=tmp_path / through, env={}, **options)
    served = []
    for turn in range(12):
        name = "ab"[turn % 2]
        if turn % 3 == 0:  # some turns follow an unchanged link, so a warm answer must stay right too
            _repoint(link, leads[through](name))
        else:
            name = served[-1] if served else "a"
        prompt = compiler.compile()
        assert f"The soul of {name}." in prompt.text, f"turn {turn} served the other workspace"
        served.append(name)
    _repoint(link, leads[through]("b"))
    assert "The soul of b." in compile_prompt(Request(workspace=tmp_path / through, env={})).text
    _repoint(link, leads[through]("a"))
    assert "The soul of a." in compile_prompt(Request(workspace=tmp_path / through, env={})).text


def test_a_changed_environment_variable_is_seen_when_the_environment_is_live(make_workspace, monkeypatch):
    skill = "---\nname: s\ndescription: S\nmetadata: {requires: {env: [PROMPTC_TEST_TOKEN]}}\n---\n"
    ws = make_workspace({"skills/s/SKILL.md": skill})
    monkeypatch.delenv("PROMPTC_TEST_TOKEN", raising=False)
    compiler = Compiler(workspace=ws)  # env=None: os.environ, read live
    assert compiler.compile().skills.text == "" and compiler.compile().skills.text == ""
    monkeypatch.setenv("PROMPTC_TEST_TOKEN", "x")
    assert "<name>s</name>" in compiler.compile().skills.text


def test_without_file_checks_an_edit_waits_for_invalidate(make_workspace):
    ws = make_workspace({"SOUL.md": "old soul\n"})
    compiler = Compiler(workspace=ws, env={}, check_files=False)
    compiler.compile()
    (ws / "SOUL.md").write_text("new soul, longer\n")
    assert "old soul" in compiler.compile().stable
    compiler.invalidate()
    assert "new soul, longer" in compiler.compile().stable


def test_a_config_broken_after_construction_is_an_error_until_fixed(make_workspace, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("agents:\n  defaults:\n    bootstrapMaxChars: 1000\n")
    compiler = Compiler(config_paths=[config], workspace=make_workspace({}), env={})
    compiler.compile()
    config.write_text("agents:\n  defaults:\n    bootstrapMaxChars: nope\n")
    with pytest.raises(ConfigError, match="bootstrapMaxChars"):
        compiler.compile()
    with pytest.raises(ConfigError):
        compiler.compile()
    config.write_text("agents:\n  defaults:\n    bootstrapMaxChars: 2000\n")
    assert compiler.compile().settings["bootstrapMaxChars"] == 2000


def test_a_bad_config_fails_at_construction(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("agents: [\n")
    with pytest.raises(ConfigError):
        Compiler(config_paths=[config])


# --------------------------------------------------------------------------- state and turns


def test_setup_completion_is_recorded_and_a_pending_update_is_never_reused(run_cli, tmp_path):
    ws = tmp_path / "ws"
    assert run_cli("init", ws)[0] == 0
    compiler = Compiler(workspace=ws, env={})
    assert "## BOOTSTRAP.md" in compiler.compile().stable
    (ws / "BOOTSTRAP.md").unlink()
    _, first = compiler.compile_pending(now="2026-01-01T00:00:00Z")
    _, second = compiler.compile_pending(now="2026-01-02T00:00:00Z")
    assert first.workspace_state.setup_completed_at == "2026-01-01T00:00:00Z"
    assert second.workspace_state.setup_completed_at == "2026-01-02T00:00:00Z"  # not the first turn's update again
    second.write()
    _, after = compiler.compile_pending(now="2026-01-03T00:00:00Z")
    assert after.workspace_state is None  # recorded: nothing left to write


def test_threads_may_share_a_compiler(make_workspace):
    ws = make_workspace({"AGENTS.md": "Rules.\n"})
    compiler = Compiler(workspace=ws, env={})
    runs = [RunFacts(channel=f"c{i % 5}") for i in range(40)]
    texts: dict[int, str] = {}
    threads = [
        threading.Thread(target=lambda i=i: texts.__setitem__(i, compiler.compile(runs[i]).text)) for i in range(40)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i, run in enumerate(runs):
        assert texts[i] == compile_once(Request(run=run, workspace=ws, env={}))[0].text


# --------------------------------------------------------------------------- bounded caches


def test_compile_prompt_keeps_a_bounded_number_of_compilers(make_workspace):
    for index in range(engine.COMPILER_CACHE_SIZE + 5):
        compile_prompt(Request(workspace=make_workspace({"AGENTS.md": f"{index}\n"}, name=f"ws{index}"), env={}))
    assert len(engine._COMPILERS) == engine.COMPILER_CACHE_SIZE


def test_many_config_edits_keep_the_layer_cache_bounded(make_workspace, tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("agents:\n  defaults:\n    bootstrapMaxChars: 1000\n")
    compiler = Compiler(config_paths=[config], workspace=make_workspace({}), env={})
    for value in range(1001, 1201):
        config.write_text(f"agents:\n  defaults:\n    bootstrapMaxChars: {value}\n")
        assert compiler.compile().settings["bootstrapMaxChars"] == value
    assert len(compiler._sources.layer_cache) <= compiler._sources.layer_cache.size
    assert len(compiler._turns) <= engine.TURN_CACHE_SIZE
