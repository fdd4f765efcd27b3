"""Whether a section can ever appear, judged from its template alone (for `promptc lint`)."""

from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.visitor import NodeTransformer

from .environment import ENV

_UNKNOWN = object()


def renders_nothing(body: nodes.Template) -> bool:
    """Whether the body outputs nothing but whitespace (only comments, blank lines, `set` tags)."""
    for output in body.find_all(nodes.Output):
        if any(not (isinstance(child, nodes.TemplateData) and not child.data.strip()) for child in output.nodes):
            return False
    return True


def decided_false(when: str, mode: str) -> bool:
    """Whether `when` is constant-false once `mode` is known and every other variable is not
    (parsed afresh: binding edits the tree)."""
    statement = ENV.parse("{% if " + when + " %}{% endif %}").body[0]
    assert isinstance(statement, nodes.If)
    value = _fold(_BindMode(mode).visit(statement.test), nodes.EvalContext(ENV))
    return value is not _UNKNOWN and not value


class _BindMode(NodeTransformer):
    """Replace the variable `mode` with a constant."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def visit_Name(self, node: nodes.Name) -> nodes.Node:
        return nodes.Const(self.mode, lineno=node.lineno) if node.name == "mode" else node


def _fold(node: nodes.Node, context: nodes.EvalContext) -> Any:
    """The expression's constant value, or _UNKNOWN; `and`/`or`/`not` need only known parts."""
    if isinstance(node, nodes.Not):
        value = _fold(node.node, context)
        return value if value is _UNKNOWN else not value
    if isinstance(node, (nodes.And, nodes.Or)):
        return _fold_logic(node, context)
    if not isinstance(node, nodes.Expr):
        return _UNKNOWN
    try:
        return node.as_const(context)
    except Exception:
        return _UNKNOWN


def _fold_logic(node: nodes.And | nodes.Or, context: nodes.EvalContext) -> Any:
    deciding = isinstance(node, nodes.Or)  # the value that settles the result on its own
    left, right = _fold(node.left, context), _fold(node.right, context)
    for side in (left, right):
        if side is not _UNKNOWN and bool(side) == deciding:
            return side
    return _UNKNOWN if _UNKNOWN in (left, right) else right
