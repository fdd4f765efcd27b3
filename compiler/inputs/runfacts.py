"""Read per-turn run facts from a YAML/JSON file and command-line flags, by their declarations
(model/runfacts.py): every key a file may hold, its conversion and its check."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._lib import checks
from .._lib.errors import Location, RunFactsError, did_you_mean
from .._lib.frozen import FrozenMap
from ..model.facts import Declared, Inside, place
from ..model.runfacts import FACTS, RunFacts, var_text_problem
from . import yamlsrc

BY_NAME: dict[str, Declared] = {d.name: d for d in FACTS}
FIELD_NAMES: tuple[str, ...] = tuple(d.name for d in FACTS if d.fact.file)
"""The keys a run file may hold."""
STDIN = "-"
"""`--run -` reads the run facts from standard input."""


def converter(key: str) -> Callable[[Any], Any]:
    """One run-file key's conversion and check (its declaration's `read`, then `check`)."""
    declared = BY_NAME[key]
    return lambda raw: declared.check(declared.read(raw))


def flag_name(key: str) -> str:
    """The command-line flag that sets a run fact: `chat_type` -> `--chat-type`."""
    return "--" + key.replace("_", "-")


def from_mapping(
    data: Mapping[str, Any],
    located: yamlsrc.Located | None = None,
    *,
    flags: Mapping[str, Any] | None = None,
    var_flags: Sequence[str] = (),
) -> RunFacts:
    """RunFacts from plain data, then run-fact flags over it (None values ignored) and `--var
    NAME=VALUE` flags over its `vars`. Unknown keys and bad values raise RunFactsError: located
    in the file for its keys, naming the flag for a flag."""
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in FIELD_NAMES:
            raise RunFactsError(_unknown(str(key)), located.where((key,)) if located else None)
        values[key] = _checked(key, raw, str(key), located)
    for key, raw in (flags or {}).items():
        if raw is not None:
            values[key] = _checked(key, raw, flag_name(key), None)
    file_vars = values.pop("vars", FrozenMap())
    origins = {name: str(located.where(("vars", name))) for name in file_vars} if located else {}
    given = {**file_vars, **_var_flags(var_flags, origins)}
    if given:
        values["vars"], values["var_origins"] = given, origins
    return RunFacts(**values)


def _checked(key: str, raw: Any, label: str, located: yamlsrc.Located | None) -> Any:
    """One fact converted and checked; a problem is located at the place inside it, when known
    (a Tool or Sandbox refusing one of its own fields names the field itself)."""
    declared = BY_NAME[key]
    try:
        return declared.check(declared.read(raw))
    except (ValueError, RunFactsError) as exc:
        inner = exc.inner if isinstance(exc, Inside) else ()
        where = located.where((key, *inner)) if located else None
        message = exc.message if isinstance(exc, RunFactsError) else str(exc)
        raise RunFactsError(f"{label}{place(inner)}: {message}", where) from exc


def _var_flags(texts: Sequence[str], origins: dict[str, str]) -> dict[str, str]:
    """`--var NAME=VALUE` flags as {name: value}; the value is text, taken as written."""
    found: dict[str, str] = {}
    for text in texts:
        name, sep, value = text.partition("=")
        if not sep:
            raise RunFactsError(f"--var: expected NAME=VALUE, got {text!r}")
        problem = checks.variable_name(name)
        if problem is not None:
            raise RunFactsError(f"--var {text}: {problem}")
        value = checks.text(value)
        problem = var_text_problem(value, f"--var {name}")
        if problem is not None:
            raise RunFactsError(problem)
        found[name] = value
        # The origin is one line: a value over several lines is named by its flag alone.
        origins[name] = f"--var {text}" if "\n" not in value else f"--var {name}"
    return found


def load(
    path: str | Path | None, overrides: Mapping[str, Any] | None = None, var_flags: Sequence[str] = ()
) -> RunFacts:
    """Run facts from an optional YAML/JSON file (`-`: standard input), then the run-fact flags
    (`overrides`, each checked on its own: an error names the flag) and the `--var` flags."""
    if path is None:
        return from_mapping({}, flags=overrides, var_flags=var_flags)
    if str(path) == STDIN:
        return load_text(sys.stdin.read(), "<stdin>", overrides, var_flags)
    located = yamlsrc.load_file(Path(path), RunFactsError)
    return from_mapping(_document(located), located, flags=overrides, var_flags=var_flags)


def load_text(
    text: str, label: str, overrides: Mapping[str, Any] | None = None, var_flags: Sequence[str] = ()
) -> RunFacts:
    """Run facts from YAML/JSON text (errors name `label`), then the flags as `load` does."""
    located = yamlsrc.parse(text, label, RunFactsError)
    return from_mapping(_document(located), located, flags=overrides, var_flags=var_flags)


def _document(located: yamlsrc.Located) -> dict[str, Any]:
    if located.value is not None and not isinstance(located.value, dict):
        raise RunFactsError("run facts must be a mapping", Location(located.path, 1, 1))
    return dict(located.value or {})


def _unknown(key: str) -> str:
    hint = did_you_mean(key, FIELD_NAMES, " (a value for a template's own variable goes under `vars:`)")
    return f"unknown run-fact key '{key}'{hint}"
