"""How large a text, list or number a template may make (sections/limits.py): `*` and `**`, `~`,
`+`, `%`, the filters and text methods that grow a text, seen through a compile with a user
template dir and the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc._lib.errors import TemplateError

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
    "text": (
        "{{ 'a' * 10**15 }}",
        "'*' here would make a text of 1,000,000,000,000,000 characters; a template may make at most 10,000,000",
    ),
    "text-just-over": (
        "{{ 'ab' * 5000001 }}",
        "'*' here would make a text of 10,000,002 characters; a template may make at most 10,000,000",
    ),
    "count-first": ("{{ 10**15 * 'a' }}", "'*' here would make a text of 1,000,000,000,000,000 characters"),
    "list": (
        "{{ ([1, 2] * 500001) | length }}",
        "'*' here would make a list of 1,000,002 items; a template may make at most 1,000,000",
    ),
    "tuple-from-facts": (
        "{{ (tools * 10**15) | length }}",
        "'*' here would make a list of 2,000,000,000,000,000 items",
    ),
    "power": ("{{ 7 ** (10**12) }}", "'**' here would make a number with more than 4,300 digits"),
    "power-just-over": ("{{ 7 ** 5090 }}", "'**' here would make a number with more than 4,300 digits"),  # 4,302 digits
    "product-of-numbers": ("{{ (10**3000) * (10**3000) }}", "'*' here would make a number with more than 4,300 digits"),
}


@pytest.mark.parametrize("body, message", TOO_LARGE.values(), ids=TOO_LARGE)
def test_a_result_too_large_is_refused_at_the_templates_line(make_workspace, tmp_path, body, message):
    templates = _templates(tmp_path, body)
    with pytest.raises(TemplateError) as info:
        compile_prompt(
            Request(run=RunFacts(tools=("read", "exec")), workspace=make_workspace({}), template_dirs=(templates,))
        )
    assert info.value.message.startswith(message), info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "big.md.j2"), BODY_LINE)


def test_the_cli_says_so_in_one_line_and_writes_nothing(run_cli, make_workspace, tmp_path):
    templates = _templates(tmp_path, "{{ 'a' * 10**10 }}")
    out = tmp_path / "prompt.txt"
    code, stdout, err = run_cli("render", "--workspace", make_workspace({}), "--templates", templates, "--out", out)
    assert (code, stdout) == (2, "") and not out.exists()
    assert err == (
        f"promptc: error: {templates / 'big.md.j2'}:{BODY_LINE}:1: '*' here would make a text of "
        "10,000,000,000 characters; a template may make at most 10,000,000\n"
    )


def test_a_partial_and_a_gate_are_bounded_too(make_workspace, tmp_path):
    templates = _templates(tmp_path, '{% include "partials/grow.md.j2" %}', partial="{{ 'x' * 10**12 }}")
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert (info.value.location.path, info.value.location.line) == (str(templates / "partials" / "grow.md.j2"), 2)
    assert "'*' here would make a text of 1,000,000,000,000 characters" in info.value.message
    gated = _templates(tmp_path / "gated", "Body.", extra='when: "(2 ** (10 ** 9)) > 1"\n')
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}, name="ws2"), template_dirs=(gated,)))
    assert info.value.message == "'when' expression: '**' here would make a number with more than 4,300 digits"
    assert info.value.location.path == str(gated / "big.md.j2")


def test_products_and_powers_within_the_limits_still_work(make_workspace, tmp_path):
    body = (
        "{{ 'ab' * 3 }} {{ 3 * 'c' }} {{ ([0] * 1000000) | length }} {{ 2 ** 10 }} {{ 6 * 7 }} {{ 2 ** -1 }}"
        " {{ 1 ** (10 ** 4000) }} {{ ('x' * 10000000) | length }}"
    )
    prompt = compile_prompt(Request(workspace=make_workspace({}), template_dirs=(_templates(tmp_path, body),)))
    assert "ababab ccc 1000000 1024 42 0.5 1 10000000" in prompt.stable


DOUBLING = "{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s OP ns.s %}{% endfor %}{{ ns.s | length }}"
"""Doubles a text 40 times (2 ** 41 characters), far more than memory holds."""

GROWN = {
    "concat-doubling": (DOUBLING.replace("OP", "~"), "'~' here would make a text of 16,777,216 characters"),
    "plus-doubling": (DOUBLING.replace("OP", "+"), "'+' here would make a text of 16,777,216 characters"),
    "percent-doubling": (
        DOUBLING.replace("ns.s OP ns.s", "'%s%s' % (ns.s, ns.s)"),
        "'%' here would make a text of 16,777,216 characters",
    ),
    "list-plus": (
        "{% set ns = namespace(l=[1]) %}{% for i in range(25) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l | length }}",
        "'+' here would make a list of 1,048,576 items; a template may make at most 1,000,000",
    ),
    "join": ("{{ (['x' * 1000] * 20000) | join }}", "'join' here would make a text of 20,000,000 characters"),
    "join-method": ("{{ '-'.join(['x' * 1000] * 20000) }}", "'join' here would make a text of 20,019,999 characters"),
    "replace": (
        "{{ ('a' * 1000) | replace('a', 'b' * 100000) }}",
        "'replace' here would make a text of 100,000,000 characters",
    ),
    "replace-method": (
        "{{ ('a' * 1000).replace('a', 'b' * 100000) }}",
        "'replace' here would make a text of 100,000,000 characters",
    ),
    "replace-empty": (
        "{{ ('a' * 1000) | replace('', 'b' * 100000) }}",
        "'replace' here would make a text of 100,101,000 characters",
    ),
    "center": ("{{ 'x' | center(10**12) }}", "'center' here would make a text of 1,000,000,000,000 characters"),
    "ljust": ("{{ 'x'.ljust(10**12) }}", "'ljust' here would make a text of 1,000,000,000,000 characters"),
    "zfill": ("{{ 'x'.zfill(10**12) }}", "'zfill' here would make a text of 1,000,000,000,000 characters"),
    "expandtabs": (
        "{{ ('\\t' * 1000).expandtabs(100000) }}",
        "'expandtabs' here would make a text of 100,000,000 characters",
    ),
    "indent": ("{{ ('a\\n' * 1000) | indent(100000) }}", "'indent' here would make a text of 100,102,000 characters"),
    "wordwrap": (
        "{{ ('ab ' * 1000) | wordwrap(2, wrapstring='x' * 100000) }}",
        "'wordwrap' here would make a text of 150,103,000 characters",
    ),
    "batch": (
        "{{ [1] | batch(10**12, 0) | list | length }}",
        "'batch' here would make a list of 1,000,000,000,000 items",
    ),
    "slice": ("{{ [1] | slice(10**12) | list | length }}", "'slice' here would make a list of 1,000,000,000,000 items"),
    "printf-width": ("{{ '%999999999999d' % 1 }}", "'%' here would make a text of 999,999,999,999 characters"),
    "printf-star": ("{{ '%*d' % (10**12, 1) }}", "'%' here would make a text of 1,000,000,000,000 characters"),
    "format-filter": (
        "{{ '%999999999999s' | format('x') }}",
        "'format' here would make a text of 999,999,999,999 characters",
    ),
    "format-method": (
        "{{ '{:>999999999999}'.format('x') }}",
        "'format' here would make a text of 999,999,999,999 characters",
    ),
    "format-nested": (
        "{{ '{:>{}}'.format('x', 10**12) }}",
        "'format' here would make a text of 1,000,000,000,000 characters",
    ),
}


@pytest.mark.parametrize("body, message", GROWN.values(), ids=GROWN)
def test_every_way_to_grow_a_text_stops_at_the_limit(make_workspace, tmp_path, body, message):
    templates = _templates(tmp_path, body)
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.message.startswith(message), info.value.message
    assert (info.value.location.path, info.value.location.line) == (str(templates / "big.md.j2"), BODY_LINE)


def test_growing_within_the_limits_still_works(make_workspace, tmp_path):
    body = (
        "{{ 'a' ~ 1 ~ 'b' }} {{ 'x' + 'y' }} {{ [1] + [2] }} {{ '%03d|%-4s|%.2f' % (7, 'ab', 3.14159) }}"
        " {{ ['a', 'b'] | join('-') }} {{ 'abc' | replace('b', 'XY') }} {{ 'x' | center(5) }}|"
        " {{ 'a\\nb' | indent(2) }} {{ '{:>4}|{}'.format(1, 'z') }} {{ 'q'.ljust(3) }}| {{ '7'.zfill(3) }}"
        " {{ [1, 2, 3] | batch(2, 0) | list }} {{ '%s-%s' | format(1, 2) }} {{ (['x' * 1000] * 9000) | join | length }}"
        " {{ ['a', 'b'] | map('upper') | join(',') }}"
        " {{ '-'.join(['c', 'd'] | map('upper')) }} {{ ['e', 'f'] | select | join }}"
    )
    prompt = compile_prompt(Request(workspace=make_workspace({}), template_dirs=(_templates(tmp_path, body),)))
    assert (
        "a1b xy [1, 2] 007|ab  |3.14 a-b aXYc   x  | a\n  b    1|z q  | 007 [[1, 2], [3, 0]] 1-2 9000000 A,B C-D ef"
        in prompt.stable
    ), prompt.stable


STEPS = "this render takes more than 1,000,000 steps (loop turns and range items)"
ENDLESS = {
    "nested-loops": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", STEPS),
    "loop-over-a-filter": ("{% for i in range(100) %}{{ range(100000) | sum }}{% endfor %}", STEPS),
    "loop-in-a-partial": ("{% include 'partials/grow.md.j2' %}", STEPS),
    "pieces-that-add-up": (
        "{% for i in range(300) %}{{ 'x' * 9999999 }}{% endfor %}",
        "this section's output would pass 10,000,000 characters, the most a template may make",
    ),
}


@pytest.mark.parametrize("body, message", ENDLESS.values(), ids=ENDLESS)
def test_a_render_that_would_run_for_hours_or_hold_gigabytes_stops_at_a_budget(make_workspace, tmp_path, body, message):
    partial = "{% for i in range(1000) %}{% for j in range(1001) %}{% endfor %}{% endfor %}"
    templates = _templates(tmp_path, body, partial=partial)
    with pytest.raises(TemplateError) as info:
        compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert info.value.message.startswith(message), info.value.message


def test_loops_within_the_step_budget_render_and_each_section_has_its_own(make_workspace, tmp_path):
    # 400 + 400 outer steps, then 1,000 range items and 1,000 turns in each: 800,805 steps with
    # the last range, under the budget; two such sections together would be over one budget.
    body = "{% for i in range(400) %}{% for j in range(1000) %}{% endfor %}{% endfor %}{{ range(5) | sum }}"
    templates = _templates(tmp_path, body)
    (templates / "again.md.j2").write_text(
        "---\nid: again\norder: 851\nside: stable\nmodes: [full]\n---\n" + body + "\n", encoding="utf-8"
    )
    prompt = compile_prompt(Request(workspace=make_workspace({}), template_dirs=(templates,)))
    assert prompt.text.count("A first line.\n10") == 1 and "\n10\n" in prompt.text
