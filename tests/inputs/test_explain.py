"""`config explain` (inputs/explain.py): a key's resolved value and the layer, file and line that set
it, for the defaults or for one agent."""

from __future__ import annotations

import pytest

from promptc._lib.errors import ConfigError
from promptc.inputs import explain as explaining
from promptc.inputs import layers as config


def test_explain_names_the_layer_and_line(write_yaml):
    path = write_yaml("c.yaml", "# comment\nagents:\n  defaults:\n    bootstrapMaxChars: 777\n")
    configs = config.load([path], ["agents.defaults.userTimezone=UTC"])
    found = explaining.explain(configs, "agents.defaults.bootstrapMaxChars")
    assert found.value == 777 and str(found.origin) == f"{path} ({path}:4:5)"
    assert (
        explaining.explain(configs, "agents.defaults.userTimezone").origin.label
        == "--set agents.defaults.userTimezone=UTC"
    )
    assert explaining.explain(configs, "skills.limits.maxSkillsInPrompt").origin.label == "defaults"


def test_explain_for_an_agent_reports_its_override(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  list:\n    - id: work\n      bootstrapMaxChars: 9\n")
    found = explaining.explain(config.load([path]), "agents.defaults.bootstrapMaxChars", agent="work")
    assert found.value == 9 and found.origin.location.line == 4


def test_explain_a_mapping_names_every_layer_that_set_part_of_it(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  defaults:\n    heartbeat: {enabled: true}\n")
    found = explaining.explain(config.load([path]), "agents.defaults.heartbeat")
    assert found.value["enabled"] is True and found.value["includeSystemPromptSection"] is True
    assert found.origin.label == f"several layers: defaults, {path}"


def test_explain_for_an_agent_merges_and_checks_the_agent(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  list:\n    - id: ops\n      heartbeat: {prompt: Beat}\n")
    configs = config.load([path])
    found = explaining.explain(configs, "agents.defaults.heartbeat", agent="ops")
    assert found.value == {"enabled": False, "includeSystemPromptSection": True, "prompt": "Beat"}
    assert explaining.explain(configs, "agents.defaults.heartbeat.prompt", agent="ops").origin.label == str(path)
    with pytest.raises(ConfigError, match="unknown agent 'opz' \\(did you mean 'ops'\\?\\)"):
        explaining.explain(configs, "agents.defaults.heartbeat", agent="opz")
