"""Render the selected sections into the stable part, the boundary and the volatile part.

Rendering is a pure function of its arguments: it never reads config, the environment or the
clock. A Renderer (one per Compiler) compiles each template source once and keeps the latest
stable parts.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta

from .._lib import frozen
from .._lib.errors import Location, TemplateError
from .._lib.lru import LRU
from .._lib.text import neutralise, normalise
from ..model.config import CacheConfig
from ..model.prompt import PromptUnit, RenderedSection
from ..model.units import DYNAMIC_UNIT, JOIN, order_files, reached
from . import cacheunits, limits, problems, uservars
from . import partials as partials_mod
from .catalogue import SectionSpec, Selection
from .environment import (
    BYTECODE_SALT,
    UNKNOWN_NAME,
    PartialLoader,
    PartialRefused,
    Refused,
    column_of,
    make_environment,
    unknown_name,
    user_variable_hint,
)
from .variables import STABLE, VOLATILE, Contexts

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
        key = (selections, marker, self.loader.partials.key, frozen.identity(context), cache.tiers)
        cached = self.stable.get(key)
        if cached is None:
            if "stable_files" in context:
                context = {**context, "stable_files": order_files(context["stable_files"], cache)}
            sections, outline = self._render_side(selections, context, marker)
            by_id = {s.spec.id: s for s in selections}
            units = tuple(
                unit
                for section in sections
                for unit in cacheunits.section_units(self._own_template(by_id[section.id]), section, context, marker)
            )
            cached = self.stable[key] = (sections, outline, cacheunits.split_heads(units, context, cache))
        return cached

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
        values = tuple(frozen.identity(context.get(name, _ABSENT)) for name in names)
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
                expression = self.gates[when] = self.env.compile_expression(when, undefined_to_none=False)
            with limits.step_budget():
                return bool(expression(**context))
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"invalid 'when' expression: {exc.message}", spec.location("when")) from exc
        except jinja2.UndefinedError as exc:
            raise TemplateError(problems.undefined_message(spec, exc, None), spec.location("when")) from exc
        except (uservars.UserVariableError, Refused) as exc:
            raise TemplateError(f"'when' expression: {problems.describe(spec, exc)}", spec.location("when")) from exc
        except Exception as exc:  # anything the expression itself raised (1/0, "a" + 1, ...)
            raise TemplateError(
                f"'when' expression failed: {type(exc).__name__}: {exc}", spec.location("when")
            ) from exc

    def render_template(self, spec: SectionSpec, context: Mapping[str, Any]) -> str:
        """Render one section template; errors name the file and line where they happened (the
        section, or the partial it includes)."""
        try:
            with limits.step_budget():
                return _produce(self._template(spec), context)
        except jinja2.TemplateSyntaxError as exc:
            path = exc.filename or spec.path
            unknown = UNKNOWN_NAME.search(exc.message or "")
            if unknown is None:
                raise TemplateError(f"template syntax error: {exc.message}", Location(path, exc.lineno, 1)) from exc
            column = column_of(self._source_of(path, spec), exc.lineno, unknown["name"])
            message = unknown_name(unknown["kind"], unknown["name"], self.env)
            raise TemplateError(message, Location(path, exc.lineno, column)) from exc
        except jinja2.UndefinedError as exc:
            where = self._place(exc, spec)
            message = problems.undefined_message(spec, exc, self._partial_at(where))
            name = problems.undefined_name(exc)
            if name is not None:
                message += user_variable_hint(name, uservars.declared(context.get("vars")))
                where = self._at_word(where, spec, name)
            raise TemplateError(message, where) from exc
        except uservars.UserVariableError as exc:
            raise TemplateError(
                problems.describe(spec, exc), self._at_word(self._place(exc, spec), spec, f"vars.{exc.name}")
            ) from exc
        except (Refused, PartialRefused, jinja2.TemplateNotFound) as exc:
            raise TemplateError(problems.describe(spec, exc), self._place(exc, spec)) from exc
        except RecursionError as exc:
            raise TemplateError(self._recursion_cause(exc), self._place(exc, spec)) from exc
        except Exception as exc:  # anything the template's own expressions raised
            where = self._place(exc, spec)
            unknown = UNKNOWN_NAME.search(str(exc)) if isinstance(exc, jinja2.TemplateRuntimeError) else None
            if unknown is not None:  # a test Jinja lacks, inside an `if`: found only when it runs
                message = unknown_name(unknown["kind"], unknown["name"], self.env)
                raise TemplateError(message, self._at_word(where, spec, unknown["name"])) from exc
            raise TemplateError(f"template failed: {type(exc).__name__}: {exc}", where) from exc

    def _recursion_cause(self, exc: RecursionError) -> str:
        """What ran too deep: partials including each other (a partial's render is on the stack
        more than once), or else the template's own work (a macro calling itself, a value nested
        too deeply to print or turn into JSON)."""
        partial_paths = {p.path for p in self.loader.partials.by_name.values()}
        seen: dict[str, int] = {}
        tb = exc.__traceback__
        while tb is not None:
            path = tb.tb_frame.f_code.co_filename
            if path in partial_paths and tb.tb_frame.f_code.co_name == "top-level template code":
                seen[path] = seen.get(path, 0) + 1
            tb = tb.tb_next
        if any(count > 1 for count in seen.values()):
            return "partials include each other without end"
        return (
            "this runs too deep for Python (a macro that calls itself without end, or a value"
            " nested too deeply to print or turn into JSON)"
        )

    def _source_of(self, path: str, spec: SectionSpec) -> str:
        """The text of the section or partial at `path` ("" when neither)."""
        if path == spec.path:
            return spec.source
        partial = next((p for p in self.loader.partials.by_name.values() if p.path == path), None)
        return (partial.source or "") if partial is not None else ""

    def _at_word(self, where: Location, spec: SectionSpec, word: str) -> Location:
        """`where` with the column of `word` on its line."""
        return Location(where.path, where.line, column_of(self._source_of(where.path or "", spec), where.line, word))

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

    def _own_template(self, selection: Selection) -> jinja2.Template | None:
        """The section's compiled template; None when a provider's text replaces it."""
        return self._template(selection.spec) if selection.override is None else None

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

    def _code(self, name: str, source: str, compile_it: Callable[[], Any]) -> Any:
        """Compiled code for a source, from Jinja's bytecode cache when an earlier process left
        it there (a cold `promptc render` then skips most of Jinja's compiler)."""
        bucket = None
        if self.bytecode is not None:
            with contextlib.suppress(OSError, EOFError, ValueError):
                # Salted: code compiled with other environment settings must not be reused.
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


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Jinja's own file cache of compiled templates, in its private per-user directory in the
    temp dir (Jinja refuses a directory anyone else owns or could write); None when that
    cannot be had. Entries are keyed on the exact source and Jinja's and Python's versions."""
    try:
        return jinja2.FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


def _produce(template: jinja2.Template, context: Mapping[str, Any]) -> str:
    """What `template.render(context)` gives, its size checked as each piece is made: a loop of
    pieces each under the limit stops once they add up to it, not after they are all held."""
    pieces: list[str] = []
    size = 0
    for piece in template.generate(context):
        size += len(piece)
        if size > limits.MAX_TEXT_CHARS:
            raise limits.TooLarge(
                f"this section's output would pass {limits.MAX_TEXT_CHARS:,} characters, the most a template may make"
            )
        pieces.append(piece)
    return "".join(pieces)


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
