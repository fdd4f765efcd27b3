"""How large a text or list a template may make, and the checks that hold every way of making
one to it: `*` and `**` (checked from the sizes, before computing), `~`, `+` and `%`, the
filters and string methods that grow a text. A doubling loop (`ns.s = ns.s ~ ns.s`) took 3 GB
and 11 s before it failed; now it stops at the limit with the template's line.

A check either works out the size first, where one step could be enormous (a width, a count,
a join), or looks at the result, where a step can at most add up what already exists; either
way no step can make more than a few times the limit.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from .._lib import checks


class Refused(Exception):
    """Something a template did that the sandbox refuses while it runs (render.py places it at
    the template's line)."""


class TooLarge(Refused):
    """A step whose result would be larger than a template may make."""


MAX_TEXT_CHARS = 10_000_000
"""The longest text, in characters, a template may make (a whole prompt is far shorter)."""
MAX_ITEMS = 1_000_000
"""The longest list, in items, a template may make."""
_MAX_INT_BITS = (10**checks.MAX_DIGITS).bit_length()
"""A number of this many bits has more digits than promptc can write out again."""


MAX_STEPS = 1_000_000
"""Loop turns, plus items of each `range()`, one section's render may take (with its partials):
far above what a prompt section needs, far below a loop that would run for hours."""


class TooLong(Refused):
    """A render that took more steps than MAX_STEPS."""


_STEPS: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar("promptc_render_steps", default=None)
"""The steps left to the render in progress (None outside one: nothing is counted)."""


@contextlib.contextmanager
def step_budget(steps: int = MAX_STEPS) -> Iterator[None]:
    """Count the steps of what runs inside against `steps`."""
    token = _STEPS.set([steps])
    try:
        yield
    finally:
        _STEPS.reset(token)


def spend(steps: int) -> None:
    """Take `steps` from the render's budget; past it the render stops."""
    left = _STEPS.get()
    if left is None:
        return
    left[0] -= steps
    if left[0] < 0:
        raise TooLong(
            f"this render takes more than {MAX_STEPS:,} steps (loop turns and range items);"
            " a section's loops must end far sooner"
        )


def counted(iterable: Any) -> Iterator[Any]:
    """A loop's items, each one a step."""
    for item in iterable:
        spend(1)
        yield item


def bounded_range(safe_range: Callable[..., range]) -> Callable[..., range]:
    """The sandbox's `range()`, its length spent as steps (a filter may walk it without a loop)."""

    @functools.wraps(safe_range)
    def run(*args: int) -> range:
        made = safe_range(*args)
        spend(len(made))
        return made

    return run


def refuse(what: str, size: int, text: bool = True) -> TooLarge:
    kind, unit, limit = ("a text", "characters", MAX_TEXT_CHARS) if text else ("a list", "items", MAX_ITEMS)
    return TooLarge(f"{what} here would make {kind} of {size:,} {unit}; a template may make at most {limit:,}")


def checked(what: str, result: Any) -> Any:
    """`result`, unless it is a text or list over its limit."""
    if isinstance(result, str) and len(result) > MAX_TEXT_CHARS:
        raise refuse(what, len(result))
    if isinstance(result, (list, tuple)) and len(result) > MAX_ITEMS:
        raise refuse(what, len(result), text=False)
    return result


def _whole(value: Any) -> bool:
    return isinstance(value, int)  # True and False too: Python multiplies them as 1 and 0


# --------------------------------------------------------------------------- operators


def check_product(left: Any, right: Any) -> None:
    """Refuse a repeated text or list over its limit, or a product of numbers sure to be too
    long, from the sizes alone."""
    for sequence, count in ((left, right), (right, left)):
        if isinstance(sequence, (str, list, tuple)) and _whole(count):
            size = len(sequence) * count
            limit = MAX_TEXT_CHARS if isinstance(sequence, str) else MAX_ITEMS
            if size > limit:
                raise refuse("'*'", size, isinstance(sequence, str))
            return
    if _whole(left) and _whole(right) and left.bit_length() + right.bit_length() - 2 >= _MAX_INT_BITS:
        raise TooLarge(f"'*' here would make {checks.TOO_LONG}")


def check_power(base: Any, exponent: Any) -> None:
    """Refuse a whole-number power sure to be too long, from the sizes alone (its result is at
    least 2 ** (exponent * (bits of the base - 1)))."""
    sure = _whole(base) and _whole(exponent) and exponent > 0 and abs(base) > 1
    if sure and exponent * (abs(base).bit_length() - 1) >= _MAX_INT_BITS:
        raise TooLarge(f"'**' here would make {checks.TOO_LONG}")


_PRINTF = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")
"""One printf conversion: its width and precision (digits, or `*` for the next argument)."""


def check_printf(what: str, template: Any, values: Any) -> None:
    """Refuse `text % values` whose padding alone would be over the limit: a written width or
    precision, or a `*` one taken from a value."""
    if not isinstance(template, str):
        return
    arguments = values if isinstance(values, tuple) else (values,)
    for match in _PRINTF.finditer(template):
        for size in match.group(1, 2):
            if size and size != "*":
                _check_written(what, size)
        if "*" in match.group(1, 2):
            _check_widths(what, arguments)


def _check_written(what: str, digits: str) -> None:
    """Refuse a width or precision written in a format over the limit (one of more than 30 digits
    is said as 10**30: Python will not read a number of thousands of digits)."""
    if len(digits) > 8 or int(digits) > MAX_TEXT_CHARS:
        raise refuse(what, int(digits) if len(digits) <= 30 else 10**30)


def _check_widths(what: str, values: Iterable[Any]) -> None:
    for value in values:
        if _whole(value) and value > MAX_TEXT_CHARS:
            raise refuse(what, value)


_FORMAT_FIELD = re.compile(r"\{[^{}]*:([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
"""A `str.format` replacement field with a format spec (possibly with nested fields)."""


def check_format(template: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> None:
    """Refuse `text.format(...)` whose padding alone would be over the limit (a written width or
    precision, or one taken from an argument)."""
    for match in _FORMAT_FIELD.finditer(template):
        spec = match.group(1)
        for digits in re.findall(r"\d+", spec):
            _check_written("'format'", digits)
        if "{" in spec:
            _check_widths("'format'", (*args, *kwargs.values()))


def concat(parts: Iterable[Any]) -> str:
    """What `a ~ b ~ ...` makes (Jinja's own `str_join`), within the limit."""
    return checked("'~'", "".join(map(str, parts)))


# --------------------------------------------------------------------------- filters and methods


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(str(value))


def _before_join(value: Any, d: str = "", attribute: Any = None) -> None:
    """(`value` is a list or tuple here: see `_listed`.)"""
    if isinstance(value, (list, tuple)) and attribute is None:
        size = sum(map(_length, value)) + len(d) * max(len(value) - 1, 0)
        if size > MAX_TEXT_CHARS:
            raise refuse("'join'", size)


def _listed(value: Any) -> Any:
    """An iterable that a check must measure and the step must still read: as a list (a `map`
    or `select` result is a generator, which measuring would use up)."""
    return value if isinstance(value, (list, tuple, str)) else list(value)


def _before_replace(s: Any, old: Any, new: Any, count: Any = None) -> None:
    if not (isinstance(s, str) and isinstance(old, str) and isinstance(new, str)):
        return
    found = len(s) + 1 if old == "" else s.count(old)
    if _whole(count) and count >= 0:
        found = min(found, count)
    size = len(s) + found * (len(new) - len(old))
    if size > MAX_TEXT_CHARS:
        raise refuse("'replace'", size)


def _before_size(what: str, text: bool = True) -> Callable[..., None]:
    """A check of a step's size argument (a width, a count) against the text or list limit."""
    limit = MAX_TEXT_CHARS if text else MAX_ITEMS

    def check(value: Any, size: Any = 0, *_: Any, **__: Any) -> None:
        if _whole(size) and size > limit:
            raise refuse(what, size, text)

    return check


def _before_indent(s: Any, width: Any = 4, *_: Any, **__: Any) -> None:
    step = len(width) if isinstance(width, str) else width if _whole(width) else 0
    lines = s.count("\n") + 1 if isinstance(s, str) else 1
    size = (len(s) if isinstance(s, str) else 0) + lines * step
    if size > MAX_TEXT_CHARS:
        raise refuse("'indent'", size)


def _before_wordwrap(
    s: Any, width: Any = 79, break_long_words: Any = True, wrapstring: Any = None, *_: Any, **__: Any
) -> None:
    if isinstance(s, str) and isinstance(wrapstring, str) and _whole(width) and width > 0:
        size = len(s) + (len(s) // width + 1) * len(wrapstring)
        if size > MAX_TEXT_CHARS:
            raise refuse("'wordwrap'", size)


def _before_format(value: Any, *args: Any, **kwargs: Any) -> None:
    if args and kwargs:
        return  # Jinja refuses this itself
    check_printf("'format'", value, args or kwargs)


FILTER_CHECKS: dict[str, Callable[..., None]] = {
    "join": _before_join,
    "replace": _before_replace,
    "center": _before_size("'center'"),
    "indent": _before_indent,
    "wordwrap": _before_wordwrap,
    "batch": _before_size("'batch'", text=False),
    "slice": _before_size("'slice'", text=False),
    "format": _before_format,
}
"""Filters that could make something enormous in one step, checked before they run."""


def guard_filters(filters: Mapping[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """Every filter, its result checked against the limits (and the ones in FILTER_CHECKS
    checked before they run). A filter that takes the environment or context first keeps
    getting it (the wrapper copies Jinja's marker)."""
    return {name: _guarded(name, function) for name, function in filters.items()}


def _guarded(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    before = FILTER_CHECKS.get(name)
    passes_first = getattr(function, "jinja_pass_arg", None) is not None
    what = f"'{name}'"

    offset = 1 if passes_first else 0

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        if before is not None:
            if name == "join" and len(args) > offset:
                args = (*args[:offset], _listed(args[offset]), *args[offset + 1 :])
            before(*args[offset:], **kwargs)
        result = function(*args, **kwargs)
        if isinstance(result, (str, list, tuple)):
            return checked(what, result)
        return result

    return run


_TEXT_METHODS: dict[str, Callable[..., None]] = {
    "center": _before_size("'center'"),
    "ljust": _before_size("'ljust'"),
    "rjust": _before_size("'rjust'"),
    "zfill": _before_size("'zfill'"),
}


def check_call(function: Any, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, ...]:
    """Before a template calls a text's method: the ones that pad, repeat or join by a size
    (`format` is checked where the sandbox wraps it: see `bounded_format`). Gives the arguments
    to call with (a joined iterable as a list)."""
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "")
    if not isinstance(owner, str):
        return args
    if name in _TEXT_METHODS:
        _TEXT_METHODS[name](owner, *args, **kwargs)
    elif name == "join" and args:
        args = (_listed(args[0]), *args[1:])
        _before_join(args[0], owner)
    elif name == "replace" and len(args) >= 2:
        _before_replace(owner, *args[:3])
    elif name == "expandtabs":
        size = args[0] if args and _whole(args[0]) else 8
        if owner.count("\t") * size > MAX_TEXT_CHARS:
            raise refuse("'expandtabs'", owner.count("\t") * size)
    return args


def bounded_format(template: str, is_map: bool, wrapper: Callable[..., str]) -> Callable[..., str]:
    """The sandbox's `text.format` / `text.format_map` with its padding checked first."""

    def run(*args: Any, **kwargs: Any) -> str:
        mapping = args[0] if is_map and args and isinstance(args[0], Mapping) else {}
        check_format(template, () if is_map else args, mapping if is_map else kwargs)
        return checked("'format'", wrapper(*args, **kwargs))

    return functools.update_wrapper(run, wrapper)
