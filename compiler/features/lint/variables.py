"""Lint's checks of the variables a template reads: undeclared names, volatile ones in a stable
section, and user variables (`vars.NAME`) against their declarations, each with a did-you-mean."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from jinja2 import meta, nodes

from ...sections.variables import STABLE, VOLATILE, side_of
from .findings import Finding, Source, column


def findings(source: Source, variables: Mapping[str, str], when_line: int | None) -> list[Finding]:
    """Undeclared variables and user variables, and volatile ones read by a stable section
    (body, `when`, or a partial it includes)."""
    tree = source.tree
    # jinja2.meta counts a name `{% set %}` inside a block as undeclared (it may be unset on
    # another branch); a name the template assigns anywhere is the template's own.
    assigned = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    prefix = "" if when_line is None else "'when' expression: "
    findings = []
    for name in sorted(meta.find_undeclared_variables(tree) - assigned):
        problem = _variable_problem(source, name, variables)
        if problem is not None:
            line = when_line or _first_use(tree, name)
            findings.append(Finding(source.path, line, column(source.path, line, name), prefix + problem))
    if "vars" not in assigned:
        for line, name in _user_variables_read(tree):
            problem = _user_variable_problem(source, name, variables)
            if problem is not None:
                where = when_line or line
                findings.append(
                    Finding(source.path, where, column(source.path, where, f"vars.{name}"), prefix + problem)
                )
    return findings


def _variable_problem(source: Source, name: str, variables: Mapping[str, str]) -> str | None:
    side = side_of(name)
    through = f" through {source.via}" if source.via else ""
    if side is None:
        close = [f"vars.{name}"] if name in variables else difflib.get_close_matches(name, [*STABLE, *VOLATILE], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"undefined variable '{name}'{through} (not a template variable; the Template variables page of the docs lists them{hint})"
    if side == "volatile" and source.spec.side == "stable":
        return (
            f"stable section '{source.spec.id}' reads volatile variable '{name}'{through};"
            " move the section below the boundary (side: volatile) or drop the variable"
        )
    return None


def _user_variables_read(tree: nodes.Template) -> Iterable[tuple[int, str]]:
    """(line, name) for every `vars.<name>`, `vars['<name>']` and `vars.get('<name>', ...)`."""
    for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Call)):
        if isinstance(node, nodes.Call):
            if (
                _is_vars(node.node, "get")
                and node.args
                and isinstance(node.args[0], nodes.Const)
                and isinstance(node.args[0].value, str)
            ):
                yield node.lineno, node.args[0].value
            continue
        assert isinstance(node, (nodes.Getattr, nodes.Getitem))
        if not _is_vars(node.node):
            continue
        if isinstance(node, nodes.Getattr):
            yield node.lineno, node.attr
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
            yield node.lineno, node.arg.value


def _is_vars(node: nodes.Node, method: str | None = None) -> bool:
    """Whether `node` is the name `vars` (or, with `method`, the attribute `vars.<method>`)."""
    if method is not None:
        return isinstance(node, nodes.Getattr) and node.attr == method and _is_vars(node.node)
    return isinstance(node, nodes.Name) and node.name == "vars" and node.ctx == "load"


def _user_variable_problem(source: Source, name: str, variables: Mapping[str, str]) -> str | None:
    through = f" through {source.via}" if source.via else ""
    if name in ("get", "items", "keys", "values"):
        return None  # the mapping's own methods
    if name not in variables:
        close = difflib.get_close_matches(name, list(variables), n=1)
        hint = (
            f"; did you mean 'vars.{close[0]}'?"
            if close
            else ("" if variables else "; lint --config FILE reads the declarations")
        )
        return f"undefined user variable 'vars.{name}'{through} (not declared in prompt.variables{hint})"
    if variables[name] == "volatile" and source.spec.side == "stable":
        return (
            f"stable section '{source.spec.id}' reads volatile user variable 'vars.{name}'{through};"
            " move the section below the boundary or declare the variable side: stable"
        )
    return None


def _first_use(tree: nodes.Template, name: str) -> int:
    lines = [n.lineno for n in tree.find_all(nodes.Name) if n.name == name and n.ctx == "load"]
    return min(lines, default=1)
