"""Render the selected sections into the stable part, the boundary and the volatile part.

Rendering is a pure function of its arguments: it never reads config, the environment or the
clock. A Renderer (one per Compiler) compiles each template source once and keeps the latest
stable parts.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta, nodes
from jinja2.environment import TemplateExpression
from jinja2.parser import Parser

from .._lib.errors import Location, TemplateError
from .._lib.lru import LRU
from .._lib.text import neutralise, normalise
from ..model.config import CacheConfig
from ..model.prompt import PromptUnit, RenderedSection
from ..model.units import DYNAMIC_UNIT, FILE_PREFIX, HEAD_SUFFIX, named_heads, order_files, reached, unit_name
from ..workspace.truncate import marker_start
from . import partials as partials_mod
from . import uservars
from .catalogue import SectionSpec, Selection
from .environment import BYTECODE_SALT, PartialLoader, PartialRefused, Refused, make_environment
from .variables import STABLE, VOLATILE, Contexts

JOIN = "\n\n"
DEFAULT_CACHE = CacheConfig()
"""The cache config a render without one uses: the default tiers."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """The renderer's result."""

    stable: str
    """Everything above the boundary."""
    volatile: str
    """Everything below the boundary."""
    text: str
    """The whole prompt: `stable + JOIN + marker + JOIN + volatile` (none mode: no marker)."""
    sections: tuple[RenderedSection, ...]
    """Rendered sections in output order."""
    outline: tuple[tuple[str, bool, str], ...]
    """Every section in prompt order (stable side first): (id, rendered?, why)."""
    units: tuple[PromptUnit, ...] = ()
    """The cache units: the stable part's (each followed by its separator they give `stable +
    JOIN`), then the Dynamic Project Context when the last tier reaches it."""


ALL_VARIABLES = frozenset(STABLE) | frozenset(VOLATILE)

Side = tuple[tuple[RenderedSection, ...], tuple[tuple[str, bool, str], ...]]
StableSide = tuple[tuple[RenderedSection, ...], tuple[tuple[str, bool, str], ...], tuple[PromptUnit, ...]]
PER_FILE_BLOCKS = ("head", "file")
"""A stable section whose template defines these two blocks is one cache unit for its `head`
and one per workspace file (its `file` block, with `file` bound); see project_context.md.j2."""
STABLE_CACHE_SIZE = 32
TEMPLATE_CACHE_SIZE = 512
SECTION_CACHE_SIZE = 1024
_ABSENT = ("absent",)
"""Stands in a section key for a variable its side does not have (the render then fails)."""


class Renderer:
    """Renders sections with templates compiled once, the most recent stable parts kept, and
    each section's output kept for the values of the variables it reads.

    A stable part is keyed on the selected sections (their sources included), the partials,
    the marker and the whole stable context; a section on the partials and the variables its
    template, its gate and the partials it includes or imports name (the globals are
    constants). Either way a hit is byte-identical to a fresh render by construction.
    """

    def __init__(self, stable_cache_size: int = STABLE_CACHE_SIZE, bytecode_cache: bool = True) -> None:
        self.loader = PartialLoader(self.compiled)
        self.env = make_environment(self.loader)
        self.bytecode = _bytecode_cache() if bytecode_cache else None
        self.templates: LRU[tuple[str, str], jinja2.Template] = LRU(TEMPLATE_CACHE_SIZE)
        self.gates: LRU[str, Any] = LRU(TEMPLATE_CACHE_SIZE)
        self.reads: LRU[tuple, tuple[str, ...]] = LRU(TEMPLATE_CACHE_SIZE)
        self.seen: LRU[tuple, bool] = LRU(TEMPLATE_CACHE_SIZE)
        self.sections: LRU[tuple, tuple[RenderedSection | None, str]] = LRU(SECTION_CACHE_SIZE)
        self.stable: LRU[tuple, StableSide] = LRU(stable_cache_size)

    def render(
        self,
        selections: Sequence[Selection],
        contexts: Contexts,
        marker: str,
        mode: str,
        partials: partials_mod.Partials = partials_mod.EMPTY,
        cache: CacheConfig = DEFAULT_CACHE,
    ) -> Rendered:
        """Render every active section on its side, then join the two sides around the marker.
        `cache` orders the project-context files by cache tier."""
        self.loader.partials = partials
        stable_side = tuple(s for s in selections if s.spec.side == "stable")
        volatile_side = tuple(s for s in selections if s.spec.side != "stable")
        stable_sections, stable_outline, units = self._render_stable(stable_side, contexts.stable, marker, cache)
        volatile_sections, volatile_outline = self._render_side(volatile_side, contexts.volatile, marker)
        stable = JOIN.join(s.text for s in stable_sections)
        volatile = JOIN.join(s.text for s in volatile_sections)
        if units and volatile_sections and volatile_sections[0].id in reached(cache):
            units += (PromptUnit(DYNAMIC_UNIT, volatile_sections[0].text),)
        parts = (p for p in (stable, volatile) if p) if mode == "none" else (stable, marker, volatile)
        sections, outline = stable_sections + volatile_sections, stable_outline + volatile_outline
        return Rendered(stable, volatile, JOIN.join(parts), sections, outline, units)

    def _render_stable(
        self, selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str, cache: CacheConfig
    ) -> StableSide:
        key = (selections, marker, self.loader.partials.key, freeze(context), cache.tiers)
        cached = self.stable.get(key)
        if cached is None:
            if "stable_files" in context:
                context = {**context, "stable_files": order_files(context["stable_files"], cache)}
            sections, outline = self._render_side(selections, context, marker)
            by_id = {s.spec.id: s for s in selections}
            units = tuple(u for section in sections for u in self._units(by_id[section.id], section, context, marker))
            cached = self.stable[key] = (sections, outline, _split_heads(units, context, cache))
        return cached

    def _units(
        self, selection: Selection, section: RenderedSection, context: Mapping[str, Any], marker: str
    ) -> list[PromptUnit]:
        """A rendered stable section as cache units: one, or (for a per-file section) its head
        and one per file, which joined give the section's text exactly (otherwise it stays one)."""
        whole = [PromptUnit(unit_name("section", section.id), section.text)]
        template = self._template(selection.spec) if selection.override is None else None
        if template is None or not all(name in template.blocks for name in PER_FILE_BLOCKS):
            return whole
        pieces = [(section.id, "section", self._block(template, "head", context, marker))]
        for file in context.get("stable_files", ()):
            pieces.append((file["name"], "file", self._block(template, "file", {**context, "file": file}, marker)))
        units = [PromptUnit(unit_name(kind, name), text) for name, kind, text in pieces if text]
        return units if JOIN.join(u.text for u in units) == section.text else whole

    def _block(self, template: jinja2.Template, name: str, context: Mapping[str, Any], marker: str) -> str:
        """One block of a template, normalised like a whole section."""
        return neutralise(normalise("".join(template.blocks[name](template.new_context(dict(context))))), marker)

    def _render_side(self, selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str) -> Side:
        rendered: list[RenderedSection] = []
        outline: list[tuple[str, bool, str]] = []
        for selection in selections:
            section, why = self._section(selection, context, marker)
            outline.append((selection.spec.id, section is not None, why))
            if section is not None:
                rendered.append(section)
        return tuple(rendered), tuple(outline)

    def _section(
        self, selection: Selection, context: Mapping[str, Any], marker: str
    ) -> tuple[RenderedSection | None, str]:
        """One section, rendered again only when a variable it reads has a new value."""
        spec = selection.spec
        if not selection.active:
            return None, selection.reason
        names = self._reads(spec)
        if names is None:
            return _render_one(self, selection, context, marker)
        values = tuple(freeze(context.get(name, _ABSENT)) for name in names)
        key = (
            spec.path,
            spec.source,
            spec.when,
            spec.side,
            selection.reason,
            selection.override,
            marker,
            self.loader.partials.key,
            values,
        )
        found = self.sections.get(key)
        if found is None:
            found = self.sections[key] = _render_one(self, selection, context, marker)
        return found

    def _reads(self, spec: SectionSpec) -> tuple[str, ...] | None:
        """The variables a section's template, gate and partials name, sorted; None the first
        time a section is rendered (finding them means parsing it again: worth it only once a
        section is rendered a second time, and a one-shot command never does)."""
        key = (spec.path, spec.source, spec.when, self.loader.partials.key)
        names = self.reads.get(key)
        if names is None and key not in self.seen:
            self.seen[key] = True
            return None
        if names is None:
            try:
                found = self._names_read(spec.source, set())
                if spec.when:
                    found |= meta.find_undeclared_variables(self.env.parse("{% if " + spec.when + " %}{% endif %}"))
            except jinja2.TemplateSyntaxError:
                found = set(ALL_VARIABLES)  # the render reports the error; key on everything
            names = self.reads[key] = tuple(sorted(found))
        return names

    def _names_read(self, source: str, seen: set[str]) -> set[str]:
        """Variables a template names, with those of the partials it includes or imports."""
        tree = self.env.parse(source)
        names = set(meta.find_undeclared_variables(tree))
        for name in meta.find_referenced_templates(tree):
            if name is None:  # a name computed at render time: any variable may be read
                return set(ALL_VARIABLES)
            partial = self.loader.partials.by_name.get(name)
            if name not in seen and partial is not None and partial.source is not None:
                seen.add(name)
                names |= self._names_read(partial.source, seen)
        return names

    def gate_passes(self, spec: SectionSpec, context: Mapping[str, Any]) -> bool:
        """Evaluate a section's `when` expression against the context of its side. A bare
        variable (`owners`) or its negation (`not owners`), the usual gate, is the truth of its
        value in the context, as Jinja would have it, without compiling an expression; a name the
        context lacks goes to Jinja, for its error."""
        when = spec.when or "true"
        try:
            simple = _SIMPLE_GATE.fullmatch(when)
            if simple is not None and simple["name"] in context and simple["name"] not in _JINJA_WORDS:
                return bool(context[simple["name"]]) is not bool(simple["not"])
            expression = self.gates.get(when)
            if expression is None:
                expression = self.gates[when] = self._expression(when)
            return bool(expression(**context))
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"invalid 'when' expression: {exc.message}", spec.location("when")) from exc
        except jinja2.UndefinedError as exc:
            raise TemplateError(_undefined_message(spec, exc, None), spec.location("when")) from exc
        except (uservars.UserVariableError, Refused) as exc:
            raise TemplateError(f"'when' expression: {_problem(spec, exc)}", spec.location("when")) from exc
        except Exception as exc:  # anything the expression itself raised (1/0, "a" + 1, ...)
            raise TemplateError(
                f"'when' expression failed: {type(exc).__name__}: {exc}", spec.location("when")
            ) from exc

    def render_template(self, spec: SectionSpec, context: Mapping[str, Any]) -> str:
        """Render one section template; errors name the file and line where they happened (the
        section, or the partial it includes)."""
        try:
            return self._template(spec).render(context)
        except jinja2.TemplateSyntaxError as exc:
            path = exc.filename or spec.path
            raise TemplateError(f"template syntax error: {exc.message}", Location(path, exc.lineno, 1)) from exc
        except jinja2.UndefinedError as exc:
            where = self._place(exc, spec)
            raise TemplateError(_undefined_message(spec, exc, self._partial_at(where)), where) from exc
        except (uservars.UserVariableError, Refused, PartialRefused, jinja2.TemplateNotFound) as exc:
            raise TemplateError(_problem(spec, exc), self._place(exc, spec)) from exc
        except RecursionError as exc:
            raise TemplateError("partials include each other without end", self._place(exc, spec)) from exc
        except Exception as exc:  # anything the template's own expressions raised
            where = self._place(exc, spec)
            raise TemplateError(f"template failed: {type(exc).__name__}: {exc}", where) from exc

    def _place(self, exc: BaseException, spec: SectionSpec) -> Location:
        """The innermost template line of the traceback: in the section or in a partial."""
        paths = {spec.path} | {p.path for p in self.loader.partials.by_name.values()}
        path, line = spec.path, None
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename in paths:
                path, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
            tb = tb.tb_next
        return Location(path, line, 1)

    def _partial_at(self, where: Location) -> str | None:
        return next((p.name for p in self.loader.partials.by_name.values() if p.path == where.path), None)

    def _template(self, spec: SectionSpec) -> jinja2.Template:
        """The compiled template for this exact source."""
        return self.compiled(spec.path, spec.source)

    def compiled(self, path: str, source: str) -> jinja2.Template:
        """A section or partial compiled once per source (with its file name, so errors and
        tracebacks point at the file)."""
        key = (path, source)
        template = self.templates.get(key)
        if template is None:
            code = self._code(path, source, lambda: self.env.compile(source, name=path, filename=path))
            template = self.templates[key] = self.env.template_class.from_code(
                self.env, code, self.env.make_globals(None)
            )
        return template

    def _expression(self, when: str) -> TemplateExpression:
        """What `Environment.compile_expression(when, undefined_to_none=False)` gives, with its
        code kept in the bytecode cache like a template's."""

        def compile_it() -> Any:
            parser = Parser(self.env, when, state="variable")
            expression = parser.parse_expression()
            if not parser.stream.eos:
                raise jinja2.TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
            expression.set_environment(self.env)
            body = [nodes.Assign(nodes.Name("result", "store"), expression, lineno=1)]
            return self.env.compile(nodes.Template(body, lineno=1))

        code = self._code(f"<when {when}>", when, compile_it)
        return TemplateExpression(self.env.template_class.from_code(self.env, code, self.env.make_globals(None)), False)

    def _code(self, name: str, source: str, compile_it: Callable[[], Any]) -> Any:
        """Compiled code for a source, from Jinja's bytecode cache when an earlier process left
        it there (a cold `promptc render` then skips most of Jinja's compiler)."""
        bucket = None
        if self.bytecode is not None:
            with contextlib.suppress(OSError, EOFError, ValueError):
                # Salted: code compiled before partials had the section's context must not be reused.
                bucket = self.bytecode.get_bucket(self.env, BYTECODE_SALT + name, BYTECODE_SALT + name, source)
        if bucket is not None and bucket.code is not None:
            return bucket.code
        code = compile_it()
        if bucket is not None:
            bucket.code = code
            with contextlib.suppress(OSError):
                self.bytecode.set_bucket(bucket)  # type: ignore[union-attr]
        return code


_SIMPLE_GATE = re.compile(r"(?P<not>not +)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
_JINJA_WORDS = frozenset(
    {"true", "false", "none", "True", "False", "None", "not", "and", "or", "in", "is", "if", "else"}
)
"""Words a gate's bare name could be that Jinja reads as something other than a variable."""


def render(
    selections: Sequence[Selection],
    contexts: Contexts,
    marker: str,
    mode: str,
    partials: partials_mod.Partials = partials_mod.EMPTY,
    cache: CacheConfig = DEFAULT_CACHE,
) -> Rendered:
    """Render with nothing kept (a Compiler keeps a Renderer instead)."""
    return Renderer(bytecode_cache=False).render(selections, contexts, marker, mode, partials, cache)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's own file cache of compiled templates, in its private per-user directory in the
    temp dir (Jinja refuses a directory anyone else owns or could write); None when that
    cannot be had. Entries are keyed on the exact source and Jinja's and Python's versions."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


_PLAIN = frozenset({str, int, type(None)})


def freeze(value: Any) -> Hashable:
    """A render context as a hashable key: mappings (in their order) and lists become tuples,
    and a bool or float is tagged (True == 1 == 1.0 would otherwise make contexts that render
    differently one key). Called for every turn's contexts, so exact types are tested first."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is bool or kind is float:
        return (kind.__name__, value)
    if kind is list or kind is tuple:
        return tuple(map(freeze, value))
    if kind is dict or isinstance(value, Mapping):
        return ("map", tuple((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    if isinstance(value, (list, tuple)):
        return tuple(map(freeze, value))
    return value


def _split_heads(
    units: tuple[PromptUnit, ...], context: Mapping[str, Any], cache: CacheConfig
) -> tuple[PromptUnit, ...]:
    """Each cut file whose head a tier names as two units, split where its cut marker line starts:
    the head stays byte-identical when an append moves the kept tail, so its tier stays cached."""
    heads = named_heads(cache)
    if not heads:
        return units
    cut = {f["name"] for f in context.get("stable_files", ()) if f.get("truncated")}
    split: list[PromptUnit] = []
    for unit in units:
        name = unit.name.removeprefix(FILE_PREFIX)
        at = marker_start(name, unit.text) if unit.name != name and name in heads and name in cut else None
        if at is None:
            split.append(unit)
            continue
        split += [PromptUnit(unit.name + HEAD_SUFFIX, unit.text[: at - 1]), PromptUnit(unit.name, unit.text[at:])]
    return tuple(split)


def _render_one(
    renderer: Renderer, selection: Selection, context: Mapping[str, Any], marker: str
) -> tuple[RenderedSection | None, str]:
    spec = selection.spec
    if not selection.active:
        return None, selection.reason
    if selection.override is not None:
        text, source = selection.override, f"provider:{spec.slot}"
    elif spec.when and not renderer.gate_passes(spec, context):
        return None, f"gate is false: {spec.when}"
    else:
        text, source = renderer.render_template(spec, context), spec.label
    text = neutralise(normalise(text), marker)
    if not text:
        return None, "rendered empty"
    return RenderedSection(spec.id, spec.side, spec.title, text, source), selection.reason


def _undefined_message(spec: SectionSpec, exc: jinja2.UndefinedError, partial: str | None) -> str:
    match = re.search(r"'([A-Za-z_][A-Za-z0-9_]*)' is undefined", str(exc))
    name = match.group(1) if match else None
    where = f" in partial {partial}" if partial else ""
    if spec.side == "stable" and name in VOLATILE:
        return (
            f"stable section '{spec.id}' reads volatile variable '{name}'{where} (move the section below the boundary)"
        )
    return f"undefined variable{where}: {exc.message}"


def _problem(spec: SectionSpec, exc: Exception) -> str:
    """The message for an error a section (or its partial) ran into."""
    if isinstance(exc, uservars.UserVariableError):
        return f"{spec.side} section '{spec.id}' {exc.problem}" if "volatile" in exc.problem else exc.problem
    if isinstance(exc, jinja2.TemplateNotFound):
        return exc.message or f"partial {exc.name!r} not found"
    return str(exc)
