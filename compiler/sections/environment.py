"""How section templates and partials compile and run: Jinja's immutable sandbox with our rules
(partials with the section's context, no `extends`, no sets), and the loader serving partials."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame, optimizeconst
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .._lib import checks
from .._lib.errors import did_you_mean
from . import limits
from . import partials as partials_mod
from .limits import MAX_ITEMS, MAX_TEXT_CHARS, Refused, TooLarge

__all__ = ["MAX_ITEMS", "MAX_TEXT_CHARS", "Refused", "TooLarge"]  # for callers that name them here


class UnorderedResult(Refused):
    """A template made a set (dictionary keys minus something), whose order is the hash seed's."""


class PartialRefused(Exception):
    """An include or import named something that is not a partial inside the template dirs."""


class _CodeGenerator(CodeGenerator):
    """Jinja's code generator with `~` joined through `limits.concat`, which bounds its result."""

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class SectionEnvironment(ImmutableSandboxedEnvironment):
    """Jinja as sections use it. Partials get the including section's context (an import too:
    `with` / `without context` is ignored), `{% extends %}` is refused, a `-` that yields a
    set is refused (nothing a template can make has an order that changes between processes),
    and nothing a template makes may grow past the limits of limits.py: `*`, `**` and `%` are
    checked before they compute, `+`, `~`, filters and calls by their results."""

    code_generator_class = _CodeGenerator
    intercepted_binops = frozenset(
        {"-", "*", "**", "+", "%"}
    )  # intercepted ones are never folded at compile time either
    concat = staticmethod(limits.concat)
    counted = staticmethod(limits.counted)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            limits.check_product(left, right)
        elif operator == "**":
            limits.check_power(left, right)
        elif operator == "%":
            limits.check_printf("'%'", left, right)
        result = super().call_binop(context, operator, left, right)
        if isinstance(result, (set, frozenset)):
            raise UnorderedResult(
                f"'{operator}' here gives a set, whose order changes from one process to the next;"
                " keep an order with a filter instead: `a | reject('in', b) | list`"
            )
        if checks.long_number(result):
            raise TooLarge(f"'{operator}' here would make {checks.TOO_LONG}")
        return limits.checked(f"'{operator}'", result)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        args = limits.check_call(__obj, args, kwargs)
        result = super().call(__context, __obj, *args, **kwargs)
        return limits.checked(f"'{getattr(__obj, '__name__', 'a call')}'", result)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None
        return limits.bounded_format(value.__self__, value.__name__ == "format_map", wrapper)

    def compile(
        self,
        source: Any,
        name: str | None = None,
        filename: str | None = None,
        raw: bool = False,
        defer_init: bool = False,
    ) -> Any:
        if isinstance(source, str):
            source = self.parse(source, name, filename)
        extends = next(source.find_all(nodes.Extends), None)
        if extends is not None:
            raise jinja2.TemplateSyntaxError(EXTENDS_REFUSED, extends.lineno, name, filename)
        for node in source.find_all((nodes.Import, nodes.FromImport, nodes.Include)):
            node.with_context = True
        for loop in source.find_all(nodes.For):  # every turn of every loop is a counted step
            loop.iter = nodes.Call(
                nodes.EnvironmentAttribute("counted"), [loop.iter], [], None, None, lineno=loop.lineno
            )
        if raw:
            return super().compile(source, name, filename, True, defer_init)
        return super().compile(source, name, filename, False, defer_init)


EXTENDS_REFUSED = (
    "'{% extends %}' is not supported: a section is not a page (share text with include or import of a partial)"
)


def make_environment(loader: jinja2.BaseLoader | None = None) -> jinja2.Environment:
    """How every section template is compiled and run: the one place that says so.

    Templates come from the user's template dirs, so they are code we did not write: the sandbox
    refuses private and dunder attributes (`lipsum.__globals__`) and unsafe callables, and the
    immutable variant refuses changing a list or dict, so one section cannot alter what the next
    one reads. Partials come from `loader` only, never from Jinja's own cache (a Renderer keeps
    compiled partials by source).
    """
    env = SectionEnvironment(
        undefined=jinja2.StrictUndefined,  # a missing variable is an error, never an empty string
        autoescape=False,  # prompts are plain text, not HTML
        trim_blocks=True,  # a block tag's own newline is not output
        lstrip_blocks=True,  # indentation before a block tag is not output
        keep_trailing_newline=True,  # an included partial ends with its newline, as the file does (sections are trimmed)
        finalize=plain_output,  # no function, method or object repr reaches the prompt
        loader=loader,
        cache_size=0,  # an edited partial keeps its name: Jinja's cache by name would serve the old one
    )
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "default": _json_mapping}  # Jinja's, plus our mappings
    env.filters = limits.guard_filters(env.filters)
    env.filters["random"] = _refused("random")
    env.globals["lipsum"] = _refused("lipsum")
    env.globals["range"] = limits.bounded_range(env.globals["range"])  # type: ignore[arg-type]
    return env


NONDETERMINISTIC = {
    "random": "the 'random' filter picks anew on every render",
    "lipsum": "'lipsum()' makes new random text on every render",
}
"""Jinja's filter and global whose result changes from one render to the next: a prompt must be
the same for the same inputs (a stable part that changes is a cache miss on every turn)."""


def nondeterministic_message(name: str) -> str:
    """The one message for a use of a NONDETERMINISTIC name (lint and render say the same)."""
    return f"{NONDETERMINISTIC[name]}, and promptc's output is the same for the same inputs: write the text out"


def _refused(name: str) -> Callable[..., Any]:
    """Stands for a NONDETERMINISTIC name: using it is refused at the template's line."""

    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise Refused(nondeterministic_message(name))

    refuse.__name__ = name
    return refuse


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")
"""How Python writes an object with no text of its own: `<... object at 0x7f...>`."""


def plain_output(value: Any) -> Any:
    """What `{{ value }}` prints (Jinja's `finalize`): a function, a method or an object with no
    text of its own is refused, since its text is Python's and holds a memory address that
    changes on every run."""
    if callable(value) and not isinstance(value, (str, jinja2.Undefined)):
        name = getattr(value, "__name__", type(value).__name__)
        raise Refused(f"this prints the function or method {name!r} itself, not a value: call it, or print a value")
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    text = str(value)
    if _ADDRESS.search(text):
        raise Refused("this prints a Python object, not a value (its text holds a memory address)")
    return text


def _json_mapping(value: Any) -> Any:
    """`tojson` of the read-only mappings a context holds (`vars`, a mapping-valued variable)."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class PartialLoader(jinja2.BaseLoader):
    """Serves the partials of the render in progress (read up front by the catalogue stage),
    compiled by `compiled(path, source)` (a Renderer keeps them by source)."""

    def __init__(self, compiled: Callable[[str, str], jinja2.Template]) -> None:
        self.compiled = compiled
        self.partials: partials_mod.Partials = partials_mod.EMPTY

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        partial = self.find(template)
        return partial.source or "", partial.path, lambda: True

    def load(self, environment: jinja2.Environment, name: str, globals: Any = None) -> jinja2.Template:
        partial = self.find(name)
        return self.compiled(partial.path, partial.source or "")

    def find(self, name: str) -> partials_mod.Partial:
        """The partial an include of `name` gets; a refused or unusable name raises."""
        problem = partials_mod.check_name(name)
        if problem is not None:
            raise PartialRefused(problem)
        found = self.partials.by_name.get(name)
        if found is None:
            raise jinja2.TemplateNotFound(
                name, f"partial {name!r} not found (looked in {', '.join(self.partials.searched)})"
            )
        if found.source is None:
            raise PartialRefused(f"partial {name!r} cannot be used: {found.problem}")
        return found


UNKNOWN_NAME = re.compile(r"No (?P<kind>filter|test) named '(?P<name>[^']*)'")
"""Jinja's message for a filter or test it does not have."""


def unknown_name(kind: str, name: str, env: jinja2.Environment) -> str:
    """The one message for an unknown filter or test (lint and render say the same)."""
    known = env.filters if kind == "filter" else env.tests
    return f"unknown {kind} '{name}'" + did_you_mean(name, sorted(known))


def user_variable_hint(name: str, declared: Iterable[str]) -> str:
    """` (did you mean 'vars.NAME'?)` when a template reads a declared user variable by its bare name."""
    return f" (did you mean 'vars.{name}'?)" if name in set(declared) else ""


def column_of(source: str, line: int | None, word: str) -> int:
    """1-based column of `word` (not inside a longer name or after a dot) on a 1-based line of `source`; 1 if absent."""
    lines = source.replace("\r\n", "\n").split("\n")
    text = lines[line - 1] if line is not None and 0 < line <= len(lines) else ""
    match = re.search(rf"(?<![\w.]){re.escape(word)}\b", text)
    return match.start() + 1 if match else 1


ENV = make_environment()
"""For parsing and static checks (`promptc lint`); rendering goes through a Renderer's own."""
BYTECODE_SALT = "promptc-sections-7:"
"""Prefixes every bytecode-cache key: Jinja keys compiled code on the source alone, so code
compiled with other settings (an older promptc: imports without context, trailing newlines
dropped) would be reused. Change it whenever make_environment or SectionEnvironment.compile
changes how a source compiles."""
