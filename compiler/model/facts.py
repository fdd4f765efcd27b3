"""How a run fact is declared: one `fact(...)` field says how the fact is checked, read from a run
file, set by a command-line flag, seen by templates and treated by cache replay. Everything else
(the run-file reader, the CLI flags, the template contexts, replay) reads these declarations."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass
from typing import Any, Literal

from .._lib import checks
from .._lib.errors import RunFactsError
from .config import Side

Convert = Callable[[Any], Any]
"""Turns a value into the one to store, or raises ValueError saying what is wrong."""
Replay = Literal["volatile", "variant"]


@dataclass(frozen=True, slots=True)
class Fact:
    """What one run-fact declaration says, besides its type and default."""

    doc: str
    """What the fact is, for reference pages and `--help`."""
    check: Convert | None = None
    """The check of a value (from the API, or from a run file after `read`); None derives it from
    the field's type."""
    read: Convert | None = None
    """How plain data from a run file becomes a value `check` takes; None derives it from the type."""
    flag: str | None = None
    """Help of the `--<name>` flag that sets the fact on the command line; None: no flag."""
    side: Side | None = None
    """The template side on which the fact is a variable of its own name; None: templates read it
    only through variables built from several inputs."""
    variable: Convert | None = None
    """How the fact's value becomes the template variable's (None: as it is)."""
    replay: Replay | None = None
    """`volatile`: cache replay resets it and checks the stable part did not move; `variant`: it
    tells a trace's prompt variants apart (each has its own cache history)."""
    file: bool = True
    """Whether a run file may set it (False: promptc records it)."""


def fact(
    default: Any = MISSING,
    *,
    factory: Callable[[], Any] | Any = MISSING,
    doc: str,
    check: Convert | None = None,
    read: Convert | None = None,
    flag: str | None = None,
    side: Side | None = None,
    variable: Convert | None = None,
    replay: Replay | None = None,
    file: bool = True,
) -> Any:
    """A dataclass field declaring one run fact (see `Fact`)."""
    metadata = {"fact": Fact(doc, check, read, flag, side, variable, replay, file)}
    if factory is not MISSING:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, slots=True)
class Declared:
    """One run fact as the other stages use it: its declaration completed from its type."""

    name: str
    """The field name: the run-file key, the template variable and (dashed) the flag."""
    fact: Fact
    """The declaration."""
    check: Convert
    """The check, given or derived from the type."""
    read: Convert
    """The run-file conversion, given or derived from the type."""
    choices: tuple[str, ...]
    """The values a Literal type allows (empty for other types)."""
    optional: bool
    """Whether None is allowed."""


def declared(cls: type) -> tuple[Declared, ...]:
    """Every `fact` field of a dataclass, in declaration order, completed from its type hints."""
    hints = typing.get_type_hints(cls)
    found = []
    for item in dataclasses.fields(cls):
        if "fact" not in item.metadata:
            continue
        declaration: Fact = item.metadata["fact"]
        choices, optional, base = _shape(hints[item.name])
        check = declaration.check or _check_for(base, choices, optional)
        read = declaration.read or _read_for(base, choices, optional)
        found.append(Declared(item.name, declaration, check, read, choices, optional))
    return tuple(found)


def _shape(hint: Any) -> tuple[tuple[str, ...], bool, Any]:
    """(Literal choices, whether None is allowed, the type without None)."""
    members = typing.get_args(hint) if typing.get_origin(hint) in (typing.Union, types.UnionType) else (hint,)
    optional = type(None) in members
    rest = [m for m in members if m is not type(None)]
    base = rest[0] if len(rest) == 1 else hint
    choices = tuple(typing.get_args(base)) if typing.get_origin(base) is Literal else ()
    return choices, optional, base


def _check_for(base: Any, choices: tuple[str, ...], optional: bool) -> Convert:
    if choices:
        return checks.choice(*choices, *((None,) if optional else ()))
    if base is bool:
        check: Convert = checks.flag
    elif base is str:
        check = checks.one_line_text
    elif typing.get_origin(base) is tuple and typing.get_args(base)[0] is str:
        check = each(checks.one_line_text, "strings")
    else:
        raise TypeError(f"no check can be derived for {base!r}: declare one")
    return checks.optional(check) if optional else check


def _read_for(base: Any, choices: tuple[str, ...], optional: bool) -> Convert:
    if choices:
        return _same
    if base is bool:
        return _same
    if base is str:
        return read_text
    if typing.get_origin(base) is tuple and typing.get_args(base)[0] is str:
        return read_list
    return _same


def _same(value: Any) -> Any:
    return value


# --------------------------------------------------------------------------- run-file readers


class Inside(ValueError):
    """A problem at a place inside a fact's value (a list item, a mapping key), so an error in a
    run file points there: an item of a flow list is on the fact's line, at its own column."""

    def __init__(self, inner: tuple[str | int, ...], problem: str) -> None:
        super().__init__(problem)
        self.inner = inner
        """Keys and list indexes below the fact."""


def read_text(value: Any) -> Any:
    """A run file's scalar as text: YAML reads `python: 3.11` as a number."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    return value  # the check says what is wrong with it


def read_level(value: Any) -> Any:
    """A level such as `off` or `on`, which YAML 1.1 reads as a boolean."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return read_text(value)


def read_list(value: Any) -> Any:
    """A list (null for none) of scalars as text."""
    if value is None:
        return ()
    if isinstance(value, list):
        return [
            read_text(item) if isinstance(item, (int, float)) and not isinstance(item, bool) else item for item in value
        ]
    return value


def each(convert: Convert, expected: str) -> Convert:
    """A list or tuple (null: empty) with `convert` applied to each item, stored as a tuple; a
    problem is placed at its item."""

    def converted(value: Any) -> tuple[Any, ...]:
        if value is None:
            return ()
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise ValueError(f"expected a list of {expected}, got {type(value).__name__}")
        items = []
        for index, item in enumerate(value):
            try:
                items.append(convert(item))
            except Inside as exc:
                raise Inside((index, *exc.inner), str(exc)) from exc
            except (ValueError, RunFactsError) as exc:
                raise Inside((index,), _message(exc)) from exc
        return tuple(items)

    return converted


def members(value: Mapping[str, Any], checks_by_key: Mapping[str, Convert], what: str) -> dict[str, Any]:
    """A mapping-valued fact's members, each converted by its check; an unknown key or a problem
    is placed at its key."""
    for key in value:
        if key not in checks_by_key:
            known = ", ".join(checks_by_key)
            raise Inside((str(key),), f"unknown {what} key {key!r} (expected {known})")
    found = {}
    for key, convert in checks_by_key.items():
        if key not in value:
            continue
        try:
            found[key] = convert(value[key])
        except Inside as exc:
            raise Inside((key, *exc.inner), str(exc)) from exc
        except (ValueError, RunFactsError) as exc:
            raise Inside((key,), _message(exc)) from exc
    return found


def _message(exc: Exception) -> str:
    return exc.message if isinstance(exc, RunFactsError) else str(exc)


def place(inner: Sequence[str | int]) -> str:
    """`[0].summary` for the path inside a value."""
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in inner)
