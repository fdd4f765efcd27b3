"""Snapshot scenarios (features/snapshot/scenario.py, keys.py): `scenario.yaml` keys declared in one
table and checked at their line, config as one layer or a list of them, inline config resolved
against the scenario's directory, the directories a scenario names kept as inputs, and no path
under the home directory."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from promptc.features import snapshot

from support.guardrails import copy_safety, replace_in, snapshot_outputs
from support.paths import SNAPSHOTS


def test_an_unknown_scenario_key_names_its_line(run_cli, snapshots):
    path = snapshots / "cron-job" / "scenario.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "worskpace: elsewhere\n", encoding="utf-8")
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    line = len(path.read_text(encoding="utf-8").splitlines())
    assert f"cron-job/scenario.yaml:{line}:1: unknown scenario key 'worskpace' (did you mean 'workspace'?)" in err


def _use_config_file(scenario: Path, extra: dict) -> None:
    """Move a scenario's inline config into config.yaml beside it, with `extra` keys added."""
    data = yaml.safe_load((scenario / "scenario.yaml").read_text(encoding="utf-8"))
    (scenario / "config.yaml").write_text(yaml.safe_dump({**data.pop("config"), **extra}), encoding="utf-8")
    (scenario / "scenario.yaml").write_text(yaml.safe_dump({**data, "config": "config.yaml"}), encoding="utf-8")


def test_dirs_named_by_a_scenario_config_file_are_inputs_never_stale(run_cli, snapshots):
    scenario = snapshots / "cron-job"
    section = copy_safety(scenario / "sections")
    replace_in(section, "Do not seek power,", "Do not seek influence,")
    (scenario / "extra-skills").mkdir()
    (scenario / "extra-skills" / "README.md").write_text("skills go here\n", encoding="utf-8")
    extra = {"prompt": {"templateDirs": ["sections"]}, "skills": {"load": {"extraDirs": ["extra-skills"]}}}
    _use_config_file(scenario, extra)
    code, out, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, err
    assert "0 stale removed" in out
    assert section.is_file() and (scenario / "extra-skills" / "README.md").is_file()
    assert "Do not seek influence," in (scenario / "stable.md").read_text(encoding="utf-8")
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out


def test_inline_config_paths_resolve_against_the_scenario_dir_not_the_cwd(run_cli, snapshots, tmp_path, monkeypatch):
    scenario = snapshots / "cron-job"
    replace_in(copy_safety(scenario / "sections"), "Do not seek power,", "Do not seek influence,")
    copy_safety(tmp_path / "sections")  # what `sections` would mean relative to the cwd
    tools = "  tools:\n    experimental:"
    replace_in(scenario / "scenario.yaml", tools, "  prompt:\n    templateDirs: [sections]\n" + tools)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 0, err
    assert "Do not seek influence," in (scenario / "stable.md").read_text(encoding="utf-8")
    assert run_cli("snapshot", "check", "--dir", snapshots)[0] == 0


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_an_inline_config_error_names_its_line_in_scenario_yaml(run_cli, snapshots):
    path = snapshots / "cron-job" / "scenario.yaml"
    replace_in(path, "planTool: true", "planTool: maybe")
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    assert f"cron-job/scenario.yaml:{_line_of(path, 'planTool')}:" in err
    assert "tools.experimental.planTool" in err and "--set" not in err


def test_a_home_relative_path_in_a_scenario_is_refused(run_cli, snapshots, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path = snapshots / "webchat-control-ui" / "scenario.yaml"
    replace_in(path, "docsPath: /srv/docs/runtime", "docsPath: ~/docs")
    before = snapshot_outputs(snapshots)
    code, _, err = run_cli("snapshot", "gen", "--dir", snapshots)
    assert code == 2
    assert f"webchat-control-ui/scenario.yaml:{_line_of(path, 'docsPath')}:" in err
    assert "'~/docs': a scenario may not use '~' paths" in err
    assert snapshot_outputs(snapshots) == before


def _split_config(scenario: Path, first_plan_tool: bool, last_plan_tool: bool) -> None:
    """Replace a scenario's inline config by a list: config.yaml (with planTool set to the first
    value), then an inline tree setting it to the last."""
    path = scenario / "scenario.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    config = data["config"]
    assert config["tools"]["experimental"]["planTool"] is True
    config["tools"]["experimental"]["planTool"] = first_plan_tool
    (scenario / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    data["config"] = ["config.yaml", {"tools": {"experimental": {"planTool": last_plan_tool}}}]
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_config_may_be_a_list_of_files_and_trees_later_ones_winning(run_cli, snapshots):
    committed = (snapshots / "cron-job" / "scenario.yaml").read_text(encoding="utf-8")
    _split_config(snapshots / "cron-job", first_plan_tool=False, last_plan_tool=True)
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 0, out  # the same config as the committed inline tree: the same prompt
    (snapshots / "cron-job" / "scenario.yaml").write_text(committed, encoding="utf-8")
    _split_config(snapshots / "cron-job", first_plan_tool=True, last_plan_tool=False)
    code, out, _ = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 1
    assert "cron-job/stable.md: differs from the generated output" in out


def test_an_error_in_a_config_list_entry_names_its_line(run_cli, snapshots):
    path = snapshots / "cron-job" / "scenario.yaml"
    path.write_text(
        "description: A cron job\n"
        "workspace: ../_fixtures/household\n"
        "config:\n"
        "  - agents: {defaults: {workspace: /srv/agents/household}}\n"
        "  - tools: {fs: {workspaceOnly: perhaps}}\n"
        "run:\n"
        "  session: cron\n",
        encoding="utf-8",
    )
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    assert f"cron-job/scenario.yaml:5:{'  - tools: {fs: {workspaceOnly: '.index('workspaceOnly') + 1}:" in err
    assert "tools.fs.workspaceOnly" in err


def test_a_config_list_entry_must_be_a_file_name_or_a_tree(run_cli, snapshots):
    path = snapshots / "none-mode" / "scenario.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**data, "config": [data["config"], 7]}, sort_keys=False), encoding="utf-8")
    code, _, err = run_cli("snapshot", "check", "--dir", snapshots)
    assert code == 2
    assert "'config' must be a mapping, a file name or a list of them" in err
    assert f"none-mode/scenario.yaml:{_line_of(path, '- 7')}:" in err


def test_every_scenario_and_expect_key_is_declared_with_a_meaning():
    schema = snapshot.json_schema()
    assert set(schema["properties"]) == set(snapshot.SCENARIO_KEYS)
    assert schema["required"] == ["description", "workspace"]
    assert schema["additionalProperties"] is False
    expect = schema["properties"]["expect"]
    assert set(expect["properties"]) == set(snapshot.EXPECT_KEYS)
    assert all(key.read is not None and key.doc for key in snapshot.EXPECT_KEYS.values())
    assert all(key.doc for key in snapshot.SCENARIO_KEYS.values())


def test_the_committed_scenarios_match_the_declared_schema():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the test extra) is not installed")
    schema = snapshot.json_schema()
    for path in sorted(SNAPSHOTS.glob("*/scenario.yaml")):
        jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)
    scenario = yaml.safe_load((SNAPSHOTS / "cron-job" / "scenario.yaml").read_text(encoding="utf-8"))
    for wrong in ({"contains": "x"}, {"max_tokens": {"stable": 0}}, {"sections": {"presnt": ["a"]}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**scenario, "expect": wrong}, schema)
