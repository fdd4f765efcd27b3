"""Checks for values made through the Python API (run facts, tools, sandboxes), so the API
gives the same one-line errors as a `--run` file. A check returns the value to store (lists
become tuples, lone surrogates U+FFFD) or raises ValueError saying what is wrong."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import RunFactsError
from .frozen import EMPTY, FrozenMap, freeze_plain
from .sections.text import replace_surrogates

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
    """A value for an error message: its repr, cut short (a huge int has no repr at all)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return "a very long number"
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


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
    return FrozenMap((name, freeze_plain(_texts_fixed(item), name)) for name, item in value.items())


def _texts_fixed(value: Any) -> Any:
    """Lone surrogates replaced in every text inside a value (they cannot be written as UTF-8)."""
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, (list, tuple)):
        return [_texts_fixed(item) for item in value]
    if isinstance(value, Mapping):
        return {replace_surrogates(key) if isinstance(key, str) else key: _texts_fixed(item) for key, item in value.items()}
    return value


def texts_by_name(value: Any) -> FrozenMap:
    """A mapping of names to one-line texts, frozen."""
    if not isinstance(value, Mapping):
        raise ValueError(f"expected a mapping, got {type(value).__name__}")
    if not value:
        return EMPTY
    return FrozenMap((str(name), one_line_text(item)) for name, item in value.items())


def validate(instance: Any, checks: Mapping[str, Check], prefix: str = "") -> None:
    """Run each field's check; store what it returns; a failure is one RunFactsError.
    (tests/test_runfacts.py checks that every field has a check.)"""
    for item in dataclasses.fields(instance):
        value, check = getattr(instance, item.name), checks.get(item.name)
        if check is None:
            continue
        try:
            checked = check(value)
        except ValueError as exc:
            raise RunFactsError(f"{prefix}{item.name}: {exc}") from exc
        if checked is not value:
            object.__setattr__(instance, item.name, checked)
