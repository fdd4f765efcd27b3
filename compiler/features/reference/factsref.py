"""The run facts page (every fact a run file may set: its flag, its side, what it accepts) and the
template variables page (every variable of each side, with what it holds)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any

from ...inputs import runfacts
from ...model.facts import Declared
from ...model.runfacts import FACTS, RunFacts
from ...model.runparts import ExecSession, Sandbox, Tool
from ...sections import variables
from .. import schemas
from .markdown import NOTICE, code, table

RUN_FACTS_INTRO = """# Run facts

What one turn tells promptc besides the config: a `--run` file (YAML or JSON) holds any of these
keys, and a fact with a flag can be given on the command line too (`--chat-type group`), over the
file. A fact with a side is also a template variable of its own name on that side of the cache
boundary; the others reach templates only through the variables built from several inputs (see
[Template variables](variables.md)). `promptc schema run` prints the same keys as a JSON Schema.
"""

VARIABLES_INTRO = """# Template variables

Every variable a section template may read. A stable section (above the cache boundary) sees only
the stable variables; a volatile section sees both. A stable section that reads a volatile
variable fails when it renders, at its file and line, and `promptc lint` reports it without
rendering. The variables named like a run fact are that fact ([Run facts](run-facts.md)); the
others are built from the config, the workspace and the turn. User variables, declared in
`prompt.variables`, are read as `vars.<name>`.
"""

RECORD_WORDS = {Tool: "tools", Sandbox: "mapping", ExecSession: "exec sessions"}


def run_facts_page() -> str:
    """The whole run facts page."""
    hints = typing.get_type_hints(RunFacts)
    defaults = {item.name: item for item in dataclasses.fields(RunFacts)}
    rows = [
        [
            code(d.name),
            code(runfacts.flag_name(d.name)) if d.fact.flag else "",
            d.fact.side or "",
            accepts(d, hints[d.name]),
            _default(defaults[d.name]),
            d.fact.doc,
        ]
        for d in FACTS
        if d.fact.file
    ]
    return NOTICE + RUN_FACTS_INTRO + "\n" + table(("key", "flag", "side", "accepts", "default", "meaning"), rows)


def accepts(declared: Declared, hint: Any) -> str:
    """What a run file may give a fact, in words."""
    if declared.choices:
        words = "one of " + ", ".join(f"`{choice}`" for choice in declared.choices)
        return words + (", or null" if declared.optional else "")
    base = schemas.without_none(hint)
    if base is bool:
        return "true or false" + (", or null" if declared.optional else "")
    if base is str:
        return "text" + (", or null" if declared.optional else "")
    if typing.get_origin(base) is tuple:
        item = typing.get_args(base)[0]
        return f"list of {_record_words(item)}" if item in RECORD_WORDS else "list of texts"
    if base in RECORD_WORDS:
        return _record_words(base)
    if typing.get_origin(base) is Mapping:
        return "mapping of variable names to plain data"
    raise TypeError(f"no words for run facts of type {base!r}")


def _record_words(cls: type) -> str:
    fields = "{" + ", ".join(item.name for item in dataclasses.fields(cls)) + "}"
    return f"{RECORD_WORDS[cls]}: a name, or `{fields}`" if cls is Tool else f"{RECORD_WORDS[cls]} `{fields}`"


def _default(field: dataclasses.Field) -> str:
    if isinstance(field.default, (str, bool)):
        return code(field.default)
    return ""


def variables_page() -> str:
    """The whole template variables page."""
    facts = {d.name for d in FACTS if d.fact.side is not None}
    parts = [NOTICE, VARIABLES_INTRO]
    for side, declared in (("stable", variables.STABLE), ("volatile", variables.VOLATILE)):
        rows = [[code(name), "run fact" if name in facts else "built", meaning] for name, meaning in declared.items()]
        parts.append(f"\n## {side.title()} variables\n\n")
        parts.append(table(("variable", "from", "meaning"), rows))
    return "".join(parts)
