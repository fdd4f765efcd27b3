"""The lint rules page: every kind of problem `promptc lint` reports, each with a template dir
that has it and what lint says about it, found by running lint on that dir as the page is made."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..._lib import resources
from ..._lib.errors import PromptcError
from .. import lint
from .markdown import NOTICE

DIR = "mytemplates"
"""The example template dir's name on the page."""
BUILTIN = "<built-in templates>"
"""How the page names the built-in template dir (its path depends on the installation)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of lint finding and an example that has it."""

    title: str
    """The rule's name."""
    why: str
    """What it catches, and why it matters."""
    files: Mapping[str, str]
    """The example template dir: file name (below the dir) -> text."""
    variables: Mapping[str, str] = field(default_factory=dict)
    """Declared user variables (name -> side), as `lint --config` reads them."""


def _section(body: str, *, name: str = "house", order: int = 950, extra: str = "") -> str:
    """A stable full-mode section file: its metadata (`extra`: more keys), then `body`."""
    return f"---\nid: {name}\norder: {order}\nside: stable\nmodes: [full]\n{extra}---\n{body}"


HOUSE = "sections/house.md.j2"
RULES: tuple[Rule, ...] = (
    Rule(
        "Section metadata",
        "Every problem of a section's metadata block, each at its line: unknown and missing keys, a "
        "malformed id, a side or mode that does not exist.",
        {HOUSE: "---\nid: House\norder: 950\nside: above\nmodez: [full]\n---\n## House Rules\n"},
    ),
    Rule(
        "Template syntax",
        "A Jinja syntax error, at its line.",
        {HOUSE: _section("{% if tools %}\n## House Rules\n")},
    ),
    Rule(
        "Undefined variable",
        "A name that is no template variable (see Template variables), with the nearest one.",
        {HOUSE: _section("## House Rules\nYou have {{ tols | length }} tools.\n")},
    ),
    Rule(
        "A stable section reads a volatile variable",
        "Above the cache boundary only the stable variables exist: the section would fail when it renders.",
        {HOUSE: _section("## House Rules\nYou are talking on {{ channel }}.\n")},
    ),
    Rule(
        "Through a partial",
        "A partial is checked with the side of the section that includes it, at the partial's line.",
        {
            HOUSE: _section('## House Rules\n{% include "partials/model.md.j2" %}\n'),
            "partials/model.md.j2": "You run on {{ model }}.\n",
        },
    ),
    Rule(
        "Undefined user variable",
        "`vars.<name>` must be declared in `prompt.variables` (`lint --config FILE` reads the declarations).",
        {HOUSE: _section("## House Rules\nYou work for {{ vars.compny }}.\n")},
        {"company": "stable"},
    ),
    Rule(
        "A stable section reads a volatile user variable",
        "A user variable declared `side: volatile` may only be read below the boundary.",
        {HOUSE: _section("## House Rules\nOn call today: {{ vars.on_call }}.\n")},
        {"on_call": "volatile"},
    ),
    Rule(
        "A partial that cannot be used",
        "An include or import naming a partial that does not exist, or a name outside `partials/`.",
        {HOUSE: _section('## House Rules\n{% include "partials/rules.md.j2" %}\n{% include "../notes.md.j2" %}\n')},
    ),
    Rule(
        "Private attributes",
        "Templates run sandboxed: reading `_private` or `__dunder__` attributes fails when the section renders.",
        {HOUSE: _section("## House Rules\n{{ tools.__class__ }}\n")},
    ),
    Rule(
        "An unordered set",
        "`-` between dictionary keys makes a set, whose order changes from one process to the next.",
        {
            HOUSE: _section(
                "{% set a = {'x': 1, 'y': 2} %}\n{% for key in a.keys() - {'y': 0}.keys() %}{{ key }}{% endfor %}\n"
            )
        },
    ),
    Rule(
        "extends",
        "A section is not a page: `{% extends %}` is refused; share text through partials instead.",
        {HOUSE: _section('{% extends "partials/page.md.j2" %}\n'), "partials/page.md.j2": "## Page\n"},
    ),
    Rule(
        "Unreachable section",
        "A section nothing can make appear: its body renders nothing, or its `when` is false in every mode it lists.",
        {
            HOUSE: _section("{# nothing yet #}\n"),
            "sections/later.md.j2": _section("## Later\n", name="later", order=951, extra="when: \"mode == 'none'\"\n"),
        },
    ),
    Rule(
        "Invalid `when`",
        "A `when` gate that is not a Jinja expression.",
        {HOUSE: _section("## House Rules\n", extra='when: "tools and"\n')},
    ),
    Rule(
        "Duplicate order",
        "Two sections with one `order`: the one in the user's dir is blamed, never the built-in.",
        {HOUSE: _section("## House Rules\n"), "sections/shop.md.j2": _section("## Shop\n", name="shop")},
    ),
    Rule(
        "A template dir that contributes nothing",
        "A dir with no `*.md.j2` section and no partial, naming the files that look like templates.",
        {"safety.j2": _section("## Safety\n", name="safety")},
    ),
    Rule(
        "A section file that is not read",
        "A file beside real sections that starts with a metadata block but is not named `*.md.j2`.",
        {HOUSE: _section("## House Rules\n"), "sections/shop.md": _section("## Shop\n", name="shop", order=951)},
    ),
    Rule(
        "Syntax of a partial no section uses",
        "A partial nobody includes is still checked for syntax.",
        {HOUSE: _section("## House Rules\n"), "partials/unused.md.j2": "{% for x in tools %}\n"},
    ),
)
"""Every rule on the page, in its order."""


def findings(rule: Rule) -> list[str]:
    """What `promptc lint --templates mytemplates` says about a rule's example, one line a finding."""
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / DIR
        for name, text in rule.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        try:
            found = [str(finding) for finding in lint.lint([root], rule.variables).findings]
        except PromptcError as exc:  # a dir lint refuses as a whole: its error line, as the CLI shows it
            found = [str(exc)]
        builtin = str(resources.templates_root())
        return [line.replace(temp + "/", "").replace(builtin, BUILTIN) for line in found]


def page() -> str:
    """The whole page."""
    parts = [NOTICE, INTRO]
    for rule in RULES:
        parts.append(f"\n## {rule.title}\n\n{rule.why}\n")
        if rule.variables:
            declared = ", ".join(f"{name}: {{side: {side}}}" for name, side in rule.variables.items())
            parts.append(f"\nWith `prompt.variables: {{{declared}}}` in the config.\n")
        for name, text in rule.files.items():
            parts.append(f"\n**`{DIR}/{name}`**\n\n```jinja\n{text}```\n")
        shown = "\n".join(findings(rule))
        parts.append(f"\n`promptc lint --templates {DIR}` reports:\n\n```text\n{shown}\n```\n")
    return "".join(parts)


INTRO = """# Lint rules

What `promptc lint` checks: the sections and partials the compiler would see (the dirs given with
`--templates` and a config's `prompt.templateDirs`, then the built-in ones), without rendering.
Each finding is `file:line:col: message`; lint exits 1 when there are any, 0 when there are none.
Each example below is a template dir, and its findings are what lint printed for it when this page
was made.
"""
