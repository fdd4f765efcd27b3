"""`promptc.Bundle` (features/bundle/reader.py): a bundle opened without its sources serves the
Prompt a compile from the sources gives (text, tiers, payloads and every other field), refuses an
edited file, finds variants by their facts, and reads HEARTBEAT.md at turn time when told where."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

import promptc
from promptc import Bundle, PromptcError, Request, RunFacts, Tool, to_anthropic, to_bedrock, to_openai, to_responses
from promptc._lib import resources
from promptc.features import bundle
from promptc.features.snapshot.scenario import load_scenario
from promptc.warm.compiler import Compiler

from support.bundles import CONFIG, MATRIX
from support.guardrails import SCENARIOS
from support.paths import EXAMPLES, SNAPSHOTS

PAYLOADS = (to_anthropic, to_openai, to_responses, to_bedrock)


def _sources(request: Request, run: RunFacts) -> promptc.Prompt:
    """The prompt compiled from the sources (no state written)."""
    return Compiler.from_request(request).compile_pending(run)[0]


def _assert_same(got: promptc.Prompt, want: promptc.Prompt) -> None:
    assert (got.text, got.stable, got.volatile) == (want.text, want.stable, want.volatile)
    assert got.tiers == want.tiers and got.units == want.units
    assert [emit(got) for emit in PAYLOADS] == [emit(want) for emit in PAYLOADS]
    assert got == want  # every other field too: sections, files, skills, warnings, surfaces, ...


def _write(variants: list[RunFacts], request: Request, out: Path) -> None:
    bundle.write(bundle.build(variants, request), out)


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_snapshot_scenario_is_served_from_a_bundle_without_its_sources(name, tmp_path, monkeypatch):
    snapshots = Path(shutil.copytree(SNAPSHOTS, tmp_path / "snapshots"))
    scenario = load_scenario(snapshots / name)
    run = scenario.request.run
    want = _sources(scenario.request, run)
    _write([run], scenario.request, tmp_path / "bundle")
    # The scenario dir holds its config, contributions and outputs: gone. So are the built-in
    # templates, as far as this promptc can tell: the bundle must not need them.
    shutil.rmtree(snapshots / name)
    monkeypatch.setattr(resources, "templates_root", lambda: tmp_path / "no-templates")
    opened = Bundle.open(tmp_path / "bundle")
    _assert_same(opened.compile(run), want)
    _assert_same(opened.compile(run, workspace=scenario.request.workspace), want)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """The 96-variant matrix over a copy of the example workspace, built once for the module:
    (request, variants, bundle dir). A test that edits the workspace puts it back."""
    root = tmp_path_factory.mktemp("fleet")
    workspace = Path(shutil.copytree(EXAMPLES / "workspace", root / "ws"))
    config = root / "config.yaml"
    config.write_text(CONFIG.replace(str(EXAMPLES / "workspace"), str(workspace)), encoding="utf-8")
    (root / "matrix.yaml").write_text(MATRIX, encoding="utf-8")
    request = Request(config_paths=(config,), run=promptc.load_run_facts(EXAMPLES / "run.yaml"))
    variants = bundle.load_matrix(root / "matrix.yaml", request.run)
    _write(variants, request, root / "bundle")
    return request, variants, root / "bundle"


@pytest.fixture
def own_fleet(fleet, tmp_path):
    """The fleet with a bundle of the test's own, to edit."""
    request, variants, out = fleet
    return request, variants, Path(shutil.copytree(out, tmp_path / "bundle"))


def test_every_variant_of_a_fleet_is_served_as_its_sources_compile_it(fleet):
    request, variants, out = fleet
    opened = Bundle.open(out)
    for run in variants:
        _assert_same(opened.compile(run), _sources(request, run))
    assert len(opened.variants) == 96


def test_turn_facts_change_per_turn_and_the_rest_must_be_as_built(fleet):
    request, variants, out = fleet
    opened = Bundle.open(out)
    turn = dataclasses.replace(
        variants[5], host="other-host", owners=("telegram:42",), extra_prompt="Keep it short.", thinking="high"
    )
    _assert_same(opened.compile(turn), _sources(request, turn))
    with pytest.raises(PromptcError) as raised:
        opened.compile(dataclasses.replace(turn, tools=(Tool("read", "Read a file"),)))
    assert "this turn's run facts differ from the variant's: tools (built with" in str(raised.value)
    assert "rebuild it" in str(raised.value)


def test_a_repeat_turn_is_the_same_prompt_object(fleet):
    _, variants, out = fleet
    opened = Bundle.open(out)
    assert opened.compile(variants[0]) is opened.compile(variants[0])
    with pytest.raises(PromptcError, match="Bundle.compile.workspace: expected a path, got int"):
        opened.compile(variants[0], workspace=3)  # type: ignore[arg-type]
    with pytest.raises(PromptcError, match="Bundle.compile.run: expected RunFacts, got dict"):
        opened.compile({"channel": "telegram"})  # type: ignore[arg-type]


def test_a_variant_is_found_by_its_facts_and_a_miss_names_the_nearest(fleet):
    _, _, out = fleet
    opened = Bundle.open(out)
    found = opened.variant(agent="scout", session="cron", provider="openai", channel="webchat")
    assert (found.agent, found.session, found.mode, found.chat_type) == ("scout", "cron", "minimal", "direct")
    assert opened.compile(opened.facts(found, host="h")).agent == "scout"
    assert opened.facts(found, channel="telegram").channel == "telegram"
    with pytest.raises(PromptcError, match="not turn facts, the bundle fixes them: tools"):
        opened.facts(found, tools=())
    with pytest.raises(PromptcError) as raised:
        opened.variant(agent="scout", session="cron", provider="openai", channel="slack")
    message = str(raised.value)
    assert "no variant has agent='scout' session='cron' provider='openai' channel='slack'; nearest: " in message
    assert "agent=scout session=cron mode=minimal provider=openai" in message and "\n" not in message
    with pytest.raises(PromptcError) as raised:
        opened.variant(agent="scout", session="cron", provider="openai")
    assert (
        "3 variants have agent='scout' session='cron' provider='openai'; choose with channel (telegram, discord, webchat), chat_type (direct, group):"
        in str(raised.value)
    )
    with pytest.raises(PromptcError) as raised:
        opened.variant()
    assert str(raised.value).startswith(f"{out / 'manifest.json'}: the bundle has 96 variants; choose with agent (")
    with pytest.raises(PromptcError) as raised:
        opened.variant(chanel="x")
    assert "unknown variant fact 'chanel'" in str(raised.value) and "did you mean 'channel'" in str(raised.value)


def test_a_run_the_bundle_has_no_variant_for_is_refused_naming_the_nearest(fleet):
    _, variants, out = fleet
    with pytest.raises(PromptcError) as raised:
        Bundle.open(out).compile(dataclasses.replace(variants[0], channel="slack"))
    assert str(raised.value).startswith(f"{out / 'manifest.json'}: no variant for these run facts (agent=main ")
    assert "; nearest: agent=main session=main mode=full provider=anthropic" in str(raised.value)


def test_a_stable_file_edited_by_hand_is_refused_with_one_located_line(own_fleet):
    _, _, out = own_fleet
    victim = min((out / "stable").iterdir())
    victim.write_text(victim.read_text(encoding="utf-8").replace("Safety", "Safeties"), encoding="utf-8")
    with pytest.raises(PromptcError) as raised:
        Bundle.open(out)
    assert raised.value.lines() == [f"{victim}: content does not match its name: the file was changed after the build"]


def test_a_recipe_edited_by_hand_is_refused_too(own_fleet):
    _, _, out = own_fleet
    victim = min((out / "recipes").iterdir())
    victim.write_bytes(victim.read_bytes() + b" ")  # still valid JSON, no longer its hash
    with pytest.raises(PromptcError) as raised:
        Bundle.open(out)
    assert str(raised.value) == f"{victim}: content does not match its name: the file was changed after the build"


def test_what_is_not_a_servable_bundle_is_refused(own_fleet, tmp_path):
    _, _, out = own_fleet
    with pytest.raises(PromptcError, match="not a promptc bundle \\(no .promptc-bundle marker\\)"):
        Bundle.open(tmp_path)
    manifest = out / "manifest.json"
    manifest.write_text('{"format": 1, "token_method": "x", "variants": []}', encoding="utf-8")
    with pytest.raises(PromptcError) as raised:
        Bundle.open(out)
    assert str(raised.value) == (
        f"{manifest}: not a bundle manifest promptc can read (ValueError: format 1, from before bundles"
        " could serve turns: rebuild it)"
    )


# --------------------------------------------------------------------------- HEARTBEAT.md at turn time


HEARTBEATS = [
    "# Heartbeat\n\n- Water the plants at 6pm.\n- Check the mail.\n",
    "# Heartbeat\n\n",  # no task: the caller may skip the model call
    None,  # removed
]


@pytest.mark.parametrize("text", HEARTBEATS)
def test_heartbeat_md_is_read_from_the_workspace_at_turn_time(fleet, text):
    request, variants, out = fleet
    workspace = Path(request.config_paths[0]).parent / "ws"
    opened = Bundle.open(out)
    before = [opened.compile(run, workspace=workspace) for run in variants]
    built = (workspace / "HEARTBEAT.md").read_text(encoding="utf-8")
    try:
        if text is None:
            (workspace / "HEARTBEAT.md").unlink()
        else:
            (workspace / "HEARTBEAT.md").write_text(text, encoding="utf-8")
        for run, old in zip(variants, before):
            got = opened.compile(run, workspace=workspace)
            _assert_same(got, _sources(request, run))
            if run.session == "heartbeat":
                assert got.volatile != old.volatile
        heartbeat = opened.compile(next(r for r in variants if r.session == "heartbeat"), workspace=workspace)
        assert heartbeat.heartbeat_skip is (text == "# Heartbeat\n\n")
    finally:
        (workspace / "HEARTBEAT.md").write_text(built, encoding="utf-8")


def test_a_heartbeat_md_that_would_move_the_stable_part_is_refused(run_cli, make_workspace, tmp_path):
    # A total budget so tight that HEARTBEAT.md's length decides how much of MEMORY.md fits.
    files = {
        "AGENTS.md": "# Rules\n",
        "HEARTBEAT.md": "# Heartbeat\n\n- One task.\n",
        "MEMORY.md": "# Memory\n\n" + "- A lasting note.\n" * 40,
    }
    workspace = make_workspace(files)
    request = Request(
        workspace=workspace,
        overrides=("agents.defaults.bootstrapTotalMaxChars=400", "agents.defaults.heartbeat.enabled=true"),
        run=RunFacts(session="heartbeat"),
    )
    _write([request.run], request, tmp_path / "b")
    opened = Bundle.open(tmp_path / "b")
    _assert_same(opened.compile(request.run, workspace=workspace), _sources(request, request.run))
    (workspace / "HEARTBEAT.md").write_text(
        "# Heartbeat\n\n- One task.\n- And a second one, longer.\n", encoding="utf-8"
    )
    with pytest.raises(PromptcError) as raised:
        opened.compile(request.run, workspace=workspace)
    message = str(raised.value)
    assert message.startswith(f"{workspace / 'HEARTBEAT.md'}: HEARTBEAT.md injects ")
    assert "under the total budget (bootstrapTotalMaxChars: 400) the files after it would be cut differently" in message
    # The stable part would indeed differ: the refusal is not a false alarm.
    assert _sources(request, request.run).stable != opened.compile(request.run).stable


def test_bootstrap_hooks_are_not_run_at_turn_time(make_workspace, tmp_path, monkeypatch):
    (tmp_path / "bundle_hooks.py").write_text("def keep(files, context):\n    return files\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    workspace = make_workspace({"AGENTS.md": "# Rules\n", "HEARTBEAT.md": "# Heartbeat\n\n- A task.\n"})
    request = Request(workspace=workspace, overrides=("hooks.bootstrap=['bundle_hooks:keep']",))
    _write([request.run], request, tmp_path / "b")
    opened = Bundle.open(tmp_path / "b")
    _assert_same(opened.compile(request.run), _sources(request, request.run))
    with pytest.raises(PromptcError) as raised:
        opened.compile(request.run, workspace=workspace)
    assert "built with bootstrap hooks (bundle_hooks:keep), which a bundle cannot run at turn time" in str(raised.value)


def test_cache_diff_bundle_names_the_facts_to_choose_with(run_cli, fleet):
    request, _, out = fleet
    config = request.config_paths[0]
    code, _, err = run_cli("cache", "diff", "--bundle", out, "--config", config, "--agent", "helper")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"promptc: error: {out / 'manifest.json'}: 6 variants have agent='helper' session='main';")
    assert "choose with provider (anthropic, openai), model (anthropic/claude-sonnet-4-5, openai/gpt-5.5)," in err
    assert "channel (telegram, discord, webchat), chat_type (direct, group): agent=helper session=main" in err
    assert "; ... and 3 more" in err
    # With the facts the bundle was built from, one variant fits: nothing changed since.
    flags = ("--run", EXAMPLES / "run.yaml", "--agent", "helper", "--channel", "discord", "--chat-type", "group")
    code, out_text, _ = run_cli("cache", "diff", "--bundle", out, "--config", config, *flags)
    assert (code, out_text.splitlines()) == (
        0,
        ["cache tier 1 unchanged", "cache tier 2 unchanged", "cache tier 3 unchanged"],
    )


def test_a_bundle_keeps_the_keep_warm_schedule_and_serves_the_same_ping(tmp_path):
    run = promptc.load_run_facts(EXAMPLES / "run.yaml")
    request = Request(config_paths=(EXAMPLES / "config.yaml", EXAMPLES / "cache-long-lived.yaml"), run=run)
    want = _sources(request, run)
    assert want.keep_warm is not None  # the recommended layout pings
    _write([run], request, tmp_path / "bundle")
    got = Bundle.open(tmp_path / "bundle").compile(run)
    _assert_same(got, want)
    assert promptc.keep_warm_ping(got, "anthropic") == promptc.keep_warm_ping(want, "anthropic")
