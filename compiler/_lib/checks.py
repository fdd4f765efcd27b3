"""Checks for values made through the Python API (run facts, tools, sandboxes, a Request and a
Compiler's arguments), so the API gives the same one-line errors as a `--run` file. A check
returns the value to store (lists become tuples, lone surrogates U+FFFD) or raises ValueError
saying what is wrong."""

from __future__ import annotations

import datetime
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import UsageError
from .frozen import EMPTY, FrozenMap, freeze_plain
from .text import replace_surrogates

Check = Callable[[Any], Any]

CONTROL = frozenset(chr(c) for c in [*range(0x20), 0x7F, 0x85, 0x2028, 0x2029]) - {"\t"}


def text(value: Any) -> str:
    """Any text, lone surrogates replaced (they cannot be written as UTF-8)."""
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return replace_surrogates(value)


def one_line_text(value: Any) -> str:
    """Text that is rendered on one line: a line break in it could forge a prompt heading."""
    value = text(value)
    if not CONTROL.isdisjoint(value):
        raise ValueError(f"must be one line, without line breaks or control characters; got {shown(value)}")
    return value


def shown(value: Any) -> str:
    """A value for an error message: its repr, cut short (a huge int has no repr at all); an
    object that is not plain data by its type (its repr is its own code's, and may be anything)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return "a very long number"
    if not isinstance(value, (str, bytes, int, float, type(None), list, tuple, dict)):
        name = type(value).__name__
        return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


MAX_DIGITS = 4300
"""The longest whole number promptc reads, in decimal digits: Python's default limit for
turning text into a number, fixed here so that a host process lifting its own limit changes
nothing, and so that every number promptc holds can be written out again."""
_DIGITS_BOUND = 10**MAX_DIGITS
TOO_LONG = f"a number with more than {MAX_DIGITS:,} digits"
"""What is wrong with such a number, however it was written (decimal, hex, octal, binary)."""


def long_number(value: Any) -> str | None:
    """Why `value` is a whole number too long to use (`TOO_LONG`), or None (also for non-numbers).
    The one size check for numbers read from YAML, JSON5 and the API."""
    if isinstance(value, int) and not -_DIGITS_BOUND < value < _DIGITS_BOUND:
        return TOO_LONG
    return None


def long_number_text(text: str) -> str | None:
    """`TOO_LONG` for a number written with more than MAX_DIGITS digits in its own base, checked
    before the text is turned into a number (which can take time quadratic in its length)."""
    if sum(char.isalnum() for char in text) > MAX_DIGITS:
        return TOO_LONG
    return None


def optional(check: Check) -> Check:
    """`check`, or None."""
    return lambda value: None if value is None else check(value)


def flag(value: Any) -> bool:
    """A boolean (1 and "yes" are not)."""
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {shown(value)}")
    return value


def choice(*choices: str | None) -> Check:
    """One of `choices` (None among them makes the fact optional)."""

    def check(value: Any) -> Any:
        if not isinstance(value, (str, type(None))) or value not in choices:
            named = ", ".join(c for c in choices if c is not None)
            raise ValueError(f"expected one of {named}; got {shown(value)}")
        return value

    return check


def one_line_texts(value: Any) -> tuple[str, ...]:
    """A sequence (not a bare string) of one-line texts, stored as a tuple."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise ValueError(f"expected a list of strings, got {type(value).__name__}")
    return tuple(one_line_text(item) for item in value)


def whole_number(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {shown(value)}")
    problem = long_number(value)
    if problem is not None:
        raise ValueError(f"expected a whole number, got {problem}")
    return value


VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
"""A user variable's name: what a template can write after `vars.`."""


def variable_name(name: Any) -> str | None:
    """Why `name` cannot name a user variable, or None."""
    if not isinstance(name, str) or not VARIABLE_NAME.match(name):
        return f"{name!r} is not a variable name (letters, digits and _, not starting with a digit)"
    return None


def user_values(value: Any) -> FrozenMap:
    """User variable values by name: names that a template can write after `vars.`, values
    plain data, frozen (lists as tuples, mappings in their order; a set is refused)."""
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping of variable names to values, got {type(value).__name__}")
    if not value:
        return EMPTY  # the common case, every turn: nothing to check
    for name in value:
        problem = variable_name(name)
        if problem is not None:
            raise ValueError(problem)
    return FrozenMap((name, plain(item, name)) for name, item in value.items())


def plain(value: Any, where: str = "") -> Any:
    """Plain data frozen (frozen.py), lone surrogates replaced; ValueError names the place
    inside the value (`where`, then `.key` / `[index]`) that is not plain data or a number too
    long to write out again."""
    return freeze_plain(_texts_fixed(value, where), where)


def _texts_fixed(value: Any, where: str) -> Any:
    """Lone surrogates replaced in every text inside a value (they cannot be written as UTF-8);
    a number too long to write out again is refused."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if long_number(value) is not None:
        raise ValueError(f"{where}: {TOO_LONG}" if where else TOO_LONG)
    if isinstance(value, (list, tuple)):
        return [_texts_fixed(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, Mapping):
        return {
            replace_surrogates(key) if isinstance(key, str) else key: _texts_fixed(item, f"{where}.{key}")
            for key, item in value.items()
        }
    return value


def texts_by_name(value: Any) -> FrozenMap:
    """A mapping of names to one-line texts, frozen."""
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping, got {type(value).__name__}")
    if not value:
        return EMPTY
    return FrozenMap((str(name), one_line_text(item)) for name, item in value.items())


# --------------------------------------------------------------------------- a compile's inputs
# The fields of a Request and the arguments of a Compiler (compiler/pipeline.py, engine.py).


def path(value: Any) -> Path:
    """A file or directory name: text or an os.PathLike giving text, not empty (`Path("")` is the
    current directory), without a NUL character (no file name holds one; the system call would
    refuse it only later, with a ValueError)."""
    name = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(name, str) or not name:
        raise ValueError(f"expected a path (str or os.PathLike), got {shown(value)}")
    if "\0" in name:
        raise ValueError(f"a path cannot hold a NUL character, got {shown(name)}")
    return value if isinstance(value, Path) else Path(name)


def sequence_of(check: Check, expected: str) -> Check:
    """A list or tuple (any ordered sequence but text) whose items pass `check`, stored as a
    tuple; a failure names the item (`[1]: ...`). A set is refused: its order is the hash seed's."""

    def checked(value: Any) -> tuple[Any, ...]:
        kind = type(value)
        # Plain tuples and lists skip the ABC checks (every CLI render makes a Request).
        plain = kind is tuple or kind is list
        if not plain and (isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Sequence)):
            raise ValueError(f"expected a sequence of {expected}, got {shown(value)}")
        if not value:
            return ()
        items = []
        for index, item in enumerate(value):
            try:
                items.append(check(item))
            except ValueError as exc:
                raise ValueError(f"[{index}]: {exc}") from exc
        return tuple(items)

    return checked


def instance_of(kind: type, name: str) -> Check:
    """A `kind` object, as it is."""

    def check(value: Any) -> Any:
        if not isinstance(value, kind):
            raise ValueError(f"expected {name}, got {shown(value)}")
        return value

    return check


def environment(value: Any) -> dict[str, str]:
    """Environment variables by name, both text without NUL (an environment cannot hold one),
    stored as a copy: a mapping changed after the Request was made changes nothing."""
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping of names to values (str to str), got {shown(value)}")
    copy = dict(value)
    for name, item in copy.items():
        if not isinstance(name, str) or not isinstance(item, str):
            raise ValueError(f"expected names and values of text, got {shown(name)}: {shown(item)}")
        if "\0" in name or "\0" in item:
            raise ValueError(f"{shown(name)}: an environment variable cannot hold a NUL character")
    return copy


TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", re.ASCII)
"""How promptc writes a time into a state file: ISO 8601, UTC, whole seconds."""
TIMESTAMP_FIELDS = ((0, 4), (5, 2), (8, 2), (11, 2), (14, 2), (17, 2))
"""(offset, length) of year, month, day, hour, minute and second in such a time."""


def timestamp(value: Any) -> str:
    """A UTC time as promptc writes it (`2026-01-31T09:30:00Z`), a real date and time."""
    if isinstance(value, str) and TIMESTAMP.fullmatch(value):
        try:
            year, month, day, hour, minute, second = (int(value[at : at + size]) for at, size in TIMESTAMP_FIELDS)
            datetime.datetime(year, month, day, hour, minute, second)
            return value  # (strptime would do, at ten times the cost: the CLI checks a time every render)
        except ValueError:
            pass
    raise ValueError(f"expected an ISO 8601 UTC time like 2026-01-31T09:30:00Z, got {shown(value)}")


def name_text(value: Any) -> str:
    """A short one-line name that is not blank (an operating system's, `linux`)."""
    value = one_line_text(value)
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def checked_arguments(owner: str, values: Mapping[str, Any], checks: Mapping[str, Check]) -> dict[str, Any]:
    """Each argument checked by its check, the values to store returned; the first failure is
    one UsageError naming `owner.name` and what it got."""
    result = dict(values)
    for name, check in checks.items():
        try:
            result[name] = check(values[name])
        except ValueError as exc:
            raise UsageError(f"{owner}.{name}{'' if str(exc).startswith('[') else ': '}{exc}") from exc
    return result
