"""`promptc lint`: metadata, variables, duplicates, reachability and syntax, as file:line:col."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc.sections import catalogue

from support.paths import REPO


@pytest.fixture
def user_dir(tmp_path):
    """Write section files (name -> text) into a fresh user template dir."""
    directory = tmp_path / "sections"
    directory.mkdir()

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text(text, encoding="utf-8")
        return directory

    return write


GREETING = """\
---
id: greeting
order: 150
side: stable
modes: [full]
title: Greeting
---
## Greeting
You are talking on {{ channel }}.
Say hello to {{ usr_name }}.
"""

CLASH = """\
---
id: clash
order: 800
side: stable
modes: [full, minimal]
title: Clash
---
Tools: {{ tools | length }}
"""


def test_the_builtin_templates_are_clean(run_cli):
    code, out, _ = run_cli("lint")
    assert code == 0
    assert out.startswith("promptc lint: clean (")
    assert len(out.splitlines()) == 1


def test_volatile_read_undefined_variable_and_duplicate_order_are_all_reported(run_cli, user_dir):
    directory = user_dir({"greeting.md.j2": GREETING, "clash.md.j2": CLASH})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    lines = out.splitlines()
    assert f"{directory}/clash.md.j2:3:1: duplicate section order 800 (also used by 'safety'" in lines[0]
    assert lines[1].startswith(
        f"{directory}/greeting.md.j2:9:23: stable section 'greeting' reads volatile variable 'channel'"
    )
    assert lines[2].startswith(f"{directory}/greeting.md.j2:10:17: undefined variable 'usr_name'")
    assert lines[3] == "promptc lint: 3 problems in 2 files"


def test_every_metadata_problem_of_a_file_is_reported(run_cli, user_dir):
    text = "---\nid: Broken\norder: 160\nside: sideways\nmodes: [full, tiny]\ntitle: Broken\ncolour: red\n---\nhi\n"
    directory = user_dir({"broken.md.j2": text})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    path = f"{directory}/broken.md.j2"
    assert out.splitlines()[:4] == [
        f"{path}:2:1: id must be snake_case, got 'Broken'",
        f"{path}:4:1: unknown side 'sideways' (expected stable or volatile)",
        f"{path}:5:1: unknown mode 'tiny' (expected full, minimal, none)",
        f"{path}:7:1: unknown metadata key 'colour'",
    ]


def test_missing_keys_and_a_misspelt_key_are_reported_together(run_cli, user_dir):
    directory = user_dir({"thin.md.j2": "---\nid: thin\nordre: 170\nside: stable\n---\nhi\n"})
    _, out, _ = run_cli("lint", "--templates", directory)
    path = f"{directory}/thin.md.j2"
    assert f"{path}:3:1: unknown metadata key 'ordre' (did you mean 'order'?)" in out
    for key in ("order", "modes"):
        assert f"{path}:1:1: missing metadata key '{key}'" in out
    assert "'title'" not in out  # optional: the id in title case


def test_a_syntax_error_names_the_line_in_the_file(run_cli, user_dir):
    text = "---\nid: loop\norder: 171\nside: volatile\nmodes: [full]\ntitle: Loop\n---\nfirst\n{% for t in tools %}\n"
    directory = user_dir({"loop.md.j2": text})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert out.startswith(f"{directory}/loop.md.j2:9:1: template syntax error: Unexpected end of template.")


def test_a_when_expression_is_checked_like_the_body(run_cli, user_dir):
    stable = '---\nid: gate\norder: 172\nside: stable\nmodes: [full]\nwhen: "owners and tools"\ntitle: Gate\n---\nx\n'
    broken = '---\nid: gate_two\norder: 173\nside: stable\nmodes: [full]\nwhen: "timezone and"\ntitle: Gate\n---\nx\n'
    directory = user_dir({"gate.md.j2": stable, "gate_two.md.j2": broken})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert (
        f"{directory}/gate.md.j2:6:8: 'when' expression: stable section 'gate' reads volatile variable 'owners'" in out
    )
    assert f"{directory}/gate_two.md.j2:6:1: invalid 'when' expression:" in out


@pytest.mark.parametrize(
    ("when", "modes", "unreachable"),
    [
        ("false", "[full]", True),
        ("mode == 'none'", "[full, minimal]", True),
        ("mode == 'none' and channel", "[full, minimal]", True),
        ("mode == 'full' or channel", "[minimal]", False),  # channel may still be set
        ("mode == 'minimal'", "[full, minimal]", False),
        ("not (mode != 'full')", "[full]", False),
        ("channel", "[full]", False),
    ],
)
def test_a_when_that_is_false_in_every_listed_mode_is_unreachable(run_cli, user_dir, when, modes, unreachable):
    text = f'---\nid: gated\norder: 174\nside: volatile\nmodes: {modes}\nwhen: "{when}"\ntitle: G\n---\nx\n'
    directory = user_dir({"gated.md.j2": text})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == (1 if unreachable else 0)
    assert (f"{directory}/gated.md.j2:6:1: section 'gated' is unreachable" in out) is unreachable


def test_an_empty_body_is_unreachable_unless_a_provider_slot_can_fill_it(run_cli, user_dir):
    empty = (
        "---\nid: blank\norder: 175\nside: stable\nmodes: [full]\ntitle: B\n---\n{# nothing yet #}\n{% set x = 1 %}\n"
    )
    directory = user_dir({"blank.md.j2": empty})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert out.startswith(f"{directory}/blank.md.j2:2:1: section 'blank' is unreachable: its body renders nothing")
    slotted = empty.replace("title: B", "title: B\nslot: interaction_style").replace(
        "id: blank", "id: interaction_style"
    )
    (directory / "blank.md.j2").write_text(slotted.replace("order: 175", "order: 400"), encoding="utf-8")
    assert run_cli("lint", "--templates", directory)[0] == 0


def test_a_user_section_overriding_a_builtin_keeps_its_order_without_a_clash(run_cli, user_dir):
    text = "---\nid: safety\norder: 800\nside: stable\nmodes: [full, minimal]\ntitle: Safety\n---\nBe careful.\n"
    assert run_cli("lint", "--templates", user_dir({"safety.md.j2": text}))[0] == 0


def test_a_duplicate_id_in_one_dir_is_reported(run_cli, user_dir):
    one = "---\nid: twin\norder: 176\nside: stable\nmodes: [full]\ntitle: T\n---\nx\n"
    directory = user_dir({"a.md.j2": one, "b.md.j2": one.replace("176", "177")})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert f"{directory}/b.md.j2:2:1: duplicate section id 'twin' (also in {directory}/a.md.j2)" in out


def test_a_missing_template_dir_is_bad_input(run_cli, tmp_path):
    code, out, err = run_cli("lint", "--templates", tmp_path / "nope")
    assert code == 2
    assert out == ""
    assert err == f"promptc: error: {tmp_path / 'nope'}: template directory not found\n"


def test_values_of_present_keys_are_checked_when_a_required_key_is_missing(run_cli, user_dir):
    directory = user_dir({"half.md.j2": "---\nid: Half-Done\nside: sideways\nmodes: [full]\n---\nhi\n"})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    path = f"{directory}/half.md.j2"
    assert f"{path}:2:1: id must be snake_case, got 'Half-Done'" in out
    assert f"{path}:3:1: unknown side 'sideways' (expected stable or volatile)" in out
    assert f"{path}:1:1: missing metadata key 'order'" in out
    assert "modes" not in out and "title" not in out


def test_a_directory_named_like_a_section_is_not_read_as_one(run_cli, user_dir):
    directory = user_dir({})
    (directory / "drafts.md.j2").mkdir()
    code, out, err = run_cli("lint", "--templates", directory)
    assert (code, err) == (1, "")  # the dir then contributes nothing, which is a finding
    assert out.startswith(
        f"{directory}:1:1: template directory contributes no section and no partial: it holds no section file"
    )


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        (
            "{% include 'other.md.j2' %}",
            "'other.md.j2' is not allowed: includes and imports name a file under partials/",
        ),
        ("{% import 'partials/macros.j2' as m %}", "partial 'partials/macros.j2' not found (looked in "),
        ("{% from '/etc/passwd' import greet %}", "'/etc/passwd' is not allowed"),
        ("{% extends 'base.j2' %}", "'{% extends %}' is not supported: a section is not a page"),
    ],
)
def test_tags_that_load_another_template_are_checked_not_unreachable(run_cli, user_dir, tag, message):
    text = f"---\nid: composed\norder: 178\nside: stable\nmodes: [full]\ntitle: C\n---\n{tag}\n"
    directory = user_dir({"composed.md.j2": text})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    assert out.splitlines()[0].startswith(f"{directory}/composed.md.j2:8:1: {message}")
    assert "unreachable" not in out


def test_config_template_dirs_are_linted_too(run_cli, user_dir, write_yaml):
    directory = user_dir({"greeting.md.j2": GREETING})
    config = write_yaml("config.yaml", f"prompt:\n  templateDirs: [{directory.name}]\n")
    code, out, _ = run_cli("lint", "--config", config)
    assert code == 1
    assert f"{directory}/greeting.md.j2:10:17: undefined variable 'usr_name'" in out


def test_a_bad_config_is_bad_input(run_cli, write_yaml):
    code, _, err = run_cli("lint", "--config", write_yaml("config.yaml", "prompt:\n  templateDir: [x]\n"))
    assert code == 2
    assert "config.yaml:2:3: unknown key 'prompt.templateDir' (did you mean 'templateDirs'?)" in err


def test_a_name_set_inside_a_block_is_not_undeclared(run_cli, tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    body = "{% if tools %}\n{% set n = tools | length %}\nTools: {{ n }} {{ nope }}\n{% endif %}\n"
    (templates / "setter.md.j2").write_text(
        f"---\nid: setter\norder: 850\nside: stable\nmodes: [full]\ntitle: S\n---\n{body}"
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    assert "'nope'" in out and "'n'" not in out


# --------------------------------------------------------------------------- private attributes

ESCAPE = """\
---
id: escape
order: 905
side: volatile
modes: [full]
title: Escape
when: "cycler.__init__.__globals__ is defined"
---
{{ lipsum.__globals__['os'].popen('id').read() }}
{{ channel|attr('_secret') }}
{{ channel.upper() }}
"""


def test_private_and_dunder_attribute_access_is_reported(run_cli, user_dir):
    directory = user_dir({"escape.md.j2": ESCAPE})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    path = directory / "escape.md.j2"
    assert f"{path}:7:1: 'when' expression: access to private attribute '__init__'" in out
    assert f"{path}:7:1: 'when' expression: access to private attribute '__globals__'" in out
    assert f"{path}:9:1: access to private attribute '__globals__' (templates run sandboxed" in out
    assert f"{path}:10:1: access to private attribute '_secret'" in out
    assert "upper" not in out


RANDOM = """\
---
id: chance
order: 905
side: stable
modes: [full]
title: Chance
when: "(['a'] | random) == 'a'"
---
Today: {{ ['tea', 'coffee'] | random }}
{{ lipsum(1) }}
{{ range(3) | list }}
"""


def test_text_that_changes_on_every_render_is_reported(run_cli, user_dir):
    directory = user_dir({"chance.md.j2": RANDOM})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    path = directory / "chance.md.j2"
    assert out.count("promptc's output is the same for the same inputs") == 3
    assert f"{path}:7:1: 'when' expression: the 'random' filter picks anew on every render" in out
    assert f"{path}:9:31: the 'random' filter picks anew on every render" in out
    assert f"{path}:10:4: 'lipsum()' makes new random text on every render" in out


# --------------------------------------------------------------------------- layout, partials, user variables


def test_a_section_in_a_sections_folder_is_linted_and_counted(run_cli, tmp_path):
    templates = tmp_path / "mytemplates"
    (templates / "sections").mkdir(parents=True)
    (templates / "sections" / "safety.md.j2").write_text(
        GREETING.replace("id: greeting", "id: safety"), encoding="utf-8"
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    assert f"{templates}/sections/safety.md.j2:9:23: stable section 'safety' reads volatile variable 'channel'" in out
    code, clean, _ = run_cli("lint")
    builtin_count = int(clean.split("(")[1].split()[0])
    order = next(spec.order for spec in catalogue.load().sections if spec.id == "safety")
    (templates / "sections" / "safety.md.j2").write_text(
        f"---\nid: safety\norder: {order}\nside: stable\nmodes: [full]\n---\nSafe.\n", encoding="utf-8"
    )
    (templates / "sections" / "extra.md.j2").write_text(
        "---\nid: extra\norder: 951\nside: stable\nmodes: [full]\n---\nMore.\n", encoding="utf-8"
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert (code, out) == (0, f"promptc lint: clean ({builtin_count + 1} sections and 1 partial checked)\n")


@pytest.mark.parametrize("name", ["safety.j2", "safety.md", "safety.jinja"])
def test_a_dir_of_lookalikes_is_a_finding_naming_them(run_cli, tmp_path, name):
    templates = tmp_path / "mytemplates"
    templates.mkdir()
    (templates / name).write_text(
        "---\nid: safety\norder: 900\nside: stable\nmodes: [full]\n---\nx\n", encoding="utf-8"
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    assert out.startswith(
        f"{templates}:1:1: template directory contributes no section and no partial: {name} looks like a template"
    )


MISNAMED = "is not read as one: section files are named NAME.md.j2, in the template dir or its sections/ folder"
IN_PARTIALS = "is in partials/, which holds partials, not sections: move it to the template dir or its sections/ folder"


@pytest.mark.parametrize(
    ("where", "why"),
    [
        ("draft.j2", MISNAMED),
        ("draft.MD.J2", MISNAMED),
        ("mysections/draft.md.j2", MISNAMED),
        ("sections/sub/draft.md.j2", MISNAMED),
        ("partials/draft.md.j2", IN_PARTIALS),
    ],
)
def test_a_section_file_that_is_not_read_beside_real_sections_is_a_finding_and_a_warning(
    run_cli, user_dir, make_workspace, where, why
):
    draft = "---\nid: draft\norder: 990\nside: stable\nmodes: [full]\n---\nDraft text.\n"
    directory = user_dir({"greeting.md.j2": CLASH.replace("order: 800", "order: 801"), where: draft})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    name = where.rsplit("/", 1)[-1]
    assert f"{directory}/{where}:1:1: '{name}' has section metadata but {why}" in out.splitlines()
    code, out, _err = run_cli("render", "--templates", directory, "--workspace", make_workspace({}), "--format", "json")
    assert code == 0 and "Draft text." not in out
    assert f"{directory}/{where}: has section metadata but {why}" in json.loads(out)["warnings"]


def test_a_partial_without_metadata_is_no_finding(run_cli, user_dir):
    directory = user_dir(
        {"greeting.md.j2": CLASH.replace("order: 800", "order: 801"), "partials/rules.md.j2": "---\n- a rule\n"}
    )
    assert run_cli("lint", "--templates", directory)[0] == 0


def _partial_dir(tmp_path, section_body: str, partials: dict[str, str], side: str = "stable"):
    templates = tmp_path / "mytemplates"
    (templates / "partials").mkdir(parents=True)
    (templates / "house.md.j2").write_text(
        f"---\nid: house\norder: 950\nside: {side}\nmodes: [full]\n---\n{section_body}", encoding="utf-8"
    )
    for name, text in partials.items():
        (templates / "partials" / name).write_text(text, encoding="utf-8")
    return templates


def test_lint_follows_includes_and_imports_with_the_sections_side(run_cli, tmp_path):
    templates = _partial_dir(
        tmp_path,
        '{% include "partials/a.md.j2" %}\n{% from "partials/m.md.j2" import hi %}{{ hi() }}\n',
        {
            "a.md.j2": "On {{ channel }}.\n{% include 'partials/b.md.j2' %}\n",
            "b.md.j2": "{{ tols }}\n",
            "m.md.j2": "{% macro hi() %}hi {{ model }} {{ tools | length }}{% endmacro %}\n",
        },
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    partials = templates / "partials"
    assert out.splitlines() == [
        f"{partials}/a.md.j2:1:7: stable section 'house' reads volatile variable 'channel' through partials/a.md.j2;"
        " move the section below the boundary (side: volatile) or drop the variable",
        f"{partials}/b.md.j2:1:4: undefined variable 'tols' through partials/b.md.j2"
        " (not a template variable; the Template variables page of the docs lists them; did you mean 'tools'?)",
        f"{partials}/m.md.j2:1:23: stable section 'house' reads volatile variable 'model' through partials/m.md.j2;"
        " move the section below the boundary (side: volatile) or drop the variable",
        "promptc lint: 3 problems in 3 files",
    ]


def test_the_same_partials_are_fine_from_a_volatile_section(run_cli, tmp_path):
    templates = _partial_dir(
        tmp_path, '{% include "partials/a.md.j2" %}\n', {"a.md.j2": "On {{ channel }}.\n"}, side="volatile"
    )
    (templates / "house.md.j2").write_text(
        (templates / "house.md.j2").read_text().replace("order: 950", "order: 3360"), encoding="utf-8"
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 0, out


def test_a_missing_partial_and_a_syntax_error_in_one_are_findings(run_cli, tmp_path):
    templates = _partial_dir(
        tmp_path,
        '{% include "partials/gone.md.j2" %}\n{% include "partials/bad.md.j2" %}\n',
        {
            "bad.md.j2": "ok\n{% if %}\n",
            "unused.md.j2": "{% for %}\n",
        },
    )
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    lines = out.splitlines()
    assert (
        lines[0]
        == f"{templates}/house.md.j2:7:1: partial 'partials/gone.md.j2' not found (looked in {templates}/partials, {REPO / 'templates' / 'partials'})"
    )
    assert lines[1].startswith(f"{templates}/partials/bad.md.j2:2:1: template syntax error")
    assert lines[2].startswith(f"{templates}/partials/unused.md.j2:1:1: template syntax error")


USER_VARS = "prompt:\n  variables:\n    company: {side: stable}\n    tone: {side: volatile}\n  values: {company: Acme, tone: calm}\n"


def test_user_variables_are_checked_against_prompt_variables(run_cli, tmp_path, write_yaml):
    templates = _partial_dir(
        tmp_path,
        "{{ vars.compny }} {{ vars.company }}\n{{ vars['tone'] }}\n{% include 'partials/p.md.j2' %}\n",
        {"p.md.j2": "{{ vars.tone }}\n"},
    )
    config = write_yaml("config.yaml", USER_VARS)
    code, out, _ = run_cli("lint", "--templates", templates, "--config", config)
    assert code == 1
    assert out.splitlines() == [
        f"{templates}/house.md.j2:7:4: undefined user variable 'vars.compny' (not declared in prompt.variables; did you mean 'vars.company'?)",
        f"{templates}/house.md.j2:8:1: stable section 'house' reads volatile user variable 'vars.tone';"
        " move the section below the boundary or declare the variable side: stable",
        f"{templates}/partials/p.md.j2:1:4: stable section 'house' reads volatile user variable 'vars.tone' through partials/p.md.j2;"
        " move the section below the boundary or declare the variable side: stable",
        "promptc lint: 3 problems in 2 files",
    ]
    _, without, _ = run_cli("lint", "--templates", templates)
    assert (
        "undefined user variable 'vars.company' (not declared in prompt.variables; lint --config FILE reads the declarations)"
        in without
    )


def test_get_on_vars_is_checked_like_a_plain_read(run_cli, tmp_path, write_yaml):
    templates = _partial_dir(
        tmp_path, "{{ vars.get('tone', 'calm') }} {{ vars.get('compny') }} {{ vars.get('company') }}\n", {}
    )
    code, out, _ = run_cli("lint", "--templates", templates, "--config", write_yaml("config.yaml", USER_VARS))
    assert code == 1
    assert out.splitlines() == [
        f"{templates}/house.md.j2:7:1: stable section 'house' reads volatile user variable 'vars.tone';"
        " move the section below the boundary or declare the variable side: stable",
        f"{templates}/house.md.j2:7:1: undefined user variable 'vars.compny' (not declared in prompt.variables; did you mean 'vars.company'?)",
        "promptc lint: 2 problems in 1 file",
    ]


def test_set_arithmetic_on_dictionary_keys_is_a_finding(run_cli, user_dir):
    body = "{% for k in ({'b': 1}.keys() - ['a']) %}{{ k }}{% endfor %}\n{{ 3 - 1 }}\n"
    directory = user_dir({"sets.md.j2": f"---\nid: sets\norder: 850\nside: stable\nmodes: [full]\n---\n{body}"})
    code, out, _ = run_cli("lint", "--templates", directory)
    assert code == 1
    assert out.splitlines()[0].startswith(
        f"{directory}/sets.md.j2:7:1: '-' of dictionary keys gives a set, whose order changes"
    )
    assert ":8:" not in out


# --------------------------------------------------------------------------- lint and render agree

OWNER = "prompt:\n  variables:\n    owner_name: {side: stable}\n  values: {owner_name: Ann}\n"
HOUSE_HEAD = "---\nid: house\norder: 150\nside: stable\nmodes: [full]\ntitle: House\n---\n## House\n"


def test_unknown_filter_unknown_test_and_a_bare_user_variable_are_located_findings(run_cli, user_dir, write_yaml):
    body = 'Hi {{ owner_name }}.\n{{ "x" | uppercase }}\n{% if 3 is shouty %}yes{% endif %}\n'
    directory = user_dir({"house.md.j2": HOUSE_HEAD + body})
    code, out, err = run_cli("lint", "--templates", directory, "--config", write_yaml("c.yaml", OWNER))
    assert (code, err) == (1, "")
    path = f"{directory}/house.md.j2"
    assert out.splitlines() == [
        f"{path}:9:7: undefined variable 'owner_name' (not a template variable; the Template variables page"
        " of the docs lists them; did you mean 'vars.owner_name'?)",
        f"{path}:10:10: unknown filter 'uppercase' (did you mean 'upper'?)",
        f"{path}:11:12: unknown test 'shouty'",
        "promptc lint: 3 problems in 1 file",
    ]


def test_an_unknown_filter_in_a_when_expression_is_a_finding(run_cli, user_dir):
    text = HOUSE_HEAD.replace("title: House\n", "title: House\nwhen: channel | shout\n") + "x\n"
    code, out, _ = run_cli("lint", "--templates", user_dir({"house.md.j2": text}))
    assert code == 1
    assert ": 'when' expression: unknown filter 'shout'" in out


@pytest.mark.parametrize(
    ("body", "column", "message"),
    [
        (
            "Hi {{ owner_name }}.\n",
            7,
            "undefined variable: 'owner_name' is undefined (did you mean 'vars.owner_name'?)",
        ),
        ('{{ "x" | uppercase }}\n', 10, "unknown filter 'uppercase' (did you mean 'upper'?)"),
        ("{% if 3 is shouty %}yes{% endif %}\n", 12, "unknown test 'shouty'"),
        ("{{ 3 is shouty }}\n", 9, "unknown test 'shouty'"),
        (
            "Hi {{ vars.owner_nam }}.\n",
            7,
            "undefined user variable 'vars.owner_nam': not declared in prompt.variables (did you mean 'vars.owner_name'?)",
        ),
    ],
)
def test_render_errors_carry_the_column_and_the_same_suggestion(
    run_cli, user_dir, write_yaml, tmp_path, body, column, message
):
    directory = user_dir({"house.md.j2": HOUSE_HEAD + body})
    (tmp_path / "ws").mkdir()
    args = ("--workspace", tmp_path / "ws", "--templates", directory, "--config", write_yaml("c.yaml", OWNER))
    code, out, err = run_cli("render", "--no-state", *args)
    assert (code, out) == (2, "")
    assert err == f"promptc: error: {directory}/house.md.j2:9:{column}: {message}\n"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.lists(
        st.sampled_from([*"{}%#|.()[]'\"=+-*~ \nabxis", "if ", "for ", "endif", "endfor", " in ", "is ", "vars"]),
        max_size=40,
    ).map("".join)
)
def test_no_template_text_makes_lint_fail_inside(run_cli, tmp_path_factory, body):
    directory = tmp_path_factory.mktemp("sections")
    (directory / "house.md.j2").write_text(HOUSE_HEAD + body, encoding="utf-8")
    code, _, err = run_cli("lint", "--templates", directory)
    assert code in (0, 1), err
