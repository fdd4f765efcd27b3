"""JSON5 config files (inputs/json5src.py), such as OpenClaw's own openclaw.json: read with every
value located, the OpenClaw settings promptc does not use noted once, errors at their line and
column, and what happens without the json5 package."""

from __future__ import annotations

import json
import sys

import pytest

from promptc._lib.errors import ConfigError
from promptc.inputs import layers as config

OPENCLAW_JSON = """\
// OpenClaw's own config: JSON5, with sections promptc does not read
{
  gateway: { port: 18789, auth: { token: 'secret' } },
  channels: { telegram: { enabled: true, }, },
  agents: {
    defaults: {
      model: { primary: "anthropic/claude-sonnet-4-5" },  /* OpenClaw's form of the key */
      bootstrapMaxChars: 4321,
      models: { "openai/gpt-5.5": { alias: 'gpt', params: { temperature: 0.2 } } },
      heartbeat: { every: "30m", enabled: true },
    },
    list: [ { id: "main", identity: { name: "Claw" } }, ],
  },
  skills: { load: { extraDirs: [], allowSymlinkTargets: ["/opt/skills"], watch: true } },
  tools: { profile: "coding", experimental: { planTool: true } },
}
"""


def test_openclaw_json_is_read_as_json5_and_its_other_settings_are_one_note(write_yaml, run_cli, tmp_path):
    path = write_yaml("openclaw.json", OPENCLAW_JSON)
    cfg = config.resolve(config.load([path]), None)
    assert (cfg.budgets.max_chars, cfg.model_aliases, cfg.plan_tool) == (4321, (("gpt", "openai/gpt-5.5"),), True)
    assert cfg.lookup("channels.telegram.enabled") is True  # still there for skills' requires.config
    assert cfg.model == "anthropic/claude-sonnet-4-5" and cfg.tool_names is not None and "exec" in cfg.tool_names
    code, out, err = run_cli("context", "--config", path, "--workspace", tmp_path, "--format", "json")
    assert code == 0, err
    notes = [w for w in json.loads(out)["warnings"] if "OpenClaw settings" in w]
    assert notes == [
        f"{path}: OpenClaw settings promptc does not use were accepted unchecked: gateway, channels,"
        " agents.defaults.models.openai/gpt-5.5.params, agents.defaults.heartbeat.every,"
        " agents.list[0].identity, skills.load.watch"
    ]
    # skills.load.allowSymlinkTargets is a key promptc reads, so it is checked, not noted.
    assert cfg.lookup("skills.load.allowSymlinkTargets") == ("/opt/skills",)


@pytest.mark.parametrize(
    "text, message, line, column",
    [
        (
            "{\n  agents: { defaults: { bootstrapMaxChar: 5 } },\n}",
            "unknown key 'agents.defaults.bootstrapMaxChar' (did you mean 'bootstrapMaxChars'?)",
            2,
            25,
        ),
        (
            "{\n  agents: {\n    defaults: { modle: 'x' },\n  },\n}",
            "unknown key 'agents.defaults.modle' (did you mean 'model'?)",
            3,
            17,
        ),
        (
            "{\n  skills: { load: { watchh: true } },\n}",
            "unknown key 'skills.load.watchh' (did you mean 'watch'?)",
            2,
            21,
        ),
        ("{\n  colour: 'red',\n}", "unknown key 'colour'", 2, 3),
        ("{\n  agents: { $include: './agents.json5' },\n}", "OpenClaw's $include is not supported here", 2, 13),
        (
            "{\n  agents: { defaults: { bootstrapMaxChars: 'many' } },\n}",
            "expected a whole number, got the string 'many'",
            2,
            25,
        ),
        ("{\n  agents: {\n    defaults: {}\n    list: [],\n  },\n}", 'invalid JSON5: unexpected "l"', 4, 5),
        ("{\n  a: 1,\n  // again\n  'a': 2,\n}", "duplicate key 'a'", 4, 3),
        (
            "{\n  agents: { defaults: { bootstrapMaxChars: " + "9" * 4400 + " } },\n}",
            "a number with more than 4,300 digits",
            2,
            44,
        ),
        (
            "{\n  agents: { defaults: { bootstrapMaxChars: 0x" + "f" * 4000 + " } },\n}",
            "a number with more than 4,300 digits",
            2,
            44,
        ),
        (
            "{\n  prompt: { values: { a: [1, -0X" + "F" * 5000 + "] } },\n}",
            "a number with more than 4,300 digits",
            2,
            30,
        ),
    ],
    ids=[
        "typo",
        "typo-of-an-openclaw-key",
        "typo-in-skills-load",
        "unknown-section",
        "include",
        "bad-type",
        "missing-comma",
        "duplicate",
        "huge-number",
        "huge-hex-number",
        "long-hex-text",
    ],
)
def test_json5_errors_name_file_line_and_column(write_yaml, text, message, line, column):
    path = write_yaml("openclaw.json", text)
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert message in info.value.message
    assert (info.value.location.path, info.value.location.line, info.value.location.column) == (str(path), line, column)


def test_json5_suffix_and_lone_surrogate_escapes(write_yaml):
    path = write_yaml("c.json5", "{agents: {defaults: {models: {'a/b': {alias: 'g\\ud800'}}}}}")
    assert config.resolve(config.load([path]), None).model_aliases == (("g\ufffd", "a/b"),)


def test_without_the_json5_package_plain_json_still_works_and_json5_says_what_to_install(write_yaml, monkeypatch):

    monkeypatch.setitem(sys.modules, "json5", None)  # `import json5` now fails
    plain = write_yaml("plain.json", '{"agents": {"defaults": {"bootstrapMaxChars": 1234}}}')
    assert config.resolve(config.load([plain]), None).budgets.max_chars == 1234
    with pytest.raises(ConfigError, match=r"pip install 'promptc\[openclaw\]'"):
        config.load([write_yaml("openclaw.json", OPENCLAW_JSON)])
    with pytest.raises(ConfigError, match=r"reading JSON5 needs the json5 package"):
        config.load([write_yaml("c.json5", "{}")])


@pytest.mark.parametrize(
    "text, message, column",
    [
        ('{"a":1}}', 'invalid JSON5: unexpected "}"', 8),  # the second close brace
        ('{"x\\u": 1', "invalid JSON5", 6),  # the quote that ends the bad escape
    ],
    ids=["stray-close", "bad-unicode-escape"],
)
def test_malformed_json5_is_one_located_error_not_an_internal_one(write_yaml, text, message, column):
    path = write_yaml("openclaw.json", text)
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert info.value.message.startswith(message)
    assert (info.value.location.line, info.value.location.column) == (1, column)


def _nested(levels: int, key: str) -> str:
    """`prompt.values.v` holding `levels - 3` more mappings: `levels` in all (keys written as
    `key` is: bare for JSON5, quoted for plain JSON)."""
    quote = '"' if key.startswith('"') else ""
    inner = "{" + f"{key}:" + ("{" + f"{key}:") * (levels - 4) + "1" + "}" * (levels - 3)
    return "{%sprompt%s: {%svalues%s: {%sv%s: " % ((quote,) * 6) + inner + "}}}"


@pytest.mark.parametrize("key", ["a", '"a"'], ids=["json5", "plain-json"])
def test_nesting_up_to_the_stated_limit_is_read_and_past_it_refused_where_it_happens(write_yaml, key):
    deep = write_yaml("deep.json", _nested(100, key))
    value = config.resolve(config.load([deep]), None).lookup("prompt.values.v")
    for _ in range(97):
        value = value["a"]
    assert value == 1
    text = _nested(101, key)
    too_deep = write_yaml("deeper.json", text)
    with pytest.raises(ConfigError) as info:
        config.load([too_deep])
    assert info.value.message == "nested more than 100 levels deep"
    # The 101st opening brace: three for prompt, values and v, then the 98th `{KEY:`.
    opened = text[: text.index("{" + f"{key}:")] + ("{" + f"{key}:") * 97
    assert text.startswith(opened + "{")
    assert info.value.location.column == len(opened) + 1


def test_plain_json_never_goes_through_the_slow_json5_parser_and_large_json5_is_refused(write_yaml, monkeypatch):
    import json5

    def refuse(*_args, **_kwargs):
        raise AssertionError("plain JSON was parsed with the json5 package")

    gateway = {"routes": [{"name": f"r{i}", "port": i} for i in range(20_000)]}
    text = json.dumps({"gateway": gateway, "agents": {"defaults": {"bootstrapMaxChars": 777}}})
    assert len(text) > 256 * 1024
    path = write_yaml("openclaw.json", text)
    with monkeypatch.context() as patched:
        patched.setattr(json5, "loads", refuse)
        configs = config.load([path])
    cfg = config.resolve(configs, None)
    assert cfg.budgets.max_chars == 777
    assert cfg.lookup("gateway")["routes"][19_999] == {"name": "r19999", "port": 19_999}
    # One origin for the unused OpenClaw value, at its key: none for each of its 40,000 values.
    assert str(configs.origins[("gateway",)].location) == f"{path}:1:2"
    assert not [key for key in configs.origins if key[:1] == ("gateway",) and len(key) > 1]

    commented = write_yaml("commented.json", "// OpenClaw's config\n" + text)
    with pytest.raises(ConfigError) as info:
        config.load([commented])
    assert "is too large: text with comments, trailing commas or unquoted keys is read up to 262,144 bytes" in (
        info.value.message
    )


def test_plain_json_keeps_json5_rules_duplicates_and_long_numbers_are_placed(write_yaml):
    duplicate = write_yaml("dup.json", '{"agents": {"defaults": {}},\n "agents": {}}')
    with pytest.raises(ConfigError) as info:
        config.load([duplicate])
    assert (info.value.message, info.value.location.line, info.value.location.column) == (
        "duplicate key 'agents'",
        2,
        2,
    )
    long = write_yaml("long.json", '{"prompt": {"values": {"n": ' + "7" * 4301 + "}}}")
    with pytest.raises(ConfigError, match="a number with more than 4,300 digits"):
        config.load([long])
