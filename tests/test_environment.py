"""How section templates run (compiler/sections/environment.py): the sandbox's bounds on `*` and
`**` (issue 14 review item 11), seen through a compile with a user template dir and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc.errors import TemplateError

META = "---\nid: big\norder: 850\nside: stable\nmodes: [full]\n{extra}---\nA first line.\n"
BODY_LINE = 8
"""The line of the body's second line, where each expression below is written."""


def _templates(tmp_path: Path, body: str, extra: str = "", partial: str | None = None) -> Path:
    root = tmp_path / "templates"
    (root / "partials").mkdir(parents=True)
    (root / "big.md.j2").write_text(META.format(extra=extra) + body + "\n", encoding="utf-8")
    if partial is not None:
        (root / "partials" / "grow.md.j2").write_text("A partial line.\n" + partial + "\n", encoding="utf-8")
    return root


TOO_LARGE = {
    "text": ("{{ 'a' * 10**15 }}", "'*' here would make a text of 1,000,000,000,000,000 characters; a template may make at most 10,000,000"),
    "text-just-over": ("{{ 'ab' * 5000001 }}", "'*' here would make a text of 10,000,002 characters; a template may make at most 10,000,000"),
    "count-first": ("{{ 10**15 * 'a' }}", "'*' here would make a text of 1,000,000,000,000,000 characters"),
    "list": ("{{ ([1, 2] * 500001) | length }}", "'*' here would make a list of 1,000,002 items; a template may make at most 1,000,000"),
    "tuple-from-facts": ("{{ (tools * 10**15) | length }}", "'*' here would make a list of 2,000,000,000,000,000 items"),
    "power": ("{{ 7 ** (10**12) }}", "'**' here would make a number with more than 4,300 digits"),
    "power-just-over": ("{{ 7 ** 5090 }}", "'**' here would make a number with more than 4,300 digits"),  # 4,302 digits
    "product-of-numbers": ("{{ (10**3000) * (10**3000) }}", "'*' here would make a number with more than 4,300 digits"),
}


@pytest.mark.parametrize("body, message", TOO_LARGE.values(), ids=TOO_LARGE)
def test_a_result_too_large_is_refused_at_the_templates_line(make_workspace, tmp_path, body, message):
    templates = _templates(tmp_path, body)
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(run=RunFacts(tools=("read", "exec")), workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.message.startswith(message), info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "big.md.j2"), BODY_LINE)


def test_the_cli_says_so_in_one_line_and_writes_nothing(run_cli, make_workspace, tmp_path):
    templates = _templates(tmp_path, "{{ 'a' * 10**10 }}")
    out = tmp_path / "prompt.txt"
    code, stdout, err = run_cli("render", "--workspace", make_workspace({}), "--templates", templates, "--out", out)
    assert (code, stdout) == (2, "") and not out.exists()
    assert err == (f"promptc: error: {templates / 'big.md.j2'}:{BODY_LINE}:1: '*' here would make a text of "
                   "10,000,000,000 characters; a template may make at most 10,000,000\n")  # fmt: skip


def test_a_partial_and_a_gate_are_bounded_too(make_workspace, tmp_path):
    templates = _templates(tmp_path, '{% include "partials/grow.md.j2" %}', partial="{{ 'x' * 10**12 }}")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert (info.value.location.path, info.value.location.line) == (str(templates / "partials" / "grow.md.j2"), 2)
    assert "'*' here would make a text of 1,000,000,000,000 characters" in info.value.message
    gated = _templates(tmp_path / "gated", "Body.", extra="when: \"(2 ** (10 ** 9)) > 1\"\n")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}, name="ws2"), template_dirs=(gated,)))
    assert info.value.message == "'when' expression: '**' here would make a number with more than 4,300 digits"
    assert info.value.location.path == str(gated / "big.md.j2")


def test_products_and_powers_within_the_limits_still_work(make_workspace, tmp_path):
    body = ("{{ 'ab' * 3 }} {{ 3 * 'c' }} {{ ([0] * 1000000) | length }} {{ 2 ** 10 }} {{ 6 * 7 }} {{ 2 ** -1 }}"
            " {{ 1 ** (10 ** 4000) }} {{ ('x' * 10000000) | length }}")
    prompt = compile_prompt(Request(workspace=make_workspace({}), template_dirs=(_templates(tmp_path, body),)))
    assert "ababab ccc 1000000 1024 42 0.5 1 10000000" in prompt.stable
