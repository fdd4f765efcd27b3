"""Render the selected sections into the stable part, the boundary and the volatile part.

Rendering is a pure function of its arguments: it never reads config, the environment or the
clock. A Renderer (one per Compiler) compiles each template source once and keeps the latest
stable parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence

import jinja2

from ..errors import Location, TemplateError
from ..freshness import LRU
from ..model import RenderedSection
from .catalogue import SectionSpec, Selection
from .text import neutralise, normalise
from .variables import VOLATILE, Contexts

JOIN = "\n\n"


@dataclass(frozen=True)
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


def make_environment() -> jinja2.Environment:
    """How every section template is compiled and run: the one place that says so."""
    return jinja2.Environment(
        undefined=jinja2.StrictUndefined,  # a missing variable is an error, never an empty string
        autoescape=False,  # prompts are plain text, not HTML
        trim_blocks=True,  # a block tag's own newline is not output
        lstrip_blocks=True,  # indentation before a block tag is not output
        keep_trailing_newline=False,  # section output is trimmed anyway
    )


ENV = make_environment()
"""For parsing and static checks (`promptc lint`); rendering goes through a Renderer's own."""

Side = tuple[tuple[RenderedSection, ...], tuple[tuple[str, bool, str], ...]]
STABLE_CACHE_SIZE = 32
TEMPLATE_CACHE_SIZE = 512


class Renderer:
    """Renders sections with templates compiled once and the most recent stable parts kept.

    A stable part is keyed on the selected sections (their sources included), the marker and
    the whole stable context, so a hit is byte-identical to a fresh render by construction.
    """

    def __init__(self, stable_cache_size: int = STABLE_CACHE_SIZE) -> None:
        self.env = make_environment()
        self.templates: LRU[tuple[str, str], jinja2.Template] = LRU(TEMPLATE_CACHE_SIZE)
        self.gates: LRU[str, Any] = LRU(TEMPLATE_CACHE_SIZE)
        self.stable: LRU[tuple, Side] = LRU(stable_cache_size)

    def render(self, selections: Sequence[Selection], contexts: Contexts, marker: str, mode: str) -> Rendered:
        """Render every active section on its side, then join the two sides around the marker."""
        stable_side = tuple(s for s in selections if s.spec.side == "stable")
        volatile_side = tuple(s for s in selections if s.spec.side != "stable")
        stable_sections, stable_outline = self._render_stable(stable_side, contexts.stable, marker)
        volatile_sections, volatile_outline = self._render_side(volatile_side, contexts.volatile, marker)
        stable = JOIN.join(s.text for s in stable_sections)
        volatile = JOIN.join(s.text for s in volatile_sections)
        parts = (p for p in (stable, volatile) if p) if mode == "none" else (stable, marker, volatile)
        sections, outline = stable_sections + volatile_sections, stable_outline + volatile_outline
        return Rendered(stable, volatile, JOIN.join(parts), sections, outline)

    def _render_stable(self, selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str) -> Side:
        key = (selections, marker, freeze(context))
        cached = self.stable.get(key)
        if cached is None:
            cached = self.stable[key] = self._render_side(selections, context, marker)
        return cached

    def _render_side(self, selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str) -> Side:
        rendered: list[RenderedSection] = []
        outline: list[tuple[str, bool, str]] = []
        for selection in selections:
            section, why = _render_one(self, selection, context, marker)
            outline.append((selection.spec.id, section is not None, why))
            if section is not None:
                rendered.append(section)
        return tuple(rendered), tuple(outline)

    def gate_passes(self, spec: SectionSpec, context: Mapping[str, Any]) -> bool:
        """Evaluate a section's `when` expression against the context of its side."""
        when = spec.when or "true"
        try:
            expression = self.gates.get(when)
            if expression is None:
                expression = self.gates[when] = self.env.compile_expression(when, undefined_to_none=False)
            return bool(expression(**context))
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"invalid 'when' expression: {exc.message}", spec.location("when")) from exc
        except jinja2.UndefinedError as exc:
            raise TemplateError(_undefined_message(spec, exc), spec.location("when")) from exc
        except Exception as exc:  # anything the expression itself raised (1/0, "a" + 1, ...)
            raise TemplateError(f"'when' expression failed: {type(exc).__name__}: {exc}", spec.location("when")) from exc

    def render_template(self, spec: SectionSpec, context: Mapping[str, Any]) -> str:
        """Render one section template; errors name the template file and line."""
        try:
            return self._template(spec).render(context)
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateError(f"template syntax error: {exc.message}", Location(spec.path, exc.lineno, 1)) from exc
        except jinja2.UndefinedError as exc:
            raise TemplateError(_undefined_message(spec, exc), Location(spec.path, _template_line(exc, spec.path), 1)) from exc
        except Exception as exc:  # anything the template's own expressions raised
            where = Location(spec.path, _template_line(exc, spec.path), 1)
            raise TemplateError(f"template failed: {type(exc).__name__}: {exc}", where) from exc

    def _template(self, spec: SectionSpec) -> jinja2.Template:
        """The compiled template for this exact source (compiled with its file name, so errors
        and tracebacks point at the section file)."""
        key = (spec.path, spec.source)
        template = self.templates.get(key)
        if template is None:
            code = self.env.compile(spec.source, name=spec.path, filename=spec.path)
            template = self.templates[key] = self.env.template_class.from_code(self.env, code, self.env.make_globals(None))
        return template


def render(selections: Sequence[Selection], contexts: Contexts, marker: str, mode: str) -> Rendered:
    """Render with nothing kept (a Compiler keeps a Renderer instead)."""
    return Renderer().render(selections, contexts, marker, mode)


def freeze(value: Any) -> Hashable:
    """A render context as a hashable key: mappings and lists become tuples, sets frozensets."""
    if isinstance(value, Mapping):
        return tuple(sorted((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(value)
    return value


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
        text, source = renderer.render_template(spec, context), _source_label(spec)
    text = neutralise(normalise(text), marker)
    if not text:
        return None, "rendered empty"
    return RenderedSection(spec.id, spec.side, spec.title, text, source), selection.reason


def _source_label(spec: SectionSpec) -> str:
    """Built-ins are named by file name only, so reports do not depend on the install path."""
    return f"builtin:{Path(spec.path).name}" if spec.origin == "builtin" else spec.path


def _undefined_message(spec: SectionSpec, exc: jinja2.UndefinedError) -> str:
    match = re.search(r"'([A-Za-z_][A-Za-z0-9_]*)' is undefined", str(exc))
    name = match.group(1) if match else None
    if spec.side == "stable" and name in VOLATILE:
        return f"stable section '{spec.id}' reads volatile variable '{name}' (move the section below the boundary)"
    return f"undefined variable: {exc.message}"


def _template_line(exc: BaseException, path: str) -> int | None:
    """The template line Jinja recorded in the rewritten traceback, if any."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
