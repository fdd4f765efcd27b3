"""`promptc lint`: static checks of section templates (metadata, variables, duplicates,
reachability, syntax), every problem reported as `file:line:col: message`."""

from __future__ import annotations

import argparse
import difflib
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import jinja2
from jinja2 import meta, nodes
from jinja2.visitor import NodeTransformer

from ..config import layers, yamlsrc
from ..errors import Location, TemplateError
from ..sections import catalogue
from ..sections.catalogue import SectionSpec
from ..sections.render import ENV
from ..sections.variables import STABLE, VOLATILE, side_of
from .common import EXIT_FOUND, EXIT_OK

METADATA_KEYS = catalogue.REQUIRED_KEYS + catalogue.OPTIONAL_KEYS
PLACEHOLDERS = {"id": "placeholder", "order": 0, "side": "stable", "modes": ["full"], "title": "Placeholder"}
"""Valid stand-ins for missing required keys, so the keys that are present still get checked."""
UNSUPPORTED_TAGS = {
    nodes.Include: "include",
    nodes.Import: "import",
    nodes.FromImport: "from ... import",
    nodes.Extends: "extends",
}
"""Tags that need another template: a section is one self-contained file, found by path."""


@dataclass(frozen=True, order=True)
class Finding:
    """One problem, sortable by place."""

    path: str
    """The template file."""
    line: int
    """1-based line in the file (the metadata block counts)."""
    column: int
    """1-based column."""
    message: str
    """What is wrong."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    @classmethod
    def from_error(cls, error: TemplateError) -> Finding:
        """A finding at a TemplateError's location."""
        where = error.location or Location()
        return cls(where.path or "<input>", where.line or 1, where.column or 1, error.message)


@dataclass(frozen=True)
class Result:
    """Every finding, plus how many section files were read."""

    findings: tuple[Finding, ...]
    """Sorted by file, line, column."""
    files: int
    """Section files checked."""


# --------------------------------------------------------------------------- the catalogue


def lint(template_dirs: Sequence[Path] = ()) -> Result:
    """Check the catalogue the compiler would see: the user dirs (first wins), then the built-ins.

    A built-in section replaced by a user section with the same id is not checked. A template
    dir that does not exist is bad input (TemplateError), as it is for the compiler.
    """
    findings: list[Finding] = []
    effective: dict[str, SectionSpec] = {}
    count = 0
    for directory, origin in [(Path(d), str(d)) for d in template_dirs] + [(catalogue.builtin_dir(), "builtin")]:
        specs, problems, files = _read_dir(directory, origin)
        findings += problems
        count += files
        for spec in specs:
            effective.setdefault(spec.id, spec)
    # Built-ins sort first among equal orders, so a clash is reported in the user's file.
    ordered = sorted(effective.values(), key=lambda spec: (spec.order, spec.origin != "builtin", spec.path))
    findings += _duplicate_orders(ordered)
    for spec in ordered:
        findings += check_section(spec)
    return Result(tuple(sorted(set(findings))), count)


def config_template_dirs(config_paths: Sequence[Path]) -> list[Path]:
    """`prompt.templateDirs` from these config files (with the built-in defaults under them)."""
    if not config_paths:
        return []
    return [Path(d) for d in layers.resolve(layers.load(config_paths), agent=None).template_dirs]


def _read_dir(directory: Path, origin: str) -> tuple[list[SectionSpec], list[Finding], int]:
    if not directory.is_dir():
        raise TemplateError("template directory not found", Location(str(directory)))
    paths = sorted(p for p in directory.glob(f"*{catalogue.SECTION_SUFFIX}") if p.is_file())
    specs, findings = [], []
    for path in paths:
        spec, problems = read_metadata(path, origin)
        findings += problems
        if spec is not None:
            specs.append(spec)
    return specs, findings + _duplicate_ids(specs), len(paths)


def _duplicate_ids(specs: Sequence[SectionSpec]) -> list[Finding]:
    first: dict[str, SectionSpec] = {}
    findings = []
    for spec in specs:
        if spec.id in first:
            message = f"duplicate section id '{spec.id}' (also in {first[spec.id].path})"
            findings.append(_at(spec, "id", message))
        first.setdefault(spec.id, spec)
    return findings


def _duplicate_orders(ordered: Sequence[SectionSpec]) -> list[Finding]:
    findings = []
    for before, after in itertools.pairwise(ordered):
        if before.order == after.order:
            message = f"duplicate section order {after.order} (also used by '{before.id}' in {before.path})"
            findings.append(_at(after, "order", message))
    return findings


def _at(spec: SectionSpec, key: str, message: str) -> Finding:
    where = spec.location(key)
    return Finding(spec.path, where.line or 1, _column_of_key(spec, key), message)


def _column_of_key(spec: SectionSpec, key: str) -> int:
    line = _file_lines(spec)[(spec.location(key).line or 1) - 1]
    return line.find(key) + 1 if key in line else 1


def _file_lines(spec: SectionSpec) -> list[str]:
    return Path(spec.path).read_text(encoding="utf-8").replace("\r\n", "\n").split("\n")


# --------------------------------------------------------------------------- metadata


def read_metadata(path: Path, origin: str) -> tuple[SectionSpec | None, list[Finding]]:
    """The section, or None and every metadata problem the file has (not only the first)."""
    try:
        return catalogue.read_section(path, origin), []
    except TemplateError as error:
        return None, _all_metadata_problems(path, error)


def _all_metadata_problems(path: Path, first: TemplateError) -> list[Finding]:
    """Re-read the metadata block to list every problem; `first` when it cannot even be parsed."""
    lines = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n").split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if lines[0].strip() != "---" or end is None:
        return [Finding.from_error(first)]
    try:
        located = yamlsrc.parse("\n".join([""] + lines[1:end]), str(path), TemplateError)
    except TemplateError as error:
        return [Finding.from_error(error)]
    if not isinstance(located.value, dict):
        return [Finding.from_error(first)]
    problems = list(_key_problems(located, path))
    present = located.value
    values = catalogue.metadata_problems({**PLACEHOLDERS, **present})
    problems += [_located(located, key, text) for key, text in values if key in present]
    return problems or [Finding.from_error(first)]


def _key_problems(located: yamlsrc.Located, path: Path) -> Iterable[Finding]:
    for key in located.value:
        if key not in METADATA_KEYS:
            match = difflib.get_close_matches(str(key), METADATA_KEYS, n=1)
            hint = f" (did you mean '{match[0]}'?)" if match else ""
            yield _located(located, key, f"unknown metadata key '{key}'{hint}")
    for key in catalogue.REQUIRED_KEYS:
        if key not in located.value:
            yield Finding(str(path), 1, 1, f"missing metadata key '{key}'")


def _located(located: yamlsrc.Located, key: str, message: str) -> Finding:
    where = located.where((key,))
    return Finding(located.path, where.line or 1, where.column or 1, message)


# --------------------------------------------------------------------------- one section


def check_section(spec: SectionSpec) -> list[Finding]:
    """Syntax, variables and reachability of one section with valid metadata."""
    findings: list[Finding] = []
    when = _parse_when(spec, findings)
    try:
        body = ENV.parse(spec.source, name=spec.path)
    except jinja2.TemplateSyntaxError as exc:
        findings.append(Finding(spec.path, exc.lineno or 1, 1, f"template syntax error: {exc.message}"))
        body = None
    if body is not None:
        findings += _variable_findings(spec, body, when_line=None)
        findings += _unsupported_tags(spec, body)
        findings += _private_access(spec, body, when_line=None)
    if when is not None:
        findings += _variable_findings(spec, when, when_line=spec.location("when").line or 1)
        findings += _private_access(spec, when, when_line=spec.location("when").line or 1)
    findings += _unreachable(spec, body, when is not None)
    return findings


def _unsupported_tags(spec: SectionSpec, body: nodes.Template) -> list[Finding]:
    """`include`, `import` and `extends`: the renderer serves no templates but the sections."""
    tags = [(node.lineno, name) for kind, name in UNSUPPORTED_TAGS.items() for node in body.find_all(kind)]
    message = "'{{% {} %}}' is not supported in a section: a section is one self-contained file"
    return [Finding(spec.path, line, 1, message.format(name)) for line, name in sorted(tags)]


def _private_access(spec: SectionSpec, tree: nodes.Template, when_line: int | None) -> list[Finding]:
    """`x._name`, `x['__name__']` and `x|attr('_name')`: the sandbox refuses them at render
    time, and they are how a template reaches Python internals (`lipsum.__globals__`)."""
    found = [(node.lineno, name) for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter))
             if (name := _private_name(node)) is not None]  # fmt: skip
    prefix = "" if when_line is None else "'when' expression: "
    message = "{}access to private attribute '{}' (templates run sandboxed; this fails when rendered)"
    return [Finding(spec.path, when_line or line, 1, message.format(prefix, name)) for line, name in sorted(found)]


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


def _parse_when(spec: SectionSpec, findings: list[Finding]) -> nodes.Template | None:
    if not spec.when:
        return None
    try:
        return ENV.parse("{% if " + spec.when + " %}{% endif %}")
    except jinja2.TemplateSyntaxError as exc:
        findings.append(_at(spec, "when", f"invalid 'when' expression: {exc.message}"))
        return None


def _variable_findings(spec: SectionSpec, tree: nodes.Template, when_line: int | None) -> list[Finding]:
    """Undeclared variables, and volatile ones read by a stable section (body or `when`)."""
    findings = []
    # jinja2.meta counts a name `{% set %}` inside a block as undeclared (it may be unset on
    # another branch); a name the template assigns anywhere is the template's own.
    assigned = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    for name in sorted(meta.find_undeclared_variables(tree) - assigned):
        problem = _variable_problem(spec, name)
        if problem is not None:
            line = when_line or _first_use(tree, name)
            prefix = "" if when_line is None else "'when' expression: "
            findings.append(Finding(spec.path, line, _column(spec, line, name), prefix + problem))
    return findings


def _variable_problem(spec: SectionSpec, name: str) -> str | None:
    side = side_of(name)
    if side is None:
        close = difflib.get_close_matches(name, [*STABLE, *VOLATILE], n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"undefined variable '{name}' (not declared in compiler/variables.py{hint})"
    if side == "volatile" and spec.side == "stable":
        return (
            f"stable section '{spec.id}' reads volatile variable '{name}';"
            " move the section below the boundary (side: volatile) or drop the variable"
        )
    return None


def _first_use(tree: nodes.Template, name: str) -> int:
    lines = [n.lineno for n in tree.find_all(nodes.Name) if n.name == name and n.ctx == "load"]
    return min(lines, default=1)


def _column(spec: SectionSpec, line: int, name: str) -> int:
    lines = _file_lines(spec)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    match = re.search(rf"(?<![\w.]){re.escape(name)}\b", text)
    return match.start() + 1 if match else 1


# --------------------------------------------------------------------------- reachability


_UNKNOWN = object()


def _unreachable(spec: SectionSpec, body: nodes.Template | None, when_parses: bool) -> list[Finding]:
    """A section no input can make appear: it has no provider slot, and either its body renders
    nothing (only comments, whitespace or `set` tags) or its `when` is false in every mode it
    lists, judged with `mode` bound to that mode and every other variable unknown."""
    if spec.slot is not None:
        return []  # a provider override can always fill a slot
    if body is not None and _uses_other_templates(body):
        return []  # reported as unsupported; what it would render is unknown
    if body is not None and _renders_nothing(body):
        return [_at(spec, "id", f"section '{spec.id}' is unreachable: its body renders nothing")]
    if when_parses and all(_decided_false(spec.when or "", mode) for mode in spec.modes):
        modes = ", ".join(sorted(spec.modes))
        return [_at(spec, "when", f"section '{spec.id}' is unreachable: 'when' is false in every mode it lists ({modes})")]
    return []


def _uses_other_templates(body: nodes.Template) -> bool:
    return next(body.find_all(tuple(UNSUPPORTED_TAGS)), None) is not None


def _renders_nothing(body: nodes.Template) -> bool:
    for output in body.find_all(nodes.Output):
        if any(not (isinstance(child, nodes.TemplateData) and not child.data.strip()) for child in output.nodes):
            return False
    return True


def _decided_false(when: str, mode: str) -> bool:
    """Whether `when` is constant-false once `mode` is known (parsed afresh: binding edits the tree)."""
    statement = ENV.parse("{% if " + when + " %}{% endif %}").body[0]
    assert isinstance(statement, nodes.If)
    test = statement.test
    value = _fold(_BindMode(mode).visit(test), nodes.EvalContext(ENV))
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
    except Exception:  # noqa: BLE001 - Impossible for unknown names, or whatever the folded operation raises
        return _UNKNOWN


def _fold_logic(node: nodes.And | nodes.Or, context: nodes.EvalContext) -> Any:
    deciding = isinstance(node, nodes.Or)  # the value that settles the result on its own
    left, right = _fold(node.left, context), _fold(node.right, context)
    for side in (left, right):
        if side is not _UNKNOWN and bool(side) == deciding:
            return side
    return _UNKNOWN if _UNKNOWN in (left, right) else right


# --------------------------------------------------------------------------- CLI


def configure(parser: argparse.ArgumentParser) -> None:
    """Add lint's flags."""
    parser.add_argument("--templates", action="append", type=Path, default=[], metavar="DIR",
                        help="user template dir, searched before the built-ins (repeatable)")  # fmt: skip
    parser.add_argument("--config", action="append", type=Path, default=[], metavar="FILE",
                        help="config file whose prompt.templateDirs are linted too (repeatable; later wins)")  # fmt: skip
    parser.set_defaults(handler=_lint)


def _lint(args: argparse.Namespace) -> int:
    result = lint([*args.templates, *config_template_dirs(args.config)])
    for finding in result.findings:
        print(finding)
    if result.findings:
        count, files = len(result.findings), len({f.path for f in result.findings})
        print(f"promptc lint: {_plural(count, 'problem')} in {_plural(files, 'file')}")
        return EXIT_FOUND
    print(f"promptc lint: clean ({result.files} section files checked)")
    return EXIT_OK


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
