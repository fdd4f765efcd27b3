"""User variables (sections/uservars.py): declared in prompt.variables, valued from the config, an
agent's promptValues, the run facts and --var; read as vars.<name>, split by side like every
variable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc._lib.errors import ConfigError, PromptcError, RunFactsError, TemplateError

HOUSE = """\
---
id: house
order: 950
side: stable
modes: [full, minimal]
---
## House
We work for {{ vars.company }}.
"""

TONE = """\
---
id: tone
order: 3360
side: volatile
modes: [full, minimal]
---
Tone today: {{ vars.tone }}; company: {{ vars.company }}.
"""

CONFIG = """\
prompt:
  variables:
    company: {side: stable, description: who we work for}
    tone: {side: volatile, default: friendly}
  values:
    company: Acme
"""


@pytest.fixture
def project(tmp_path, make_workspace, write_yaml):
    """A workspace, a template dir with a stable and a volatile section, and a config declaring both variables."""
    templates = tmp_path / "mytemplates"
    templates.mkdir()
    (templates / "house.md.j2").write_text(HOUSE, encoding="utf-8")
    (templates / "tone.md.j2").write_text(TONE, encoding="utf-8")
    workspace = make_workspace({"SOUL.md": "# Soul\n"})
    config = write_yaml("config.yaml", CONFIG)
    return templates, workspace, config


def _args(project, *more: str) -> list:
    templates, workspace, config = project
    return ["render", "--config", config, "--templates", templates, "--workspace", workspace, *more]


def test_a_configured_value_renders_and_var_wins_over_config_and_run_file(run_cli, project, write_yaml):
    code, out, err = run_cli(*_args(project))
    assert (code, err) == (0, "")
    stable, volatile = out.split("<!-- PROMPT_CACHE_BOUNDARY -->")
    assert "We work for Acme." in stable
    assert "Tone today: friendly; company: Acme." in volatile
    run = write_yaml("run.yaml", "vars:\n  company: Globex\n  tone: terse\n")
    assert "We work for Globex." in run_cli(*_args(project, "--run", run))[1]
    out = run_cli(*_args(project, "--run", run, "--var", "company=Initech"))[1]
    assert "We work for Initech." in out and "Tone today: terse; company: Initech." in out


def test_an_agent_overrides_the_value_with_prompt_values(run_cli, project, write_yaml):
    templates, workspace, _ = project
    config = write_yaml(
        "agents.yaml",
        CONFIG
        + "agents:\n  list:\n    - id: main\n    - id: sales\n      promptValues:\n        company: Acme Sales\n",
    )
    base = ["render", "--config", config, "--templates", templates, "--workspace", workspace]
    assert "We work for Acme." in run_cli(*base)[1]
    assert "We work for Acme Sales." in run_cli(*base, "--agent", "sales")[1]
    code, out, _ = run_cli("config", "explain", "prompt.values.company", "--config", config, "--agent", "sales")
    assert code == 0
    assert out.splitlines()[0] == 'prompt.values.company = "Acme Sales"'
    assert "agents.yaml:12:9" in out  # the entry's promptValues.company line


def test_an_undeclared_name_in_a_template_fails_with_a_did_you_mean(project, write_yaml):
    templates, workspace, config = project
    (templates / "house.md.j2").write_text(HOUSE.replace("vars.company", "vars.compny"), encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace))
    assert info.value.location is not None
    assert (info.value.location.path, info.value.location.line) == (str(templates / "house.md.j2"), 8)
    assert "'vars.compny'" in info.value.message and "did you mean 'vars.company'?" in info.value.message


@pytest.mark.parametrize(
    "where",
    ["config", "run file", "flag"],
)
def test_an_undeclared_name_given_a_value_is_an_error_at_the_place_that_gave_it(run_cli, project, write_yaml, where):
    templates, workspace, config = project
    args = _args(project)
    if where == "config":
        config = write_yaml("typo.yaml", CONFIG + "    compny: Initech\n")
        args = ["render", "--config", config, "--templates", templates, "--workspace", workspace]
        expected = f"{config}:7:5: prompt.values.compny: no user variable 'compny' is declared in prompt.variables (did you mean 'company'?)"
    elif where == "run file":
        run = write_yaml("run.yaml", "channel: telegram\nvars:\n  compny: Initech\n")
        args += ["--run", run]
        expected = f"{run}:3:3: vars.compny: no user variable 'compny' is declared in prompt.variables (did you mean 'company'?)"
    else:
        args += ["--var", "compny=Initech"]
        expected = "--var compny=Initech: vars.compny: no user variable 'compny' is declared in prompt.variables (did you mean 'company'?)"
    code, out, err = run_cli(*args)
    assert (code, out) == (2, "")
    assert err == f"promptc: error: {expected}\n"


def test_a_stable_section_reading_a_volatile_variable_fails_with_its_file_and_line(project):
    templates, workspace, config = project
    (templates / "house.md.j2").write_text(HOUSE + "Tone: {{ vars.tone }}\n", encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace))
    assert (info.value.location.path, info.value.location.line) == (str(templates / "house.md.j2"), 9)
    assert info.value.message.startswith("stable section 'house' reads volatile user variable 'vars.tone'")


def test_get_with_a_default_cannot_hide_a_volatile_read_above_the_boundary(project):
    templates, workspace, config = project
    (templates / "house.md.j2").write_text(
        HOUSE + "{{ vars.get('tone', 'calm') }} {{ vars.get('nobody', 'none') }}\n", encoding="utf-8"
    )
    with pytest.raises(TemplateError, match="stable section 'house' reads volatile user variable 'vars.tone'"):
        compile_prompt(Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace))
    (templates / "house.md.j2").write_text(HOUSE + "{{ vars.get('nobody', 'none') }}\n", encoding="utf-8")
    assert (
        "none"
        in compile_prompt(Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace)).stable
    )


def test_a_variable_with_no_value_anywhere_is_an_error_naming_its_declaration(project, write_yaml):
    templates, workspace, _ = project
    config = write_yaml("bare.yaml", "prompt:\n  variables:\n    company: {side: stable}\n    tone: {side: volatile}\n")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(config_paths=(config,), template_dirs=(templates,), workspace=workspace))
    assert str(info.value.location) == f"{config}:3:15"  # the declaration's `side:`
    assert "prompt.variables.company: declared without a default and given no value" in info.value.message
    assert len(info.value.more) == 1 and "prompt.variables.tone" in info.value.more[0].message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-09-01", "got a date or time (quote it to keep it as text)"),
        ("{1: one}", "mapping keys must be text"),
    ],
)
def test_values_must_be_plain_data(write_yaml, value, message):
    from promptc.inputs import layers

    config = write_yaml("c.yaml", f"prompt:\n  variables:\n    x: {{side: stable}}\n  values:\n    x: {value}\n")
    with pytest.raises(ConfigError) as info:
        layers.load([config])
    assert message in info.value.message
    assert (info.value.location.line, info.value.location.column) == (5, 5)


def test_the_api_refuses_a_set_and_freezes_lists_and_mappings():
    with pytest.raises(RunFactsError, match="vars: company: expected plain data"):
        RunFacts(vars={"company": {"a", "b"}})
    run = RunFacts(vars={"team": ["ann", "bo"], "office": {"city": "Porto", "floor": 2}})
    assert run.vars["team"] == ("ann", "bo")
    assert list(run.vars["office"].items()) == [("city", "Porto"), ("floor", 2)]
    assert hash(run) == hash(RunFacts(vars={"team": ["ann", "bo"], "office": {"city": "Porto", "floor": 2}}))
    # 1, 1.0 and true render differently, so they must never share a cached turn.
    assert RunFacts(vars={"n": 1}) != RunFacts(vars={"n": 1.0}) != RunFacts(vars={"n": True})
    assert RunFacts(vars={"m": {"a": 1, "b": 2}}) != RunFacts(vars={"m": {"b": 2, "a": 1}})  # order renders


def test_reserved_names_and_bad_names_are_refused_in_the_declaration(write_yaml):
    from promptc.inputs import layers

    config = write_yaml("c.yaml", "prompt:\n  variables:\n    items: {side: stable}\n    2fast: {side: stable}\n")
    with pytest.raises(ConfigError) as info:
        layers.load([config])
    lines = info.value.lines()
    assert lines[0].endswith(
        "c.yaml:3:5: prompt.variables: key the string 'items' is reserved"
        " (in a template `vars.items` is the mapping's own method)"
    )
    assert lines[1].endswith(
        "prompt.variables: key the string '2fast' is not a variable name"
        " (letters, digits and _, not starting with a digit)"
    )


def test_mappings_and_lists_keep_the_order_written(run_cli, project, write_yaml):
    templates, workspace, _ = project
    config = write_yaml(
        "ordered.yaml",
        "prompt:\n  variables:\n    company: {side: stable}\n    tone: {side: volatile, default: calm}\n"
        "    team: {side: stable}\n    desks: {side: stable}\n  values:\n    company: Acme\n"
        "    team: [zed, amy, kim]\n    desks: {zulu: 3, alpha: 1, mike: 2}\n",
    )
    (templates / "house.md.j2").write_text(
        HOUSE
        + "{% for p in vars.team %}{{ p }} {% endfor %}|{% for k, v in vars.desks.items() %}{{ k }}={{ v }} {% endfor %}\n",
        encoding="utf-8",
    )
    out = run_cli("render", "--config", config, "--templates", templates, "--workspace", workspace)[1]
    assert "zed amy kim |zulu=3 alpha=1 mike=2" in out


def test_tojson_writes_vars_and_mapping_values_as_json(run_cli, project, write_yaml):
    templates, workspace, _ = project
    config = write_yaml(
        "j.yaml",
        "prompt:\n  variables:\n    company: {side: stable}\n    tone: {side: volatile, default: calm}\n"
        "    desks: {side: stable}\n  values:\n    company: Acme\n    desks: {zulu: 3, alpha: [1, 2]}\n",
    )
    (templates / "house.md.j2").write_text(
        HOUSE + "D={{ vars.desks | tojson }} A={{ vars | tojson }}\n", encoding="utf-8"
    )
    code, out, err = run_cli("render", "--config", config, "--templates", templates, "--workspace", workspace)
    assert code == 0, err
    line = next(line for line in out.splitlines() if line.startswith("D="))
    desks, everything = line[2:].split(" A=")
    assert json.loads(desks) == {"zulu": 3, "alpha": [1, 2]}
    assert json.loads(everything) == {"company": "Acme", "desks": {"zulu": 3, "alpha": [1, 2]}}  # no volatile tone


def test_context_and_json_show_where_each_value_came_from(run_cli, project, write_yaml):
    templates, workspace, config = project
    run = write_yaml("run.yaml", "vars:\n  tone: dry\n")
    base = ["context", "--config", config, "--templates", templates, "--workspace", workspace, "--run", run]
    code, out, _ = run_cli(*base, "--var", "company=Initech")
    assert code == 0
    assert '  vars.company  stable    "Initech"  --var company=Initech' in out
    assert f'  vars.tone     volatile  "dry"      {run}:2:3' in out
    data = json.loads(run_cli(*base, "--format", "json")[1])
    assert data["variables"] == [
        {
            "name": "company",
            "side": "stable",
            "value": "Acme",
            "origin": f"prompt.values.company ({config} ({config}:6:5))",
        },
        {"name": "tone", "side": "volatile", "value": "dry", "origin": f"{run}:2:3"},
    ]


def test_a_value_reaching_the_stable_part_is_the_same_in_a_warm_compiler(project):
    from promptc import Compiler

    templates, workspace, config = project
    with Compiler(config_paths=[config], template_dirs=[templates], workspace=workspace) as compiler:
        first = compiler.compile(RunFacts(vars={"company": "Initech"}))
        again = compiler.compile(RunFacts(vars={"company": "Initech"}))
        other = compiler.compile(RunFacts(vars={"company": "Globex"}))
    assert again is first
    assert "We work for Initech." in first.stable and "We work for Globex." in other.stable


def test_errors_are_promptc_errors_through_the_api(project):
    templates, workspace, config = project
    with pytest.raises(PromptcError):
        compile_prompt(
            Request(
                run=RunFacts(vars={"nobody": 1}),
                config_paths=(config,),
                template_dirs=(templates,),
                workspace=workspace,
            )
        )
    assert Path(config).is_file()
