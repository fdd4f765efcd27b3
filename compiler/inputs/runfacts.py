"""Read per-turn run facts (SPEC 3.2) from a YAML/JSON file and command-line flags."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .._lib import checks
from .._lib.errors import Location, RunFactsError, did_you_mean
from .._lib.frozen import FrozenMap
from ..model.runfacts import (
    CHAT_TYPES,
    HARNESSES,
    PROMPT_MODES,
    RUN_FACT_CHECKS,
    SESSION_KINDS,
    ExecSession,
    RunFacts,
    Sandbox,
    Tool,
)
from . import yamlsrc

Convert = Callable[[Any], Any]
"""Turns a raw value into the field's value, or raises ValueError with a message."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bool, dict, list)):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return str(value)


def _level(value: Any) -> str | None:
    # YAML 1.1 reads a bare `off` / `on` as a boolean; a level is meant.
    if isinstance(value, bool):
        return "on" if value else "off"
    return _text(value)


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _optional_flag(value: Any) -> bool | None:
    return None if value is None else _flag(value)


def _one_of(*choices: str, optional: bool = False) -> Convert:
    def convert(value: Any) -> str | None:
        if value is None and optional:
            return None
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}; got {value!r}")
        return value

    return convert


class _Inside(ValueError):
    """A problem at a place inside a run fact's value, so the error points there (an item of a
    flow list is on the fact's own line, but at its own column)."""

    def __init__(self, inner: tuple, problem: str) -> None:
        super().__init__(problem)
        self.inner = inner
        """Keys and list indexes below the fact."""


def _each(items: list, convert: Convert) -> tuple:
    """`convert` applied to each item; a problem is placed at the item."""
    result = []
    for index, item in enumerate(items):
        try:
            result.append(convert(item))
        except _Inside as exc:
            raise _Inside((index, *exc.inner), str(exc)) from exc
        except (ValueError, RunFactsError) as exc:
            raise _Inside((index,), _problem(exc)) from exc
    return tuple(result)


def _member(value: Mapping[str, Any], key: str, convert: Convert, default: Any) -> Any:
    """One member of a mapping-valued fact, converted; a problem is placed at its key."""
    try:
        return convert(value.get(key, default))
    except _Inside as exc:
        raise _Inside((key, *exc.inner), str(exc)) from exc
    except ValueError as exc:
        raise _Inside((key,), str(exc)) from exc


def _unknown_members(value: Mapping[str, Any], known: tuple[str, ...], what: str) -> None:
    unknown = [key for key in value if key not in known]
    if unknown:
        raise _Inside((unknown[0],), f"unknown {what} key {unknown[0]!r} (expected {', '.join(known)})")


def _problem(exc: Exception) -> str:
    return exc.message if isinstance(exc, RunFactsError) else str(exc)


def _string(item: Any) -> str:
    if not isinstance(item, (str, int)) or isinstance(item, bool):
        raise ValueError(f"expected a string, got {checks.shown(item)}")
    return str(item)


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"expected a list of strings, got {checks.shown(value)}")
    return _each(value, _string)


def _tools(value: Any) -> tuple[Tool, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("expected a list of {name, summary} entries")
    return _each(value, _tool)


def _tool(item: Any) -> Tool:
    if isinstance(item, str):
        return Tool(item.strip())
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        raise ValueError("each tool must be a name or {name, summary}")
    _unknown_members(item, ("name", "summary"), "tool")
    if not isinstance(item.get("summary", ""), (str, type(None))):
        raise _Inside(("summary",), f"the summary of tool {item['name']!r} must be text")
    return Tool(item["name"].strip(), (item.get("summary") or "").strip())


def _sandbox(value: Any) -> Sandbox:
    if value is None:
        return Sandbox()
    if not isinstance(value, dict):
        raise ValueError("expected a mapping {enabled, paths, elevated_exec}")
    _unknown_members(value, ("enabled", "paths", "elevated_exec"), "sandbox")
    return Sandbox(
        _member(value, "enabled", _flag, False),
        _member(value, "paths", _strings, None),
        _member(value, "elevated_exec", _flag, False),
    )


def _exec_sessions(value: Any) -> tuple[ExecSession, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("expected a list of {id, status, name, pid, cwd} entries")
    return _each(value, _exec_session)


def _exec_session(item: Any) -> ExecSession:
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        raise ValueError("each exec session must be a mapping with an `id` (and optional status, name, pid, cwd)")
    _unknown_members(item, ("id", "status", "name", "pid", "cwd"), "exec session")
    pid = item.get("pid")
    if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int)):
        raise _Inside(("pid",), f"the pid of exec session {item['id']!r} must be a whole number")
    text = {key: _member(item, key, _text, None) for key in ("status", "name", "cwd")}
    return ExecSession(item["id"], text["status"] or "running", text["name"] or "", pid, text["cwd"])


def _user_values(value: Any) -> Any:
    """The `vars` mapping, each name and value checked where it is written."""
    if not isinstance(value, dict):
        raise ValueError("expected a mapping of user variable names to values")
    for name, item in value.items():
        problem = checks.variable_name(name)
        if problem is None:
            try:
                checks.plain(item, str(name))
            except ValueError as exc:
                problem = str(exc)
        if problem is not None:
            raise _Inside((name,), problem)
    return value


CONVERTERS: dict[str, Convert] = {
    "session": _one_of(*SESSION_KINDS),
    "mode": _one_of(*PROMPT_MODES, optional=True),
    "harness": _one_of(*HARNESSES),
    "chat_type": _one_of(*CHAT_TYPES, optional=True),
    "capabilities": _strings,
    "delivery": _one_of("normal", "message_tool_only"),
    "native_approvals": _flag,
    "tools": _tools,
    "sandbox": _sandbox,
    "owners": _strings,
    "memory_tools": _optional_flag,
    "light_context": _flag,
    "thinking": _level,
    "reasoning": _level,
    "reasoning_tag_hint": _flag,
    "deferred_tools": _tools,
    "exec_sessions": _exec_sessions,
    "message_tool_hints": _strings,
    "vars": _user_values,
}
"""Fields with a converter of their own; every other RunFacts field is optional text."""

FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(RunFacts) if f.name != "var_origins")
"""The keys a run file may hold (where each var came from is ours to record)."""
STDIN = "-"
"""`--run -` reads the run facts from standard input."""


def _unchanged(value: Any) -> Any:
    return value


def converter(name: str) -> Convert:
    """The converter for one run-fact key."""
    return CONVERTERS.get(name, _text)


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
    try:
        return RUN_FACT_CHECKS.get(key, _unchanged)(converter(key)(raw))
    except (ValueError, RunFactsError) as exc:
        inner = exc.inner if isinstance(exc, _Inside) else ()
        where = located.where((key, *inner)) if located else None
        place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in inner)
        raise RunFactsError(f"{label}{place}: {_problem(exc)}", where) from exc


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
        found[name] = checks.text(value)
        origins[name] = f"--var {text}"
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
