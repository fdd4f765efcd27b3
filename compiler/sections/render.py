"""Render the selected sections into the stable part, the boundary and the volatile part.

`render` is a pure function of its arguments: it never reads config, the environment or the
clock. Templates are compiled once per process and reused while their source is unchanged.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

from ..errors import Location, TemplateError
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


class _SpecLoader(jinja2.BaseLoader):
    """Serves section sources by file path, so Jinja errors carry the real file name."""

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Any]:
        if template not in self.sources:
            raise jinja2.TemplateNotFound(template)
        source = self.sources[template]
        return source, template, lambda: self.sources.get(template) == source


_LOADER = _SpecLoader()
# Templates come from the user's template dirs, so they are code we did not write: the sandbox
# refuses private and dunder attributes (`lipsum.__globals__`) and unsafe callables, and the
# immutable variant refuses changing a list or dict, so one section cannot alter what the next
# one reads.
ENV = ImmutableSandboxedEnvironment(
    loader=_LOADER,
    undefined=jinja2.StrictUndefined,  # a missing variable is an error, never an empty string
    autoescape=False,  # prompts are plain text, not HTML
    trim_blocks=True,  # a block tag's own newline is not output
    lstrip_blocks=True,  # indentation before a block tag is not output
    keep_trailing_newline=False,  # section output is trimmed anyway
    auto_reload=True,
    cache_size=1000,
)
_GATES: dict[str, Any] = {}


def render(selections: Sequence[Selection], contexts: Contexts, marker: str, mode: str) -> Rendered:
    """Render every active section on its side, then join the two sides around the marker."""
    stable_side = tuple(s for s in selections if s.spec.side == "stable")
    volatile_side = tuple(s for s in selections if s.spec.side != "stable")
    stable_sections, stable_outline = _render_stable(stable_side, contexts.stable, marker)
    volatile_sections, volatile_outline = _render_side(volatile_side, contexts.volatile, marker)
    stable = JOIN.join(s.text for s in stable_sections)
    volatile = JOIN.join(s.text for s in volatile_sections)
    text = JOIN.join(p for p in (stable, volatile) if p) if mode == "none" else stable + JOIN + marker + JOIN + volatile
    return Rendered(stable, volatile, text, stable_sections + volatile_sections, stable_outline + volatile_outline)


Side = tuple[tuple[RenderedSection, ...], tuple[tuple[str, bool, str], ...]]
STABLE_CACHE_SIZE = 64
_STABLE_CACHE: OrderedDict[tuple, Side] = OrderedDict()
"""Recently rendered stable parts. The key holds the section sources and the whole stable
context, so a hit is byte-identical to a fresh render by construction."""


def _render_stable(selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str) -> Side:
    key = (selections, marker, json.dumps(context, sort_keys=True, default=_canonical))
    cached = _STABLE_CACHE.get(key)
    if cached is not None:
        _STABLE_CACHE.move_to_end(key)
        return cached
    cached = _STABLE_CACHE[key] = _render_side(selections, context, marker)
    if len(_STABLE_CACHE) > STABLE_CACHE_SIZE:
        _STABLE_CACHE.popitem(last=False)
    return cached


def _canonical(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot key a render context on {type(value).__name__}")


def _render_side(selections: tuple[Selection, ...], context: Mapping[str, Any], marker: str) -> Side:
    rendered: list[RenderedSection] = []
    outline: list[tuple[str, bool, str]] = []
    for selection in selections:
        section, why = _render_one(selection, context, marker)
        outline.append((selection.spec.id, section is not None, why))
        if section is not None:
            rendered.append(section)
    return tuple(rendered), tuple(outline)


def _render_one(selection: Selection, context: Mapping[str, Any], marker: str) -> tuple[RenderedSection | None, str]:
    spec = selection.spec
    if not selection.active:
        return None, selection.reason
    if selection.override is not None:
        text, source = selection.override, f"provider:{spec.slot}"
    elif spec.when and not gate_passes(spec, context):
        return None, f"gate is false: {spec.when}"
    else:
        text, source = render_template(spec, context), _source_label(spec)
    text = neutralise(normalise(text), marker)
    if not text:
        return None, "rendered empty"
    return RenderedSection(spec.id, spec.side, spec.title, text, source), selection.reason


def _source_label(spec: SectionSpec) -> str:
    """Built-ins are named by file name only, so reports do not depend on the install path."""
    return f"builtin:{Path(spec.path).name}" if spec.origin == "builtin" else spec.path


def gate_passes(spec: SectionSpec, context: Mapping[str, Any]) -> bool:
    """Evaluate a section's `when` expression against the context of its side."""
    when = spec.when or "true"
    try:
        expression = _GATES.get(when)
        if expression is None:
            expression = _GATES[when] = ENV.compile_expression(when, undefined_to_none=False)
        return bool(expression(**context))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"invalid 'when' expression: {exc.message}", spec.location("when")) from exc
    except jinja2.UndefinedError as exc:
        raise TemplateError(_undefined_message(spec, exc), spec.location("when")) from exc
    except Exception as exc:  # anything the expression itself raised (1/0, "a" + 1, ...)
        raise TemplateError(f"'when' expression failed: {type(exc).__name__}: {exc}", spec.location("when")) from exc


def render_template(spec: SectionSpec, context: Mapping[str, Any]) -> str:
    """Render one section template; errors name the template file and line."""
    _LOADER.sources[spec.path] = spec.source
    try:
        return ENV.get_template(spec.path).render(context)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error: {exc.message}", Location(spec.path, exc.lineno, 1)) from exc
    except jinja2.UndefinedError as exc:
        raise TemplateError(_undefined_message(spec, exc), Location(spec.path, _template_line(exc, spec.path), 1)) from exc
    except Exception as exc:  # anything the template's own expressions raised
        where = Location(spec.path, _template_line(exc, spec.path), 1)
        raise TemplateError(f"template failed: {type(exc).__name__}: {exc}", where) from exc


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
