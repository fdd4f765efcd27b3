"""The promises the Guarantees page (docs/guarantees.md) makes, driven with arbitrary input: bytes as
workspace files and SKILL.md, YAML and JSON as config and run facts, through the Python API and
the CLI. The only outcomes are a prompt, or error lines (one per problem, each `promptc: error:
...`, at most 20 and a count) and exit 2; every output is valid UTF-8; every skills block parses
as XML; the boundary marker is in the prompt exactly once."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import PromptcError, Request, compile_pending
from promptc.commands import cli
from promptc.inputs import runfacts

from support.paths import REPO
from support.strategies import hostile_text, yaml_values

MARKER = "<!-- PROMPT_CACHE_BOUNDARY -->"
ERROR_LINES = re.compile(r"(promptc: error: [^\n]+\n){1,21}")
SUMMARY_LINES = ("promptc: warning: ", "promptc: `promptc context` with the same flags")
"""How every line of render's warnings summary starts."""
CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
"""What a warning never holds: it is one printable line."""
CONFIG_KEYS = [
    "agents.defaults.workspace",
    "agents.defaults.bootstrapMaxChars",
    "agents.defaults.userTimezone",
    "agents.defaults.models",
    "agents.defaults.heartbeat",
    "agents.defaults.skills",
    "agents.list",
    "agents.defaults.docsPath",
    "prompt.cacheBoundaryMarker",
    "skills.entries",
    "skills.limits.maxSkillsPromptChars",
    "tools.experimental.planTool",
    "channels.telegram",
    "gateway",
    "agents.defaults.model",
    "colour",
]
"""Keys promptc reads, OpenClaw keys it does not use, and one nobody knows."""

file_bytes = st.one_of(st.binary(max_size=300), hostile_text.map(lambda t: t.encode("utf-8", "surrogatepass")))
skill_files = st.one_of(
    st.tuples(hostile_text, hostile_text).map(
        lambda nd: f"---\nname: {_yaml(nd[0])}\ndescription: {_yaml(nd[1])}\n---\nBody\n".encode(
            "utf-8", "surrogatepass"
        )
    ),
    file_bytes,
)
TEXT_FACTS = ["channel", "model", "host", "owners", "extra_prompt", "tts_hint", "startup_memory", "heartbeat_prompt"]
config_trees = st.one_of(
    st.just({}),
    st.fixed_dictionaries(
        {
            "agents.defaults.models": st.dictionaries(
                hostile_text, st.fixed_dictionaries({"alias": hostile_text}), max_size=2
            )
        }
    ),
    st.dictionaries(st.sampled_from(CONFIG_KEYS), yaml_values, max_size=4),
)
run_fact_maps = st.one_of(
    st.dictionaries(st.sampled_from(TEXT_FACTS), hostile_text, max_size=4),  # mostly valid: text reaches the prompt
    st.fixed_dictionaries(
        {"tools": st.lists(st.fixed_dictionaries({"name": hostile_text, "summary": hostile_text}), max_size=3)}
    ),
    st.dictionaries(st.sampled_from([*runfacts.FIELD_NAMES, "bogus"]), yaml_values, max_size=5),
)
documents = st.sampled_from(["yaml", "json", "raw"])


def _yaml(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, allow_unicode=False).strip().removesuffix("...").strip()


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for dotted, value in flat.items():
        node = tree
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {}) if isinstance(node.get(part, {}), dict) else {}
        node[leaf] = value
    return tree


def _document(tree: Any, kind: str, raw: bytes) -> tuple[str, bytes]:
    """A file name and its bytes: the tree as YAML or JSON (escapes kept), or arbitrary bytes."""
    if kind == "yaml":
        return "input.yaml", yaml.safe_dump(tree, allow_unicode=False).encode("ascii")
    if kind == "json":
        return "input.json", json.dumps(tree).encode("ascii")
    return "input.yaml", raw


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "soul": draw(file_bytes),
        "heartbeat": draw(file_bytes),
        "skill": draw(skill_files),
        "config": _document(_nest(draw(config_trees)), draw(documents), draw(file_bytes)),
        "run": _document(draw(run_fact_maps), draw(documents), draw(file_bytes)),
    }


def _lay_out(root: Path, scenario: dict[str, Any]) -> tuple[Path, Path, Path]:
    ws = root / "ws"
    (ws / "skills" / "s").mkdir(parents=True)
    (ws / "SOUL.md").write_bytes(scenario["soul"])
    (ws / "HEARTBEAT.md").write_bytes(scenario["heartbeat"])
    (ws / "skills" / "s" / "SKILL.md").write_bytes(scenario["skill"])
    (root / "config").mkdir()
    (root / "run").mkdir()
    config = root / "config" / scenario["config"][0]
    config.write_bytes(scenario["config"][1])
    run = root / "run" / scenario["run"][0]
    run.write_bytes(scenario["run"][1])
    return ws, config, run


def _check_prompt_text(stable: str, volatile: str, text: str, boundary: str | None) -> None:
    for part in (stable, volatile, text):
        part.encode("utf-8")  # raises on a lone surrogate
    if boundary is not None:
        assert text == stable + "\n\n" + boundary + "\n\n" + volatile
        assert text.count(boundary) == 1
    if "<available_skills>" in stable:
        block = stable[
            stable.index("<available_skills>") : stable.index("</available_skills>") + len("</available_skills>")
        ]
        ElementTree.fromstring(block)


def _cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args))
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios())
def test_any_input_gives_a_prompt_or_one_error_line(scenario):
    with tempfile.TemporaryDirectory() as temp:
        ws, config, run = _lay_out(Path(temp), scenario)
        code, out, err = _cli(
            "render", "--workspace", str(ws), "--config", str(config), "--run", str(run), "--format", "json"
        )
        if code == 2:
            assert out == "" and ERROR_LINES.fullmatch(err), err
            assert "internal error" not in err, err
            return
        # A prompt came out: standard error holds at most the warnings summary, one line per warning.
        assert code == 0 and all(line.startswith(SUMMARY_LINES) for line in err.splitlines()), err
        document = json.loads(out.encode("utf-8"))
        _check_prompt_text(document["stable"], document["volatile"], document["text"], document.get("boundary"))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(scenarios(), st.lists(st.tuples(st.sampled_from(CONFIG_KEYS), yaml_values), max_size=2))
def test_the_api_returns_a_prompt_or_raises_promptc_error(scenario, overrides):
    with tempfile.TemporaryDirectory() as temp:
        ws, config, run = _lay_out(Path(temp), scenario)
        sets = tuple(f"{key}={json.dumps(value)}" for key, value in overrides)
        try:
            prompt, _ = compile_pending(
                Request(run=runfacts.load(run), config_paths=(config,), overrides=sets, workspace=ws)
            )
        except PromptcError as error:
            assert "\n" not in str(error)
            return
        _check_prompt_text(prompt.stable, prompt.volatile, prompt.text, prompt.boundary)
        json.dumps([prompt.warnings, [f.path for f in prompt.files]], ensure_ascii=False).encode("utf-8")
        assert all(CONTROL.search(warning) is None for warning in prompt.warnings), prompt.warnings


def test_every_test_file_the_guarantees_page_names_exists_and_holds_tests():
    """The Guarantees page (docs/guarantees.md) says in prose which test file checks each promise:
    every file it names is a test file of the suite with tests in it, and it names many."""
    page = (REPO / "docs" / "guarantees.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(tests/[\w/]+\.py)`", page))
    for path in sorted(named):
        assert re.search(r"^def test_\w+", (REPO / path).read_text(encoding="utf-8"), re.M), path
    assert len(named) >= 25


def test_every_warning_is_one_printable_line(tmp_path):
    ws = tmp_path / "ws\npromptc: error: forged\x1b[2J"
    (ws / "skills" / "s\u2028x").mkdir(parents=True)
    (ws / "skills" / "s\u2028x" / "SKILL.md").write_text("---\nname: s\n---\n")  # no description: a warning
    prompt, _ = compile_pending(Request(workspace=ws, overrides=("agents.defaults.workspace=/srv/agent",)))
    assert len(prompt.warnings) == 2
    assert prompt.warnings[0].endswith(
        "its files were read from " + str(ws).replace("\n", "\\n").replace("\x1b", "\\x1b")
    )
    assert all(CONTROL.search(w) is None for w in prompt.warnings), prompt.warnings


request_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.binary(max_size=5),
    st.lists(st.one_of(st.text(max_size=10), st.integers(), st.none()), max_size=3),
    st.dictionaries(
        st.one_of(st.text(max_size=5), st.integers()), st.one_of(st.text(max_size=5), st.integers()), max_size=3
    ),
    st.sampled_from(["2026-01-31T09:30:00Z", "x=1", "\0", "linux", ".", "-"]),
)
"""Anything a caller might hand a Request field, right or wrong."""
REQUEST_FIELDS = [f.name for f in dataclasses.fields(Request) if f.name != "run"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(REQUEST_FIELDS), request_values, max_size=3))
def test_any_request_fields_give_a_prompt_or_one_promptc_error(fields):
    with tempfile.TemporaryDirectory() as temp:
        fields = {"workspace": temp, **fields}
        try:
            prompt, _ = compile_pending(Request(**fields))
        except PromptcError as error:
            assert "\n" not in str(error)
            return
        _check_prompt_text(prompt.stable, prompt.volatile, prompt.text, prompt.boundary)


numbers = st.builds(
    lambda prefix, digit, count: prefix + digit * count,
    st.sampled_from(["", "-", "0x", "-0x", "0b", "0", "1:"]),
    st.sampled_from(["1", "7", "9", "f"]),
    st.integers(min_value=1, max_value=20_000),
)
"""Whole numbers as YAML 1.1 writes them (decimal, hex, binary, octal, sexagesimal), short to very
long, some not valid in their base (which makes them text)."""


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(numbers, st.sampled_from(["agents.defaults.bootstrapMaxChars", "prompt.values.n", "host", "vars"]))
def test_a_number_of_any_length_gives_a_prompt_or_one_error_line(number, key):
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        run = root / "run.yaml"
        run.write_text({"host": f"host: {number}\n", "vars": f"vars: {{n: {number}}}\n"}.get(key, ""), encoding="utf-8")
        config = root / "c.yaml"
        config.write_text("prompt:\n  variables:\n    n: {side: stable}\n", encoding="utf-8")
        sets = () if key in ("host", "vars") else ("--set", f"{key}={number}")
        for command in ("render", "context"):
            code, out, err = _cli(command, "--workspace", temp, "--config", str(config), "--run", str(run), *sets)
            assert code in (0, 2), err
            assert "internal error" not in err and "set_int_max_str_digits" not in err, err[-300:]
            if code == 2:
                assert out == "" and ERROR_LINES.fullmatch(err), err[-300:]
