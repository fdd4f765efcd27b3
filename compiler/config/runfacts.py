"""Read per-turn run facts (SPEC 3.2) from a YAML/JSON file and command-line flags."""

from __future__ import annotations

import dataclasses
import difflib
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .. import checks
from ..errors import Location, RunFactsError
from ..frozen import FrozenMap
from ..model import CHAT_TYPES, HARNESSES, PROMPT_MODES, RUN_FACT_CHECKS, SESSION_KINDS, ExecSession, RunFacts, Sandbox, Tool
from . import yamlsrc

Convert = Callable[[Any], Any]
"""Turns a raw value into the field's value, or raises ValueError with a message."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or isinstance(value, (dict, list)):
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


def _strings(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, (str, int)) for item in value):
        raise ValueError("expected a list of strings")
    return tuple(str(item) for item in value)


def _tools(value: Any) -> tuple[Tool, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("expected a list of {name, summary} entries")
    return tuple(_tool(item) for item in value)


def _tool(item: Any) -> Tool:
    if isinstance(item, str):
        return Tool(item.strip())
    if not isinstance(item, dict) or set(item) - {"name", "summary"} or not isinstance(item.get("name"), str):
        raise ValueError("each tool must be a name or {name, summary}")
    if not isinstance(item.get("summary", ""), (str, type(None))):
        raise ValueError(f"the summary of tool {item['name']!r} must be text")
    return Tool(item["name"].strip(), (item.get("summary") or "").strip())


def _sandbox(value: Any) -> Sandbox:
    if value is None:
        return Sandbox()
    if not isinstance(value, dict):
        raise ValueError("expected a mapping {enabled, paths, elevated_exec}")
    unknown = set(value) - {"enabled", "paths", "elevated_exec"}
    if unknown:
        raise ValueError(f"unknown sandbox key {sorted(unknown)[0]!r}")
    return Sandbox(
        _flag(value.get("enabled", False)),
        _strings(value.get("paths")),
        _flag(value.get("elevated_exec", False)),
    )


def _exec_sessions(value: Any) -> tuple[ExecSession, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError("expected a list of {id, status, name, pid, cwd} entries")
    return tuple(_exec_session(item) for item in value)


def _exec_session(item: Any) -> ExecSession:
    if not isinstance(item, dict) or set(item) - {"id", "status", "name", "pid", "cwd"} or not isinstance(item.get("id"), str):
        raise ValueError("each exec session must be a mapping with an `id` (and optional status, name, pid, cwd)")
    pid = item.get("pid")
    if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int)):
        raise ValueError(f"the pid of exec session {item['id']!r} must be a whole number")
    text = {key: _text(item.get(key)) for key in ("status", "name", "cwd")}
    return ExecSession(item["id"], text["status"] or "running", text["name"] or "", pid, text["cwd"])


def _unchanged_mapping(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError("expected a mapping of user variable names to values")
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
    "vars": _unchanged_mapping,
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
        where = located.where((key,)) if located else None
        if key not in FIELD_NAMES:
            raise RunFactsError(_unknown(str(key)), where)
        values[key] = _checked(key, raw, str(key), where)
    for key, raw in (flags or {}).items():
        if raw is not None:
            values[key] = _checked(key, raw, flag_name(key), None)
    file_vars = values.pop("vars", FrozenMap())
    origins = {name: str(located.where(("vars", name))) for name in file_vars} if located else {}
    given = {**file_vars, **_var_flags(var_flags, origins)}
    if given:
        values["vars"], values["var_origins"] = given, origins
    return RunFacts(**values)


def _checked(key: str, raw: Any, label: str, where: Location | None) -> Any:
    try:
        return RUN_FACT_CHECKS.get(key, _unchanged)(converter(key)(raw))
    except ValueError as exc:
        raise RunFactsError(f"{label}: {exc}", where) from exc
    except RunFactsError as exc:  # a Tool or Sandbox refused one of its own fields
        raise RunFactsError(f"{label}: {exc.message}", where) from exc


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


def load(path: str | Path | None, overrides: Mapping[str, Any] | None = None, var_flags: Sequence[str] = ()) -> RunFacts:
    """Run facts from an optional YAML/JSON file (`-`: standard input), then the run-fact flags
    (`overrides`, each checked on its own: an error names the flag) and the `--var` flags."""
    if path is None:
        return from_mapping({}, flags=overrides, var_flags=var_flags)
    if str(path) == STDIN:
        return load_text(sys.stdin.read(), "<stdin>", overrides, var_flags)
    located = yamlsrc.load_file(Path(path), RunFactsError)
    return from_mapping(_document(located), located, flags=overrides, var_flags=var_flags)


def load_text(text: str, label: str, overrides: Mapping[str, Any] | None = None, var_flags: Sequence[str] = ()) -> RunFacts:
    """Run facts from YAML/JSON text (errors name `label`), then the flags as `load` does."""
    located = yamlsrc.parse(text, label, RunFactsError)
    return from_mapping(_document(located), located, flags=overrides, var_flags=var_flags)


def _document(located: yamlsrc.Located) -> dict[str, Any]:
    if located.value is not None and not isinstance(located.value, dict):
        raise RunFactsError("run facts must be a mapping", Location(located.path, 1, 1))
    return dict(located.value or {})


def _unknown(key: str) -> str:
    match = difflib.get_close_matches(key, FIELD_NAMES, n=1, cutoff=0.6)
    hint = f" (did you mean '{match[0]}'?)" if match else " (a value for a template's own variable goes under `vars:`)"
    return f"unknown run-fact key '{key}'{hint}"
