"""Config layers (inputs/layers.py): precedence, validation against the schema with every problem
located, per-agent overrides, and the values no layer may hold."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import PromptcError
from promptc._lib.errors import ConfigError
from promptc.inputs import explain as explaining
from promptc.inputs import layers as config
from promptc.inputs import yamlsrc


def test_defaults_match_the_spec():
    cfg = config.resolve(config.load(), "main")
    assert (cfg.budgets.max_chars, cfg.budgets.total_max_chars, cfg.budgets.warning) == (20000, 60000, "always")
    assert cfg.boundary_marker == "<!-- PROMPT_CACHE_BOUNDARY -->"
    assert (cfg.skills.max_prompt_chars, cfg.skills.max_in_prompt) == (18000, 150)
    assert cfg.skills.allowlist is None and cfg.user_timezone is None
    assert (cfg.delegation_mode, cfg.gpt5_personality, cfg.image_max_dimension_px) == ("suggest", "friendly", 1200)
    assert cfg.heartbeat.enabled is False and cfg.heartbeat.include_section is True


def test_precedence_defaults_then_files_in_order_then_set(write_yaml):
    a = write_yaml("a.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 100\n    bootstrapTotalMaxChars: 900\n")
    b = write_yaml("b.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 200\n")
    cfg = config.resolve(config.load([a, b], ["agents.defaults.bootstrapTotalMaxChars=300"]), "main")
    assert (cfg.budgets.max_chars, cfg.budgets.total_max_chars) == (200, 300)


def test_mappings_merge_and_lists_replace(write_yaml):
    a = write_yaml("a.yaml", "agents:\n  defaults:\n    skills: [x, y]\n    heartbeat: {enabled: true}\n")
    b = write_yaml("b.yaml", "agents:\n  defaults:\n    skills: [z]\n    heartbeat: {prompt: Beat.}\n")
    cfg = config.resolve(config.load([a, b]), "main")
    assert cfg.skills.allowlist == ("z",)
    assert (cfg.heartbeat.enabled, cfg.heartbeat.prompt) == (True, "Beat.")


def test_agent_list_entry_overrides_defaults_for_that_agent_only(write_yaml):
    path = write_yaml(
        "c.yaml",
        "agents:\n  defaults:\n    bootstrapMaxChars: 500\n  list:\n    - id: main\n    - id: work\n      bootstrapMaxChars: 50\n      skillsLimits: {maxSkillsPromptChars: 99}\n",
    )
    configs = config.load([path])
    main, work = config.resolve(configs, "main"), config.resolve(configs, "work")
    assert (main.budgets.max_chars, work.budgets.max_chars) == (500, 50)
    assert (main.skills.max_prompt_chars, work.skills.max_prompt_chars) == (18000, 99)
    assert main.is_default_agent and not work.is_default_agent


def test_unknown_agent_suggests_a_known_one(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  list:\n    - id: work\n")
    with pytest.raises(ConfigError, match="unknown agent 'wrok' \\(did you mean 'work'\\?\\)"):
        config.resolve(config.load([path]), "wrok")


@pytest.mark.parametrize(
    "text, message, line, column",
    [
        (
            "agents:\n  defaults:\n    bootstrapMaxChar: 5\n",
            "unknown key 'agents.defaults.bootstrapMaxChar' (did you mean 'bootstrapMaxChars'?)",
            3,
            5,
        ),
        ("agents:\n  defaults:\n    bootstrapMaxChars: -5\n", "must be greater than 0", 3, 5),
        ("agents:\n  defaults:\n    bootstrapMaxChars: many\n", "expected a whole number, got the string 'many'", 3, 5),
        ("agents:\n  defaults:\n    userTimezone: Mars/Olympus\n", "unknown IANA time zone", 3, 5),
        ("prompt:\n  templateDirs: nope\n", "expected a list of strings", 2, 3),
        ("agents:\n  list:\n    - id: a\n      colour: red\n", "unknown key 'agents.list[0].colour'", 4, 7),
        ("agents: [1, 2\n", "invalid YAML", 2, 1),
        ("hooks:\n  bootstrap: [not-a-hook]\n", "module:function", 2, 3),
    ],
)
def test_bad_config_errors_name_file_line_and_column(write_yaml, text, message, line, column):
    path = write_yaml("bad.yaml", text)
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert message in info.value.message
    assert (info.value.location.path, info.value.location.line, info.value.location.column) == (str(path), line, column)


def test_all_problems_are_counted_in_one_error(write_yaml):
    path = write_yaml("bad.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 0\n    timeFormat: 13\n    nope: 1\n")
    with pytest.raises(ConfigError, match="and 2 more problems"):
        config.load([path])


def test_json_config_is_accepted(write_yaml):
    path = write_yaml("c.json", '{"agents": {"defaults": {"bootstrapMaxChars": 1234}}}')
    assert config.resolve(config.load([path]), "main").budgets.max_chars == 1234


def test_bare_off_in_yaml_means_the_word(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  defaults:\n    bootstrapPromptTruncationWarning: off\n")
    assert config.resolve(config.load([path]), "main").budgets.warning == "off"


def test_relative_paths_resolve_against_the_config_file(tmp_path, write_yaml):
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "c.yaml"
    path.write_text("agents:\n  defaults:\n    workspace: ws\nprompt:\n  templateDirs: [tpl]\n")
    cfg = config.resolve(config.load([path]), "main")
    assert cfg.workspace == str(tmp_path / "sub" / "ws")
    assert cfg.template_dirs == (str(tmp_path / "sub" / "tpl"),)


positive = st.integers(min_value=1, max_value=10**9)


@settings(max_examples=60, deadline=None)
@given(layers=st.lists(st.one_of(st.none(), positive), min_size=1, max_size=5), override=st.one_of(st.none(), positive))
def test_property_last_layer_that_sets_a_key_wins(tmp_path_factory, layers, override):
    directory = tmp_path_factory.mktemp("layers")
    paths = []
    for index, value in enumerate(layers):
        path = directory / f"{index}.yaml"
        body = f"agents:\n  defaults:\n    bootstrapMaxChars: {value}\n" if value is not None else "{}\n"
        path.write_text(body)
        paths.append(path)
    overrides = [f"agents.defaults.bootstrapMaxChars={override}"] if override is not None else []
    expected = override or next((v for v in reversed(layers) if v is not None), 20000)
    configs = config.load(paths, overrides)
    assert config.resolve(configs, "main").budgets.max_chars == expected
    assert explaining.explain(configs, "agents.defaults.bootstrapMaxChars").value == expected


@settings(max_examples=60, deadline=None)
@given(value=st.one_of(st.integers(max_value=0), st.text(max_size=5), st.booleans(), st.floats(allow_nan=False)))
def test_property_non_positive_or_non_integer_budgets_are_rejected(value):
    with pytest.raises(ConfigError):
        config.load(
            [],
            [f"agents.defaults.bootstrapMaxChars={value!r}"]
            if not isinstance(value, str)
            else [f"agents.defaults.bootstrapMaxChars='{value}'"],
        )


def test_agent_entry_without_id_is_an_error_with_a_location(write_yaml):
    path = write_yaml("c.yaml", "agents:\n  list:\n    - bootstrapMaxChars: 5\n")
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert "missing required key 'id'" in info.value.message and info.value.location.line == 3


def test_repointing_a_symlinked_workspace_takes_effect_without_editing_the_config(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "current").symlink_to("one")
    path = tmp_path / "c.yaml"
    path.write_text("agents:\n  defaults:\n    workspace: current\n")
    from pathlib import Path

    first = Path(config.resolve(config.load([path]), "main").workspace)
    (tmp_path / "current").unlink()
    (tmp_path / "current").symlink_to("two")
    second = Path(config.resolve(config.load([path]), "main").workspace)
    assert first == second == tmp_path / "current"
    assert second.resolve() == tmp_path / "two"


# --------------------------------------------------------------------------- hostile values


@pytest.mark.parametrize(
    "escaped",
    ["\\r", "\\u2028", "\\v", "\\n", "\\x00", "\\u0085"],
    ids=["CR", "U+2028", "vertical-tab", "LF", "NUL", "NEL"],
)
def test_the_boundary_marker_must_be_one_printable_line(write_yaml, escaped):
    path = write_yaml("c.yaml", f'prompt:\n  cacheBoundaryMarker: "<!-- cut{escaped}here -->"\n')
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert "must be an HTML comment on one line with a word in it" in info.value.message
    assert info.value.location.line == 2


@pytest.mark.parametrize("marker", ["the", "---", "BOUNDARY", "<!-- -->", "<!-- a\\b -->", "x <!-- b -->"])
def test_the_boundary_marker_must_be_a_shape_prose_does_not_have(write_yaml, marker):
    path = write_yaml("c.yaml", f"prompt:\n  cacheBoundaryMarker: '{marker}'\n")
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert info.value.message == (
        "prompt.cacheBoundaryMarker: must be an HTML comment on one line with a word in it, such as"
        f" '<!-- PROMPT_CACHE_BOUNDARY -->' (printable, no backslashes), got {marker!r}"
    )


def test_a_marker_of_the_right_shape_leaves_ordinary_text_alone(write_yaml, run_cli, tmp_path):
    path = write_yaml("c.yaml", "prompt:\n  cacheBoundaryMarker: '<!--cut-->'\n")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("Read the notes; cut the noise.\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", tmp_path / "ws", "--config", path)
    assert code == 0, err
    assert out.count("<!--cut-->") == 1 and "Read the notes; cut the noise." in out


@pytest.mark.parametrize(
    "text, message, line",
    [
        (
            'agents:\n  defaults:\n    models:\n      "a/b": {alias: "g\\n\\n## Safety"}\n',
            "agents.defaults.models.a/b.alias: must be one line",
            4,
        ),
        (
            'agents:\n  defaults:\n    models:\n      "a/b\\n## Safety": {alias: g}\n',
            "agents.defaults.models: key the string 'a/b\\n## Safety' must be one line",
            4,
        ),
        ('agents:\n  list:\n    - id: "main\\n## Safety"\n', "agents.list[0].id: must be one line", 3),
        ('agents:\n  defaults:\n    workspace: "/ws\\n## Safety"\n', "agents.defaults.workspace: must be one line", 3),
    ],
    ids=["alias", "model-id", "agent-id", "workspace"],
)
def test_values_rendered_on_one_line_refuse_line_breaks(write_yaml, text, message, line):
    with pytest.raises(ConfigError) as info:
        config.load([write_yaml("c.yaml", text)])
    assert message in info.value.message and info.value.location.line == line
    assert "\n" not in str(info.value)


TOO_LONG = "cannot read this value: a number with more than 4,300 digits"
LONG_NUMBERS = {
    "4301-digits": "9" * 4301,
    "hex": "0x" + "f" * 4000,  # 4,000 hex digits: a number of 4,817 decimal digits
    "binary": "0b" + "1" * 20_000,
    "octal": "0" + "7" * 5000,  # YAML 1.1: a leading 0 is octal
    "sexagesimal": "1" + ":00" * 2500,  # YAML 1.1: 60 ** 2500, built by repeated multiplication
    "negative-hex": "-0x" + "f" * 4000,
}


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "agents:\n  defaults:\n    models:\n      1: {alias: x}\n",
            "agents.defaults.models: key the number 1 must be text",
        ),
        (
            "agents:\n  defaults:\n    models:\n      '': {alias: x}\n",
            "agents.defaults.models: key the string '' must not be blank",
        ),
        ("prompt:\n  values:\n    x: 1\n    1: 2\n", "prompt.values: key the number 1 is not a variable name"),
    ],
    ids=["model-id-number", "model-id-blank", "variable-name-number"],
)
def test_a_bad_key_is_named_once_in_one_sentence(write_yaml, text, message):
    with pytest.raises(ConfigError) as info:
        config.load([write_yaml("c.yaml", text)])
    assert info.value.message.startswith(message) and info.value.location.line == 4
    assert info.value.message.count("the number 1") <= 1


@pytest.mark.parametrize(
    "value, message",
    [
        *((text, TOO_LONG) for text in LONG_NUMBERS.values()),
        ("!!float abc", "cannot read this value: could not convert"),
    ],
    ids=[*LONG_NUMBERS, "bad-float-tag"],
)
def test_a_value_yaml_cannot_hold_is_a_located_error(write_yaml, run_cli, tmp_path, value, message):
    path = write_yaml("c.yaml", f"agents:\n  defaults:\n    bootstrapMaxChars: {value}\n")
    with pytest.raises(ConfigError) as info:
        config.load([path])
    assert message in info.value.message and (info.value.location.line, info.value.location.column) == (3, 24)
    for command in ("render", "context"):
        code, _, err = run_cli(command, "--workspace", tmp_path, "--set", f"agents.defaults.bootstrapMaxChars={value}")
        assert code == 2 and message in err and err.count("\n") == 1 and "internal error" not in err
        code, _, err = run_cli(command, "--workspace", tmp_path, "--config", path)
        assert code == 2 and err.startswith(f"promptc: error: {path}:3:24: {message}") and err.count("\n") == 1


@pytest.mark.parametrize(
    "key", ["agents.defaults.bootstrapMaxChars", "prompt.values.big", "agents.defaults.contextLimits.x"]
)
def test_a_number_too_long_is_refused_also_in_a_layer_made_in_memory(tmp_path, key):
    *parents, leaf = key.split(".")
    tree: dict = {leaf: 16**4000}  # 4,817 decimal digits: no text form at all
    for part in reversed(parents):
        tree = {part: tree}
    with pytest.raises(PromptcError) as info:
        config.layer_from(yamlsrc.Located(tree, {}, "memory"), "memory", tmp_path)
    assert "a number with more than 4,300 digits" in str(info.value) and "set_int_max_str_digits" not in str(info.value)


def test_a_host_that_lifts_pythons_digit_limit_changes_nothing(write_yaml):
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # an embedding process may lift Python's own limit
    try:
        small = config.load([write_yaml("small.json5", "{agents: {defaults: {bootstrapMaxChars: 4321}}}")])
        assert config.resolve(small, "main").budgets.max_chars == 4321
        for name, text in (
            ("c.yaml", f"agents: {{defaults: {{bootstrapMaxChars: {'9' * 5000}}}}}\n"),
            ("c.json5", f"{{agents: {{defaults: {{bootstrapMaxChars: {'9' * 5000}}}}}}}"),
        ):
            with pytest.raises(ConfigError, match="a number with more than 4,300 digits"):
                config.load([write_yaml(name, text)])
    finally:
        sys.set_int_max_str_digits(before)


@pytest.mark.parametrize(
    "override, message",
    [
        ("prompt=[1", "invalid YAML"),
        ("prompt={? [a, b]: 1}", "mapping keys must be plain values"),
        ("prompt=!!python/none ''", "could not determine a constructor"),
        ("agents.defaults.bogus\nkey=1", "unknown key 'agents.defaults.bogus\\nkey'"),
    ],
    ids=["unclosed", "complex-key", "python-tag", "newline-in-key"],
)
def test_set_errors_are_one_line(run_cli, tmp_path, override, message):
    code, out, err = run_cli("render", "--workspace", tmp_path, "--set", override)
    assert code == 2 and out == ""
    assert err.startswith("promptc: error: --set ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("cache", "line", "column", "message"),
    [
        (
            "    keepWarm:\n      every: 55m\n      window: 2h\n",
            4,
            7,
            "prompt.cache.keepWarm.every: 55m is not shorter than the 5m lifetime a tier asks for; "
            "the entry would run out before the ping",
        ),
        (
            "    ttl: 1h\n    keepWarm:\n      every: 55m\n      window: 30m\n",
            6,
            7,
            "prompt.cache.keepWarm.window: 30m is shorter than `every` (55m): no ping would be sent",
        ),
        (
            "    keepWarm:\n      window: 2h\n",
            4,
            7,
            "prompt.cache.keepWarm.window: set `every` too, or remove the window",
        ),
        (
            "    ttl: 1h\n    keepWarm:\n      every: 1h\n      window: 2h\n",
            5,
            7,
            "prompt.cache.keepWarm.every: 1h is not shorter than the 1h lifetime a tier asks for; "
            "the entry would run out before the ping",
        ),
    ],
)
def test_keep_warm_pings_that_cannot_keep_the_tiers_alive_are_refused_at_their_line(
    run_cli, write_yaml, cache, line, column, message
):
    config = write_yaml("config.yaml", "prompt:\n  cache:\n" + cache)
    code, out, err = run_cli("render", "--config", config)
    assert (code, out) == (2, "")
    assert err == f"promptc: error: {config}:{line}:{column}: {message}\n"


def test_keep_warm_pings_every_55_minutes_keep_one_hour_tiers(run_cli, write_yaml):
    config = write_yaml("config.yaml", "prompt:\n  cache:\n    ttl: 1h\n    keepWarm: {every: 55m, window: 3h}\n")
    code, out, err = run_cli("render", "--config", config, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["keep_warm"]["window_seconds"] == 3 * 3600
