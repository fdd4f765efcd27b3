"""How section templates run (sections/environment.py): Jinja's immutable sandbox keeps user
templates away from Python's internals and from mutating what they read, and no template can make
a set, whose order changes from one process to the next."""

from __future__ import annotations

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc._lib.errors import TemplateError

# --------------------------------------------------------------------------- templates are sandboxed

_ESCAPE_META = "---\nid: escape\norder: 905\nside: volatile\nmodes: [full]\ntitle: Escape\n{when}---\n{body}\n"


@pytest.mark.parametrize(
    "when, body, message",
    [
        ("", "{{{{ lipsum.__globals__['os'].popen('touch {marker}').read() }}}}", "template failed: SecurityError"),
        (
            "when: \"lipsum.__globals__['os'].popen('touch {marker}').read() == ''\"\n",
            "hi",
            "'when' expression failed: SecurityError",
        ),
        (
            "",
            "{{% set t = sandbox %}}{{{{ t.update(enabled=true) }}}}{{{{ '{marker}' }}}}",
            "template failed: SecurityError",
        ),
    ],
    ids=["body", "when-gate", "mutating-a-mapping"],
)
def test_a_user_template_cannot_reach_python_internals(make_workspace, tmp_path, when, body, message):
    marker = tmp_path / "escaped"
    templates = tmp_path / "templates"
    templates.mkdir()
    text = _ESCAPE_META.format(when=when.format(marker=marker), body=body.format(marker=marker))
    (templates / "escape.md.j2").write_text(text, encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert message in info.value.message and info.value.location.path == str(templates / "escape.md.j2")
    assert not marker.exists()


# --------------------------------------------------------------------------- no unordered collection


@pytest.mark.parametrize(
    "body",
    [
        "{% for t in ({'b': 1, 'a': 2, 'c': 3}.keys() - ['x']) %}{{ t }}{% endfor %}",
        "{{ (sandbox.keys() - []) | list }}",
        "{% set d = {'z': 1, 'y': 2} %}{{ d.items() - [] }}",
    ],
)
def test_a_set_made_in_a_template_is_refused_when_rendered(make_workspace, tmp_path, body):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "sets.md.j2").write_text(
        f"---\nid: sets\norder: 850\nside: stable\nmodes: [full]\n---\n{body}\n", encoding="utf-8"
    )
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert (info.value.location.path, info.value.location.line) == (str(templates / "sets.md.j2"), 7)
    assert "gives a set, whose order changes from one process to the next" in info.value.message


def test_subtracting_numbers_still_works(make_workspace, tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "n.md.j2").write_text(
        "---\nid: n\norder: 850\nside: stable\nmodes: [full]\n---\nLeft: {{ 10 - tools | length }}\n", encoding="utf-8"
    )
    prompt = compile_prompt(
        Request(run=RunFacts(tools=("read", "exec")), workspace=make_workspace({}), template_dirs=(templates,))
    )
    assert "Left: 8" in prompt.stable


def test_tool_names_is_a_sorted_tuple_that_still_answers_membership(make_workspace, tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    body = "{{ tool_names | join(',') }} {{ 'exec' in tool_names }} {{ 'nope' in tool_names }}"
    (templates / "t.md.j2").write_text(
        f"---\nid: t\norder: 850\nside: stable\nmodes: [full]\n---\n{body}\n", encoding="utf-8"
    )
    prompt = compile_prompt(
        Request(
            run=RunFacts(tools=("Write", "exec", "read", "EXEC")),
            workspace=make_workspace({}),
            template_dirs=(templates,),
        )
    )
    assert "exec,read,write True False" in prompt.stable
