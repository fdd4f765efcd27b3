"""`promptc config show` (features/configshow.py): the resolved config of one agent, as YAML or
JSON, every value with the layer that set it."""

from __future__ import annotations

import json
import re

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from promptc.features.configshow import scalar

from support.paths import EXAMPLES

EXAMPLE = EXAMPLES / "config.yaml"


def _line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of `text` holding `needle`."""
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def test_show_origins_on_the_example_names_the_layer_of_every_value(run_cli):
    code, out, err = run_cli("config", "show", "--config", EXAMPLE, "--origins")
    assert (code, err) == (0, "")
    values = [line for line in out.splitlines() if not line.startswith("#") and not line.rstrip().endswith(":")]
    assert len(values) > 30
    assert all(re.search(r"  # \S", line) for line in values), [v for v in values if "  # " not in v]
    source = EXAMPLE.read_text(encoding="utf-8")
    origin = json.loads(run_cli("config", "show", "--config", EXAMPLE, "--origins", "--format", "json")[1])["origins"]
    assert len(origin) == len(values)
    for key, needle in [
        ("agents.defaults.workspace", "workspace: workspace"),
        ("agents.defaults.userTimezone", "userTimezone:"),
        ("agents.defaults.heartbeat.enabled", "enabled: true"),
        ("agents.defaults.subagents.delegationMode", "delegationMode:"),  # from the agents.list entry
        ('agents.defaults.models["anthropic/claude-sonnet-4-5"].alias', "anthropic/claude-sonnet-4-5"),
        ('agents.defaults.models["openai/gpt-5.5"].alias', "openai/gpt-5.5"),
    ]:
        assert origin[key].startswith(f"{EXAMPLE}:{_line_of(source, needle)}:"), key
    assert origin["agents.defaults.bootstrapMaxChars"] == "defaults"
    assert sorted(line.rpartition("  # ")[2] for line in values) == sorted(origin.values())


def test_the_yaml_and_the_json_hold_the_same_tree(run_cli):
    yaml_text = run_cli("config", "show", "--config", EXAMPLE)[1]
    code, json_text, err = run_cli("config", "show", "--config", EXAMPLE, "--format", "json")
    assert (code, err) == (0, "")
    document = json.loads(json_text)
    assert document["agent"] == "main" and "origins" not in document
    assert yaml.safe_load(yaml_text) == document["config"]
    assert document["config"]["agents"]["defaults"]["workspace"] == str(EXAMPLES / "workspace")
    assert "list" not in document["config"]["agents"]


def test_an_agent_sees_its_own_entry_over_the_defaults(run_cli, write_yaml):
    path = write_yaml(
        "config.yaml",
        "agents:\n"
        "  list:\n"
        "    - id: a\n"
        "      bootstrapMaxChars: 7\n"
        "      skillsLimits: {maxSkillsPromptChars: 99}\n"
        "    - id: b\n"
        "prompt:\n"
        "  variables: {tone: {side: stable}}\n"
        "  values: {tone: calm}\n",
    )
    found = {}
    for agent in ("a", "b"):
        out = run_cli("config", "show", "--config", path, "--agent", agent, "--format", "json", "--origins")[1]
        found[agent] = json.loads(out)
    a, b = found["a"], found["b"]
    assert a["config"]["agents"]["defaults"]["bootstrapMaxChars"] == 7
    assert a["origins"]["agents.defaults.bootstrapMaxChars"] == f"{path}:4:7"
    assert a["config"]["skills"]["limits"]["maxSkillsPromptChars"] == 99
    assert a["origins"]["skills.limits.maxSkillsPromptChars"] == f"{path}:5:22"
    assert b["config"]["agents"]["defaults"]["bootstrapMaxChars"] == 20000
    assert b["origins"]["agents.defaults.bootstrapMaxChars"] == "defaults"
    assert b["origins"]["prompt.values.tone"] == f"{path}:9:12"
    first = json.loads(run_cli("config", "show", "--config", path, "--format", "json")[1])
    assert first["agent"] == "a"  # the first list entry is the default agent


def test_a_set_flag_is_named_as_the_layer_and_openclaw_settings_are_left_out(run_cli, write_yaml):
    path = write_yaml("openclaw.json", '{"gateway": {"port": 1}, "agents": {"defaults": {"thinkingDefault": "low"}}}')
    code, out, err = run_cli(
        "config", "show", "--config", path, "--set", "agents.defaults.timeFormat=24", "--origins", "--format", "json"
    )
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["origins"]["agents.defaults.timeFormat"] == "--set agents.defaults.timeFormat=24"
    assert "gateway" not in document["config"] and "thinkingDefault" not in document["config"]["agents"]["defaults"]


def test_an_unknown_agent_is_one_error_line(run_cli):
    code, out, err = run_cli("config", "show", "--config", EXAMPLE, "--agent", "mian")
    assert (code, out) == (2, "")
    assert err == "promptc: error: unknown agent 'mian' (did you mean 'main'?)\n"


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)  # lone surrogates never reach a tree
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)


@given(value=VALUES)
@example(value={"\n": None})  # a key with a line break: YAML would write a complex key
@example(value={"\n": "\U00010000 \\ud800\\udc00"})  # and a character beyond U+FFFF, and its escape as text
def test_every_value_is_written_on_one_line_that_yaml_reads_back(value):
    written = scalar(value)
    assert "\n" not in written
    assert yaml.safe_load(f"key: {written}") == {"key": value}
