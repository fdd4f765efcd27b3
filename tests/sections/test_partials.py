"""Partials (sections/partials.py): include and import files under partials/ of the template dirs
(user dirs first, then the built-in ones), with the including section's context; nothing outside
them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptc import Compiler, Request, RunFacts, compile_prompt
from promptc._lib.errors import TemplateError
from promptc.sections import partials

SECTION = """\
---
id: house
order: 950
side: {side}
modes: [full, minimal]
---
{{% import "partials/macros.md.j2" as m %}}
## House
{{% include "partials/rules.md.j2" %}}
{{{{ m.bullet("last rule") }}}}
"""

RULES = "- Be kind.\n- Say sorry when wrong.\n"
MACROS = "{% macro bullet(text) %}- {{ text }} ({{ tool_names | length }} tools){% endmacro %}\n"


@pytest.fixture
def templates(tmp_path) -> Path:
    """A user template dir: one section that includes a partial and imports a macro."""
    root = tmp_path / "mytemplates"
    (root / "partials").mkdir(parents=True)
    (root / "house.md.j2").write_text(SECTION.format(side="stable"), encoding="utf-8")
    (root / "partials" / "rules.md.j2").write_text(RULES, encoding="utf-8")
    (root / "partials" / "macros.md.j2").write_text(MACROS, encoding="utf-8")
    return root


def _compile(templates: Path, workspace: Path, **run) -> object:
    return compile_prompt(Request(run=RunFacts(**run), template_dirs=(templates,), workspace=workspace))


def test_an_included_partial_and_an_imported_macro_render_with_the_sections_context(templates, make_workspace):
    prompt = _compile(templates, make_workspace({}), tools=("read", "exec"))
    assert "## House\n- Be kind.\n- Say sorry when wrong.\n- last rule (2 tools)" in prompt.stable


def test_a_partial_reading_a_volatile_variable_from_a_stable_section_names_the_partials_line(templates, make_workspace):
    (templates / "partials" / "rules.md.j2").write_text(RULES + "You are on {{ channel }}.\n", encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        _compile(templates, make_workspace({}), channel="telegram")
    assert (info.value.location.path, info.value.location.line) == (str(templates / "partials" / "rules.md.j2"), 3)
    assert info.value.message.startswith(
        "stable section 'house' reads volatile variable 'channel' in partial partials/rules.md.j2"
    )


def test_the_same_partial_may_read_it_from_a_volatile_section(templates, make_workspace):
    (templates / "house.md.j2").write_text(
        SECTION.format(side="volatile").replace("order: 950", "order: 3360"), encoding="utf-8"
    )
    (templates / "partials" / "rules.md.j2").write_text(RULES + "You are on {{ channel }}.\n", encoding="utf-8")
    prompt = _compile(templates, make_workspace({}), channel="telegram")
    assert "You are on telegram." in prompt.volatile


def test_a_macro_reading_a_volatile_variable_fails_in_the_macros_file(templates, make_workspace):
    (templates / "partials" / "macros.md.j2").write_text(
        "\n" + MACROS.replace("tools)", "tools on {{ channel }})"), encoding="utf-8"
    )
    with pytest.raises(TemplateError) as info:
        _compile(templates, make_workspace({}), channel="telegram")
    assert (info.value.location.path, info.value.location.line) == (str(templates / "partials" / "macros.md.j2"), 2)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../../etc/hostname", "'../../etc/hostname' is not allowed: '..' would leave the template dirs"),
        ("/etc/hostname", "'/etc/hostname' is not allowed"),
        ("partials/../../../etc/hostname", "'..' would leave the template dirs"),
        ("rules.md.j2", "includes and imports name a file under partials/"),
        ("partials/nope.md.j2", "partial 'partials/nope.md.j2' not found (looked in "),
    ],
)
def test_names_outside_partials_are_refused_at_the_include_line(templates, make_workspace, name, message):
    (templates / "house.md.j2").write_text(
        SECTION.format(side="stable").replace("partials/rules.md.j2", name), encoding="utf-8"
    )
    with pytest.raises(TemplateError) as info:
        _compile(templates, make_workspace({}))
    assert message in info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "house.md.j2"), 9)


def test_a_partial_that_links_out_of_its_template_dir_is_refused(templates, make_workspace, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the launch codes\n", encoding="utf-8")
    (templates / "partials" / "rules.md.j2").unlink()
    os.symlink(secret, templates / "partials" / "rules.md.j2")
    with pytest.raises(TemplateError, match="resolves to .*secret.txt, outside its template dir") as info:
        _compile(templates, make_workspace({}))
    assert "launch codes" not in str(info.value)


def test_a_link_inside_the_template_dir_is_followed(templates, make_workspace):
    (templates / "shared.md").write_text("- Shared rule.\n", encoding="utf-8")
    (templates / "partials" / "rules.md.j2").unlink()
    os.symlink(templates / "shared.md", templates / "partials" / "rules.md.j2")
    assert "- Shared rule." in _compile(templates, make_workspace({})).stable


def test_extends_is_refused_with_the_line(templates, make_workspace):
    (templates / "house.md.j2").write_text(
        SECTION.format(side="stable") + '{% extends "partials/rules.md.j2" %}\n', encoding="utf-8"
    )
    with pytest.raises(TemplateError, match="'{% extends %}' is not supported") as info:
        _compile(templates, make_workspace({}))
    assert info.value.location.line == 11


def test_a_user_partial_replaces_a_builtin_one_by_name(tmp_path, make_workspace):
    user = tmp_path / "user"
    (user / "partials").mkdir(parents=True)
    (user / "partials" / "workspace_file.md.j2").write_text(
        "{% macro block(file) %}FILE {{ file.name }}{% endmacro %}\n", encoding="utf-8"
    )
    prompt = compile_prompt(Request(template_dirs=(user,), workspace=make_workspace({"SOUL.md": "calm\n"})))
    assert "FILE SOUL.md" in prompt.stable and "<workspace_file" not in prompt.stable


def test_a_warm_compiler_sees_an_edited_added_and_removed_partial(templates, make_workspace):
    ws = make_workspace({})
    with Compiler(template_dirs=[templates], workspace=ws) as compiler:
        assert "- Be kind." in compiler.compile().stable
        (templates / "partials" / "rules.md.j2").write_text("- Be brief.\n", encoding="utf-8")
        assert "- Be brief." in compiler.compile().stable
        (templates / "partials" / "rules.md.j2").unlink()
        with pytest.raises(TemplateError, match="not found"):
            compiler.compile()
        (templates / "partials" / "rules.md.j2").write_text("- Back again.\n", encoding="utf-8")
        assert "- Back again." in compiler.compile().stable


def test_a_section_rendered_again_rereads_the_variables_its_partial_names(templates, make_workspace):
    # A warm Compiler keeps a section's output for the values of the variables it reads: those
    # of its partials count, or a new tool list would leave the old count in place.
    with Compiler(template_dirs=[templates], workspace=make_workspace({})) as compiler:
        for tools in (("read",), ("read", "exec"), ("read",), ("read", "exec", "write")):
            compiler.compile(RunFacts(tools=tools))
            assert f"- last rule ({len(tools)} tools)" in compiler.compile(RunFacts(tools=tools)).stable


def test_partial_names_are_checked_before_any_lookup():
    assert partials.check_name("partials/a/b.md.j2") is None
    for bad in ("", "/x", "partials/../x", "partials\\x", "partials//x", "x.md.j2", "partials/./x", "C:/x"):
        assert partials.check_name(bad) is not None, bad


def test_an_included_partial_keeps_its_last_newline(templates, make_workspace):
    (templates / "house.md.j2").write_text(
        SECTION.format(side="stable") + '{% include "partials/rules.md.j2" %}After.\n', encoding="utf-8"
    )
    assert "- Say sorry when wrong.\nAfter." in _compile(templates, make_workspace({})).stable
