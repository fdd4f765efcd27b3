"""`promptc lint`: metadata, variables, duplicates, reachability and syntax, as file:line:col."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def user_dir(tmp_path):
    """Write section files (name -> text) into a fresh user template dir."""
    directory = tmp_path / "sections"
    directory.mkdir()

    def write(files: dict[str, str]) -> Path:
        for name, text in files.items():
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
    assert lines[1].startswith(f"{directory}/greeting.md.j2:9:23: stable section 'greeting' reads volatile variable 'channel'")
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
    stable = "---\nid: gate\norder: 172\nside: stable\nmodes: [full]\nwhen: \"owners and tools\"\ntitle: Gate\n---\nx\n"
    broken = "---\nid: gate_two\norder: 173\nside: stable\nmodes: [full]\nwhen: \"timezone and\"\ntitle: Gate\n---\nx\n"
    directory = user_dir({"gate.md.j2": stable, "gate_two.md.j2": broken})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert f"{directory}/gate.md.j2:6:8: 'when' expression: stable section 'gate' reads volatile variable 'owners'" in out
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
    empty = "---\nid: blank\norder: 175\nside: stable\nmodes: [full]\ntitle: B\n---\n{# nothing yet #}\n{% set x = 1 %}\n"
    directory = user_dir({"blank.md.j2": empty})
    _, out, _ = run_cli("lint", "--templates", directory)
    assert out.startswith(f"{directory}/blank.md.j2:2:1: section 'blank' is unreachable: its body renders nothing")
    slotted = empty.replace("title: B", "title: B\nslot: interaction_style").replace("id: blank", "id: interaction_style")
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
    assert out.startswith(f"{directory}:1:1: template directory contributes no section and no partial: it holds no section file")


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ("{% include 'other.md.j2' %}", "'other.md.j2' is not allowed: includes and imports name a file under partials/"),
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
    (templates / "setter.md.j2").write_text(f"---\nid: setter\norder: 850\nside: stable\nmodes: [full]\ntitle: S\n---\n{body}")
    code, out, _ = run_cli("lint", "--templates", templates)
    assert code == 1
    assert "'nope'" in out and "'n'" not in out


# --------------------------------------------------------------------------- private attributes (issue 14 item 15)

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
