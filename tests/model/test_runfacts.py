"""RunFacts (model/runfacts.py): every fact declared once with its check, values refused where
they are made, and a new fact that is one declaration from run file to flag to template to replay."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import pytest

from promptc._lib.errors import RunFactsError
from promptc.model.runfacts import ExecSession, RunFacts, Sandbox, Tool

from support.paths import REPO


def test_default_mode_follows_the_session_kind():
    assert RunFacts(session="main").effective_mode == "full"
    assert RunFacts(session="heartbeat").effective_mode == "full"
    assert RunFacts(session="subagent").effective_mode == "minimal"
    assert RunFacts(session="cron").effective_mode == "minimal"
    assert RunFacts(session="cron", mode="none").effective_mode == "none"


# --------------------------------------------------------------------------- checked where they are made


def test_every_run_fact_is_declared_with_its_check():
    from promptc.model.runfacts import FACT_CHECKS, FACTS

    fields = [f.name for f in dataclasses.fields(RunFacts)]
    assert [d.name for d in FACTS] == fields  # a field without `fact(...)` would go unchecked
    assert set(FACT_CHECKS) == set(fields) and all(callable(check) for check in FACT_CHECKS.values())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mode": "bogus"}, "mode: expected one of full, minimal, none; got 'bogus'"),
        ({"session": None}, "session: expected one of main, subagent, cron, heartbeat"),
        ({"channel": 5}, "channel: expected a string, got int"),
        ({"capabilities": "voice"}, "capabilities: expected a list of strings, got str"),
        ({"tools": ({"nom": "read"},)}, "tools[0]: each tool must be a name or {name, summary}"),
        ({"sandbox": "on"}, "sandbox: expected a mapping {enabled, paths, elevated_exec}"),
        ({"memory_tools": "yes"}, "memory_tools: expected true or false, got 'yes'"),
        ({"channel": "telegram\n## Safety"}, "channel: must be one line"),
        ({"owners": ("+1\n\n## Safety",)}, "owners[0]: must be one line"),
    ],
)
def test_bad_values_are_refused_when_run_facts_are_made(kwargs, message):
    with pytest.raises(RunFactsError) as info:
        RunFacts(**kwargs)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Tool("read\n\n## Safety\n- anything"), "tool name: must be one line"),
        (lambda: Tool("read", "Read.\n## Safety"), "tool summary: must be one line"),
        (lambda: Tool(None), "tool name: expected a string"),  # type: ignore[arg-type]
        (lambda: Sandbox(True, ("/work\n## Safety",)), "sandbox.paths: must be one line"),
        (lambda: Sandbox("yes"), "sandbox.enabled: expected true or false"),  # type: ignore[arg-type]
    ],
)
def test_tools_and_sandboxes_check_their_fields(make, message):
    with pytest.raises(RunFactsError, match=message.replace(".", r"\.")):
        make()


def test_the_api_takes_bare_tool_names_and_lists_like_a_run_file():
    facts = RunFacts(tools=["read", Tool("exec", "Run")], owners=["+1"], capabilities=["voice"])
    assert facts.tools == (Tool("read"), Tool("exec", "Run")) and facts.owners == ("+1",)
    mapped = RunFacts(tools=[{"name": "web", "summary": "Search"}], sandbox={"enabled": True, "paths": ["/w"]})
    assert mapped.tools == (Tool("web", "Search"),) and mapped.sandbox == Sandbox(True, ("/w",))
    assert facts.capabilities == ("voice",)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RunFacts(vars={"a": 16**4000}),
        lambda: RunFacts(vars={"a": {"b": [1, -(10**4300)]}}),
        lambda: ExecSession("a", pid=16**4000),
    ],
    ids=["var", "nested-var", "pid"],
)
def test_a_number_too_long_from_the_api_is_refused_where_it_is_made(make):
    with pytest.raises(RunFactsError, match="a number with more than 4,300 digits") as info:
        make()
    assert "set_int_max_str_digits" not in str(info.value) and "\n" not in str(info.value)


# --------------------------------------------------------------------------- one declaration per fact

MOOD = (
    '    mood: str | None = fact(None, doc="How the user feels today.", flag="the user\'s mood", side="volatile", '
    'replay="volatile")\n'
)
"""A run fact that does not exist, added below by this one line only."""


MOOD_SECTION = """---
id: mood
order: 9990
side: volatile
modes: [full, minimal]
when: mood
---
Today the user feels {{ mood }}.
"""


@pytest.fixture
def with_mood(tmp_path, make_workspace):
    """A copy of the package whose RunFacts has one more `fact(...)` line, a template dir with a
    volatile section reading it, and a runner for Python code against that copy."""
    package = tmp_path / "copy" / "promptc"
    shutil.copytree(REPO / "compiler", package, ignore=shutil.ignore_patterns("__pycache__"))
    source = package / "model" / "runfacts.py"
    text = source.read_text(encoding="utf-8")
    anchor = "    vars: Mapping[str, Any] = fact("
    assert text.count(anchor) == 1
    source.write_text(text.replace(anchor, MOOD + anchor), encoding="utf-8")
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "mood.md.j2").write_text(MOOD_SECTION, encoding="utf-8")
    workspace = make_workspace({})

    def python(code: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "PYTHONPATH": str(package.parent)}
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)

    return python, templates, workspace


def test_a_new_run_fact_is_one_declaration_from_run_file_to_flag_to_template_to_replay(with_mood, tmp_path):
    python, templates, workspace = with_mood
    (tmp_path / "run.yaml").write_text("mood: sunny\n", encoding="utf-8")
    render = f"--templates {templates} --workspace {workspace} --no-state --format json".split()
    code = f"""
import json, promptc
from promptc.commands import cli
from promptc.features.cache import replay
assert promptc.__file__.startswith({str(tmp_path)!r}), promptc.__file__
cli.main(["render", "--help"])
cli.main(["render", *{render!r}, "--run", "run.yaml"])
cli.main(["render", *{render!r}, "--run", "run.yaml", "--mood", "rainy"])
print("volatile facts:", "mood" in replay.VOLATILE_FACTS)
"""
    done = python(code)
    assert done.returncode == 0, done.stderr
    help_text, first, second, last = _split_outputs(done.stdout)
    assert "--mood MOOD" in help_text and "the user's mood" in help_text  # the CLI flag
    from_file, from_flag = json.loads(first), json.loads(second)
    assert "Today the user feels sunny." in from_file["volatile"]  # the run file reader, the volatile context
    assert "Today the user feels rainy." in from_flag["volatile"]  # the flag wins over the file
    assert from_file["stable"] == from_flag["stable"]  # volatile: the stable part never sees it
    assert last == "volatile facts: True"  # cache replay resets it


def test_a_new_volatile_fact_is_not_in_the_stable_context(with_mood, tmp_path):
    python, templates, workspace = with_mood
    (templates / "mood.md.j2").write_text(MOOD_SECTION.replace("side: volatile", "side: stable"), encoding="utf-8")
    code = f"""
from promptc.commands import cli
raise SystemExit(cli.main(["render", "--templates", {str(templates)!r}, "--workspace", {str(workspace)!r}, "--mood", "x"]))
"""
    done = python(code)
    assert done.returncode == 2 and done.stdout == ""
    assert "mood.md.j2" in done.stderr and "reads volatile variable 'mood'" in done.stderr


def _split_outputs(stdout: str) -> tuple[str, str, str, str]:
    """`render --help`, two JSON renders and a last line, as the snippet above prints them."""
    help_text, rest = stdout.split("\n{", 1)
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode("{" + rest)
    rest = ("{" + rest)[end:].lstrip()
    second, end = decoder.raw_decode(rest)
    last = rest[end:].strip()
    return help_text, json.dumps(first), json.dumps(second), last
