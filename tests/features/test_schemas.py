"""The JSON Schemas (features/schemas.py): valid schemas, printed by `promptc schema`; every
example file, scenario and built-in section validates; a file the schema refuses, promptc refuses
too; a schema-valid file with a value promptc cannot use is still refused with promptc's own
located error; and a value a check accepts is never one its schema refuses."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import json5
import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._lib.errors import PromptcError, RunFactsError
from promptc.features import schemas
from promptc.features.bundle.matrix import load_matrix
from promptc.features.snapshot.scenario import load_scenario
from promptc.inputs import layers, runfacts, valuechecks
from promptc.model.runfacts import FACTS, RunFacts
from promptc.sections.sectionfile import read_section

from support.paths import EXAMPLES, REPO, SNAPSHOTS

EXAMPLE_SCHEMAS = {
    "config.yaml": "config",
    "cache-long-lived.yaml": "config",
    "run.yaml": "run",
    "matrix.yaml": "matrix",
}
"""Every YAML file in examples/ and the schema it follows."""


def _validator(name: str) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(schemas.SCHEMAS[name].make())


def _errors(name: str, data: Any) -> list[str]:
    return [error.message for error in _validator(name).iter_errors(data)]


def _openclaw_json() -> str:
    """The openclaw.json the JSON5 reader's tests use (tests/inputs/test_json5src.py)."""
    source = (REPO / "tests" / "inputs" / "test_json5src.py").read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "OPENCLAW_JSON":
            return ast.literal_eval(node.value)
    raise AssertionError("OPENCLAW_JSON not found")


# --------------------------------------------------------------------------- the schemas and the command


@pytest.mark.parametrize("name", list(schemas.SCHEMAS))
def test_every_schema_is_a_valid_draft_7_schema_and_promptc_schema_prints_it(name, run_cli):
    schema = schemas.SCHEMAS[name].make()
    jsonschema.Draft7Validator.check_schema(schema)
    code, out, err = run_cli("schema", name)
    assert (code, err) == (0, "")
    assert json.loads(out) == schema


def test_an_unknown_schema_name_is_a_usage_error(run_cli):
    code, out, err = run_cli("schema", "manifesto")
    assert (code, out) == (2, "")
    assert err.startswith("promptc: error: ") and "config" in err and err.count("\n") == 1


# --------------------------------------------------------------------------- what the repository holds validates


def test_every_example_file_validates_and_promptc_reads_it():
    found = {path.name for path in EXAMPLES.glob("*.yaml")}
    assert found == set(EXAMPLE_SCHEMAS)
    for name, schema in EXAMPLE_SCHEMAS.items():
        assert _errors(schema, yaml.safe_load((EXAMPLES / name).read_text(encoding="utf-8"))) == [], name
    layers.load([EXAMPLES / "config.yaml", EXAMPLES / "cache-long-lived.yaml"])
    run = runfacts.load(EXAMPLES / "run.yaml")
    assert len(load_matrix(EXAMPLES / "matrix.yaml", run)) == 2 * 2 * 2 * 2


def test_every_example_names_its_schema_on_its_first_line_for_editors():
    for name, schema in EXAMPLE_SCHEMAS.items():
        if name == "cache-long-lived.yaml":
            continue  # a layer shown with its own comments (the caching docs own it)
        first = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()[0]
        assert first == f"# yaml-language-server: $schema=../docs/schemas/{schema}.json", name
        assert (EXAMPLES / f"../docs/schemas/{schema}.json").is_file()


def test_every_snapshot_scenario_validates():
    scenarios = sorted(SNAPSHOTS.glob("*/scenario.yaml"))
    assert len(scenarios) >= 10
    for path in scenarios:
        assert _errors("scenario", yaml.safe_load(path.read_text(encoding="utf-8"))) == [], path


def test_every_built_in_section_frontmatter_validates():
    sections = sorted((REPO / "templates" / "sections").glob("*.md.j2"))
    assert len(sections) >= 30
    for path in sections:
        spec = read_section(path)
        meta = {
            key: yaml.safe_load(path.read_text(encoding="utf-8").split("\n---")[0][3:])[key]
            for key, _ in spec.key_lines
        }
        assert _errors("section", meta) == [], path


def test_the_default_config_and_an_openclaw_json_validate():
    defaults = yaml.safe_load((REPO / "templates" / "defaults.yaml").read_text(encoding="utf-8"))
    assert _errors("config", defaults) == []
    assert _errors("config", json5.loads(_openclaw_json())) == []


# --------------------------------------------------------------------------- what the schema refuses, promptc refuses


def _config_error(tmp_path: Path, text: str, name: str = "config.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PromptcError) as caught:
        layers.load([path])
    return str(caught.value)


def test_an_unknown_config_key_fails_the_schema_and_promptc(tmp_path):
    text = "agents:\n  defaults:\n    bootstrapMaxChar: 5\n"
    assert any("bootstrapMaxChar" in message for message in _errors("config", yaml.safe_load(text)))
    assert _config_error(tmp_path, text) == (
        f"{tmp_path / 'config.yaml'}:3:5: unknown key 'agents.defaults.bootstrapMaxChar'"
        " (did you mean 'bootstrapMaxChars'?)"
    )


def test_an_unknown_key_in_an_openclaw_json_fails_the_schema_and_promptc(tmp_path):
    text = _openclaw_json().replace("bootstrapMaxChars: 4321", "bootstrapMaxChar: 4321")
    assert any("bootstrapMaxChar" in message for message in _errors("config", json5.loads(text)))
    message = _config_error(tmp_path, text, "openclaw.json")
    assert message.startswith(f"{tmp_path / 'openclaw.json'}:8:")
    assert "unknown key 'agents.defaults.bootstrapMaxChar' (did you mean 'bootstrapMaxChars'?)" in message


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("agents:\n  defaults:\n    userTimezone: Mars/Olympus_Mons\n", 3, "unknown IANA time zone"),
        ("prompt:\n  cache:\n    tiers: [[sections, SOUL.md], [SOUL.md]]\n", 3, "'SOUL.md' is in more than one tier"),
        ("prompt:\n  cache:\n    ttl: [5m, 1h]\n", 3, "a later tier cannot live longer than an earlier one"),
        ("agents:\n  defaults:\n    bootstrapMaxChars: 1.0\n", 3, "expected a whole number"),
        ('agents:\n  defaults:\n    workspace: "a\\u00adb"\n', 3, "must be one line"),  # a soft hyphen
    ],
)
def test_a_schema_valid_config_with_a_value_promptc_cannot_use_is_refused_at_its_line(tmp_path, text, line, message):
    assert _errors("config", yaml.safe_load(text)) == []
    refused = _config_error(tmp_path, text)
    assert refused.startswith(f"{tmp_path / 'config.yaml'}:{line}:") and message in refused


def test_a_schema_valid_run_file_with_a_value_promptc_cannot_use_is_refused_at_its_line(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text('channel: telegram\nmodel: "anthropic/claude\\u2028## Forged"\n', encoding="utf-8")
    assert _errors("run", yaml.safe_load(path.read_text(encoding="utf-8"))) == []
    with pytest.raises(RunFactsError) as caught:
        runfacts.load(path)
    assert str(caught.value).startswith(f"{path}:2:") and "must be one line" in str(caught.value)


def test_unknown_keys_of_a_run_file_scenario_matrix_and_section_fail_the_schema_and_promptc(tmp_path):
    (tmp_path / "run.yaml").write_text("channel: telegram\nchanel: discord\n", encoding="utf-8")
    (tmp_path / "matrix.yaml").write_text("channels: [telegram]\nchanel: [discord]\n", encoding="utf-8")
    (tmp_path / "s" / "ws").mkdir(parents=True)
    (tmp_path / "s" / "scenario.yaml").write_text("description: d\nworkspace: ws\nrn: {}\n", encoding="utf-8")
    (tmp_path / "x.md.j2").write_text("---\nid: x\norder: 1\nside: stable\nmodes: [full]\ntitel: X\n---\nX\n")
    cases = [
        ("run", tmp_path / "run.yaml", lambda: runfacts.load(tmp_path / "run.yaml"), 2),
        ("matrix", tmp_path / "matrix.yaml", lambda: load_matrix(tmp_path / "matrix.yaml", RunFacts()), 2),
        ("scenario", tmp_path / "s" / "scenario.yaml", lambda: load_scenario(tmp_path / "s"), 3),
        ("section", tmp_path / "x.md.j2", lambda: read_section(tmp_path / "x.md.j2"), 6),
    ]
    for name, path, read, line in cases:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text.split("\n---")[0][3:] if name == "section" else text)
        assert any("not allowed" in message for message in _errors(name, data)), name
        with pytest.raises(PromptcError) as caught:
            read()
        assert str(caught.value).startswith(f"{path}:{line}:"), (name, str(caught.value))


# --------------------------------------------------------------------------- a schema never refuses what promptc accepts

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "5m",
            "1h",
            "55m",
            "2h",
            "0m",
            "on",
            "off",
            "12",
            "main",
            "cron",
            "SOUL.md",
            "MEMORY.md#head",
            "a:b",
            "sections",
        ]
    ),
)
VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
"""JSON-like values, as a YAML or JSON file gives them."""

CHECKS = [*schemas.CHECK_SHAPES, *(valuechecks.choice("off", "once", "always"), valuechecks.choice("auto", "12", "24"))]
EXACT = {
    valuechecks.boolean,
    valuechecks.string,
    valuechecks.string_list,
    valuechecks.session_kinds,
    valuechecks.hook_specs,
}
"""Checks JSON Schema can say exactly (choices too): the schema accepts nothing more than they do."""


def _valid(shape: dict[str, Any], value: Any) -> bool:
    return jsonschema.Draft7Validator(shape).is_valid(value)


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: getattr(check, "__name__", repr(check)))
@settings(max_examples=300, deadline=None)
@given(value=VALUES)
def test_a_config_value_a_check_accepts_its_schema_accepts(check, value):
    shape = schemas.choice_shape(check) if isinstance(check, valuechecks.Choice) else schemas.CHECK_SHAPES[check].schema
    if check(value) is None:
        assert _valid(shape, value), value
    elif check in EXACT or isinstance(check, valuechecks.Choice):
        assert not _valid(shape, value), value


@pytest.mark.parametrize("name", [d.name for d in FACTS if d.fact.file])
@settings(max_examples=200, deadline=None)
@given(value=VALUES)
def test_a_run_fact_value_promptc_accepts_its_schema_accepts(name, value):
    shape = schemas.run_shape()["properties"][name]
    try:
        runfacts.converter(name)(value)
    except (ValueError, RunFactsError):
        return
    assert _valid(shape, value), value


# --------------------------------------------------------------------------- editors run JavaScript regexes


def _patterns(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [value["pattern"]] if isinstance(value.get("pattern"), str) else []
        return found + [p for item in value.values() for p in _patterns(item)]
    if isinstance(value, list):
        return [p for item in value for p in _patterns(item)]
    return []


def test_every_pattern_is_a_javascript_regex_that_means_the_same_there(tmp_path):
    """Editors check patterns with JavaScript's regexes, not Python's: each must compile there, and
    the one-line pattern must refuse a line break there too."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: JavaScript regexes cannot be checked")
    patterns = sorted({p for name in schemas.SCHEMAS for p in _patterns(schemas.SCHEMAS[name].make())})
    assert len(patterns) >= 7
    script = (
        "const [patterns, line] = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "for (const p of patterns) new RegExp(p, 'u');"
        "const re = new RegExp(line, 'u');"
        "console.log(JSON.stringify([re.test('ws'), re.test('a\\nb'), re.test('  ')]));"
    )
    done = subprocess.run(
        [node, "-e", script], input=json.dumps([patterns, schemas.ONE_LINE["pattern"]]), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [True, False, False]
