"""The structured values inside run facts: a tool, the sandbox, a background exec session. Each
checks its own fields, and `of` builds one from the plain data a run file holds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._lib import checks
from .._lib.errors import RunFactsError
from .facts import Inside, each, members, place, read_text


def validate_fields(instance: Any, checks_by_field: Mapping[str, checks.Check], prefix: str = "") -> None:
    """Run each field's check and store what it returns; a failure is one RunFactsError naming
    the field and the place inside its value."""
    for name, check in checks_by_field.items():
        value = getattr(instance, name)
        try:
            checked = check(value)
        except ValueError as exc:
            inner = place(exc.inner) if isinstance(exc, Inside) else ""
            raise RunFactsError(f"{prefix}{name}{inner}: {exc}") from exc
        if checked is not value:
            object.__setattr__(instance, name, checked)


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool the model can call this turn."""

    name: str
    """The tool's name as the runtime spells it."""
    summary: str = ""
    """A one-line description; empty renders the bare name."""

    def __post_init__(self) -> None:
        validate_fields(self, {"name": checks.one_line_text, "summary": checks.one_line_text}, "tool ")

    @classmethod
    def of(cls, item: Any) -> Tool:
        """A Tool from a Tool, a bare name or a `{name, summary}` mapping (as a run file has it)."""
        if isinstance(item, Tool):
            return item
        if isinstance(item, str):
            return cls(item.strip())
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise ValueError("each tool must be a name or {name, summary}")
        found = members(item, {"name": checks.text, "summary": checks.optional(checks.text)}, "tool")
        return cls(found["name"].strip(), (found.get("summary") or "").strip())


@dataclass(frozen=True, slots=True)
class Sandbox:
    """Where the agent's commands run."""

    enabled: bool = False
    """Whether tool calls are confined to a sandbox."""
    paths: tuple[str, ...] = ()
    """Paths visible inside the sandbox; the first is the working directory."""
    elevated_exec: bool = False
    """Whether an elevated (host) exec escape hatch exists."""

    def __post_init__(self) -> None:
        fields = {"enabled": checks.flag, "paths": checks.one_line_texts, "elevated_exec": checks.flag}
        validate_fields(self, fields, "sandbox.")

    @classmethod
    def of(cls, value: Any) -> Sandbox:
        """A Sandbox from a Sandbox, null (none) or an `{enabled, paths, elevated_exec}` mapping."""
        if isinstance(value, Sandbox):
            return value
        if value is None:
            return cls()
        if not isinstance(value, Mapping):
            raise ValueError("expected a mapping {enabled, paths, elevated_exec}")
        text_list = each(_as_text(checks.one_line_text), "strings")
        return cls(
            **members(value, {"enabled": checks.flag, "paths": text_list, "elevated_exec": checks.flag}, "sandbox")
        )


@dataclass(frozen=True, slots=True)
class ExecSession:
    """A background exec session still running in this scope."""

    id: str
    """The session id the process tool takes."""
    status: str = "running"
    """What the runtime reports (`running`, `waiting`, ...)."""
    name: str = ""
    """The command or label it was started with (a command line may span lines: the runtime
    section folds it)."""
    pid: int | None = None
    """Process id, when known."""
    cwd: str | None = None
    """Working directory, when known."""

    def __post_init__(self) -> None:
        validate_fields(self, _EXEC_SESSION_CHECKS, "exec session ")

    @classmethod
    def of(cls, item: Any) -> ExecSession:
        """An ExecSession from one, or from an `{id, status, name, pid, cwd}` mapping."""
        if isinstance(item, ExecSession):
            return item
        if not isinstance(item, Mapping) or not isinstance(item.get("id"), str):
            raise ValueError("each exec session must be a mapping with an `id` (and optional status, name, pid, cwd)")
        text = {key: _as_text(_EXEC_SESSION_CHECKS[key]) for key in ("status", "name", "cwd")}
        found = members(item, {**_EXEC_SESSION_CHECKS, **text}, "exec session")
        return cls(**{key: value for key, value in found.items() if value not in (None, "")})


_EXEC_SESSION_CHECKS: dict[str, checks.Check] = {
    "id": checks.one_line_text,
    "status": checks.one_line_text,
    "name": checks.text,
    "pid": checks.optional(checks.whole_number),
    "cwd": checks.optional(checks.one_line_text),
}


def _as_text(check: checks.Check) -> checks.Check:
    """`check` of a value a run file may write as a number (`cwd: 2026`)."""
    return lambda value: check(read_text(value))
