"""`promptc lint`: static checks of section templates and the partials they use (metadata,
layout, variables, user variables, duplicates, reachability, syntax), every problem reported as
`file:line:col: message`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes

from ..._lib.errors import PromptcError
from ...inputs import layers
from ...inputs import variables as config_variables
from ...sections import catalogue, reachability
from ...sections.catalogue import SectionSpec
from ...sections.environment import (
    ENV,
    EXTENDS_REFUSED,
    NONDETERMINISTIC,
    nondeterministic_message,
    unknown_name,
)
from ...sections.partials import Partials, check_name
from . import variables as lint_variables
from .findings import Finding, Result, Source, at, column

INCLUDING = (nodes.Include, nodes.Import, nodes.FromImport)
"""Tags that bring in a partial; lint follows them."""
SET_MAKERS = frozenset({"keys", "items"})
"""Dictionary views whose `-` gives a set (in hash order)."""

__all__ = ["Finding", "Result", "check_section", "config_inputs", "lint"]

# --------------------------------------------------------------------------- the catalogue


def lint(template_dirs: Sequence[Path] = (), variables: Mapping[str, str] | None = None) -> Result:
    """Check the catalogue the compiler would see: the user dirs (first wins), then the built-ins,
    and every partial a section includes or imports (checked with that section's side).

    `variables` are the declared user variables (name -> side). A built-in section replaced by
    a user section is not checked. A missing template dir is bad input, as for the compiler.
    """
    found, problems = catalogue.scan(template_dirs)
    findings = [Finding.from_error(problem) for problem in problems]
    findings += _near_misses(template_dirs, problems)
    declared = dict(variables or {})
    reached: set[str] = set()
    for spec in found.sections:
        findings += check_section(spec, found.partials, declared, reached)
    findings += _unused_partial_syntax(found.partials, reached)
    used = sum(1 for p in found.partials.by_name.values() if p.source is not None)
    return Result(tuple(sorted(set(findings))), len(found.sections), used)


def config_inputs(
    config_paths: Sequence[Path], stdin_layers: Sequence[layers.Layer] = ()
) -> tuple[list[Path], dict[str, str]]:
    """`prompt.templateDirs` and the declared user variables (name -> side) of these config
    files (and a `--config -` layer), with the built-in defaults under them."""
    if not config_paths and not stdin_layers:
        return [], {}
    configs = layers.load(config_paths, (), stdin_layers)
    dirs = [Path(d) for d in layers.resolve(configs, agent=None).template_dirs]
    return dirs, {decl.name: decl.side for decl in config_variables.declarations(configs)}


def _near_misses(template_dirs: Sequence[Path], problems: Sequence[PromptcError]) -> list[Finding]:
    """Files in a contributing template dir that open like a section but are not read as one."""
    empty = {str(p.location.path) for p in problems if p.location and "contributes no section" in p.message}
    return [
        Finding(str(path), 1, 1, f"'{path.name}' has section metadata but {why}")
        for directory in (Path(d) for d in template_dirs if str(d) not in empty)
        for path, why in catalogue.misplaced_sections(directory)
    ]


# --------------------------------------------------------------------------- one section


def check_section(
    spec: SectionSpec, partials: Partials, variables: Mapping[str, str], reached: set[str] | None = None
) -> list[Finding]:
    """Syntax, variables, partials and reachability of one section with valid metadata."""
    findings: list[Finding] = []
    when = _parse_when(spec, findings)
    if when is not None:
        findings += _unknown_names(Source(spec, spec.path, when), when_line=spec.location("when").line or 1)
    try:
        body = ENV.parse(spec.source, name=spec.path)
    except jinja2.TemplateSyntaxError as exc:
        findings.append(Finding(spec.path, exc.lineno or 1, 1, f"template syntax error: {exc.message}"))
        body = None
    if body is not None:
        findings += _check_tree(
            Source(spec, spec.path, body), partials, variables, set() if reached is None else reached
        )
    if when is not None:
        line = spec.location("when").line or 1
        findings += lint_variables.findings(Source(spec, spec.path, when), variables, when_line=line)
        findings += _private_access(Source(spec, spec.path, when), when_line=line)
        findings += _nondeterministic(Source(spec, spec.path, when), when_line=line)
    findings += _unreachable(spec, body, when is not None)
    return findings


def _check_tree(source: Source, partials: Partials, variables: Mapping[str, str], reached: set[str]) -> list[Finding]:
    """A section's or partial's body: variables, private access, unordered sets, extends, and
    each partial it includes or imports (once per section and side)."""
    findings = _unknown_names(source, when_line=None)
    findings += lint_variables.findings(source, variables, when_line=None)
    findings += _private_access(source, when_line=None)
    findings += _set_arithmetic(source)
    findings += _nondeterministic(source, when_line=None)
    findings += [Finding(source.path, node.lineno, 1, EXTENDS_REFUSED) for node in source.tree.find_all(nodes.Extends)]
    for node in source.tree.find_all(INCLUDING):
        assert isinstance(node, INCLUDING)
        findings += _follow(source, node, partials, variables, reached)
    return findings


def _follow(
    source: Source,
    node: nodes.Include | nodes.Import | nodes.FromImport,
    partials: Partials,
    variables: Mapping[str, str],
    reached: set[str],
) -> list[Finding]:
    """Check the partial a tag names (a name computed at render time cannot be followed)."""
    if not isinstance(node.template, nodes.Const) or not isinstance(node.template.value, str):
        return []
    name = node.template.value
    problem = check_name(name)
    found = partials.by_name.get(name) if problem is None else None
    if problem is None and found is None:
        problem = f"partial {name!r} not found (looked in {', '.join(partials.searched)})"
    elif found is not None and found.source is None:
        problem = f"partial {name!r} cannot be used: {found.problem}"
    if problem is not None:
        return [Finding(source.path, node.lineno, 1, problem)]
    assert found is not None and found.source is not None
    key = f"{source.spec.id}\0{name}"
    if key in reached:
        return []
    reached.add(key)
    reached.add(name)
    try:
        tree = ENV.parse(found.source, name=found.path)
    except jinja2.TemplateSyntaxError as exc:
        return [Finding(found.path, exc.lineno or 1, 1, f"template syntax error: {exc.message}")]
    return _check_tree(Source(source.spec, found.path, tree, name), partials, variables, reached)


def _unused_partial_syntax(partials: Partials, reached: set[str]) -> list[Finding]:
    """Syntax errors in partials no section reached (their variables depend on who includes them)."""
    findings = []
    for partial in partials.by_name.values():
        if partial.name in reached or partial.source is None:
            continue
        try:
            ENV.parse(partial.source, name=partial.path)
        except jinja2.TemplateSyntaxError as exc:
            findings.append(Finding(partial.path, exc.lineno or 1, 1, f"template syntax error: {exc.message}"))
    return findings


def _unknown_names(source: Source, when_line: int | None) -> list[Finding]:
    """Filters and tests Jinja does not have (render fails on them). Each is renamed in the tree
    to a known one afterwards, so the other checks can still compile it."""
    findings = []
    prefix = "" if when_line is None else "'when' expression: "
    for node in source.tree.find_all((nodes.Filter, nodes.Test)):
        assert isinstance(node, (nodes.Filter, nodes.Test))
        kind, known, stand_in = (
            ("filter", ENV.filters, "string") if isinstance(node, nodes.Filter) else ("test", ENV.tests, "defined")
        )
        if node.name in known:
            continue
        line = when_line or node.lineno
        place = column(source.path, line, node.name) if when_line is None else 1
        findings.append(Finding(source.path, line, place, prefix + unknown_name(kind, node.name, ENV)))
        node.name = stand_in
    return findings


def _private_access(source: Source, when_line: int | None) -> list[Finding]:
    """`x._name`, `x['__name__']` and `x|attr('_name')`: the sandbox refuses them at render
    time, and they are how a template reaches Python internals (`lipsum.__globals__`)."""
    found = [
        (node.lineno, name)
        for node in source.tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter))
        if (name := _private_name(node)) is not None
    ]
    prefix = "" if when_line is None else "'when' expression: "
    message = "{}access to private attribute '{}' (templates run sandboxed; this fails when rendered)"
    return [Finding(source.path, when_line or line, 1, message.format(prefix, name)) for line, name in sorted(found)]


def _private_name(node: nodes.Node) -> str | None:
    """The attribute name a node reads when it starts with an underscore."""
    if isinstance(node, nodes.Getattr):
        name: Any = node.attr
    elif isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Const):
        name = node.arg.value
    elif isinstance(node, nodes.Filter) and node.name == "attr" and node.args and isinstance(node.args[0], nodes.Const):
        name = node.args[0].value
    else:
        return None
    return name if isinstance(name, str) and name.startswith("_") else None


def _nondeterministic(source: Source, when_line: int | None) -> list[Finding]:
    """`lipsum` and the `random` filter: their text changes on every render (refused when rendered)."""
    filters = [(n.lineno, n.name) for n in source.tree.find_all(nodes.Filter) if n.name in NONDETERMINISTIC]
    calls = [(n.lineno, n.name) for n in source.tree.find_all(nodes.Name) if n.ctx == "load" and n.name == "lipsum"]
    found = filters + calls
    prefix = "" if when_line is None else "'when' expression: "
    return [
        Finding(
            source.path,
            when_line or line,
            column(source.path, line, name) if when_line is None else 1,
            prefix + nondeterministic_message(name),
        )
        for line, name in sorted(set(found))
    ]


def _set_arithmetic(source: Source) -> list[Finding]:
    """`d.keys() - x` (or `.items()`): a set, iterated in an order that changes with the hash seed."""

    def makes_set(node: nodes.Node) -> bool:
        return isinstance(node, nodes.Call) and isinstance(node.node, nodes.Getattr) and node.node.attr in SET_MAKERS

    message = (
        "'-' of dictionary keys gives a set, whose order changes from process to process (refused when"
        " rendered); keep an order: `a | reject('in', b) | list`"
    )
    return [
        Finding(source.path, node.lineno, 1, message)
        for node in source.tree.find_all(nodes.Sub)
        if makes_set(node.left) or makes_set(node.right)
    ]


def _parse_when(spec: SectionSpec, findings: list[Finding]) -> nodes.Template | None:
    if not spec.when:
        return None
    try:
        return ENV.parse("{% if " + spec.when + " %}{% endif %}")
    except jinja2.TemplateSyntaxError as exc:
        findings.append(at(spec, "when", f"invalid 'when' expression: {exc.message}"))
        return None


# --------------------------------------------------------------------------- reachability


def _unreachable(spec: SectionSpec, body: nodes.Template | None, when_parses: bool) -> list[Finding]:
    """A section no input can make appear: it has no provider slot, and either its body renders
    nothing (only comments, whitespace or `set` tags) or its `when` is false in every mode it
    lists, judged with `mode` bound to that mode and every other variable unknown."""
    if spec.slot is not None:
        return []  # a provider override can always fill a slot
    if body is not None and next(body.find_all((*INCLUDING, nodes.Extends)), None) is not None:
        return []  # what a partial renders is the partial's
    if body is not None and reachability.renders_nothing(body):
        return [at(spec, "id", f"section '{spec.id}' is unreachable: its body renders nothing")]
    if when_parses and all(reachability.decided_false(spec.when or "", mode) for mode in spec.modes):
        modes = ", ".join(sorted(spec.modes))
        return [
            at(spec, "when", f"section '{spec.id}' is unreachable: 'when' is false in every mode it lists ({modes})")
        ]
    return []
