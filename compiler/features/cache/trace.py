"""Session traces for the cache simulator: one JSON object per line, one turn per object.

    {"at": 0, "run": {"channel": "telegram"}}
    {"at": 95, "run": {"owners": ["tg:2"]}, "edits": [{"file": "MEMORY.md", "append": "- new note"}]}

`at` is seconds since the trace started (never decreasing); `run` holds run facts laid over the
base facts (`--run`) for this turn only; `edits` change the simulation's copy of the workspace
before the turn compiles: `append` adds a line, `write` replaces the file, `replace: [old, new]`
changes the first occurrence, `delete: true` removes it.

A trace is read as a regular file of at most MAX_TRACE_BYTES (never a FIFO or a device), and an
edit writes or deletes only below the simulation's copy of the workspace: a path through a
symlink there, or one no file system could hold, is refused with the trace line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..._lib.atomic import write_text_atomic
from ..._lib.errors import Location, PromptcError, one_line
from ..._lib.fsutil import Refused, read_input, read_regular
from ..._lib.owned import owned_path

EDIT_KINDS = ("append", "write", "replace", "delete")
MAX_TRACE_BYTES = 64 * 1024 * 1024
"""The largest trace file read (a 200-turn trace is tens of kilobytes)."""
MAX_EDITED_BYTES = 16 * 1024 * 1024
"""The largest workspace file an edit reads back to change it."""


class TraceError(PromptcError):
    """A trace file is malformed."""


@dataclass(frozen=True, slots=True)
class Edit:
    """One change to a workspace file before a turn."""

    file: str
    """Path relative to the workspace (forward slashes, never leaving it)."""
    kind: str
    """`append`, `write`, `replace` or `delete`."""
    text: str = ""
    """The appended line, the new content, or the replacement."""
    old: str = ""
    """For `replace`: the text to find."""


@dataclass(frozen=True, slots=True)
class Event:
    """One turn of a trace."""

    at: float
    """Seconds since the start of the trace."""
    run: Mapping[str, Any]
    """Run-fact overrides for this turn."""
    edits: tuple[Edit, ...]
    """Workspace changes applied before this turn compiles."""
    line: int
    """Where the event is in the trace file."""


def load(path: Path) -> tuple[Event, ...]:
    """Every event of a trace file, validated; errors name the line."""
    data = read_input(Path(path), TraceError, MAX_TRACE_BYTES)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise TraceError(f"cannot read trace: not UTF-8 (byte {exc.start + 1})", Location(str(path))) from exc
    events: list[Event] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            events.append(_event(line, Location(str(path), number, 1), events[-1].at if events else 0.0))
    if not events:
        raise TraceError("the trace holds no events", Location(str(path)))
    return tuple(events)


def _event(line: str, where: Location, previous_at: float) -> Event:
    data = _parsed(line, where)
    if not isinstance(data, dict):
        raise TraceError("an event must be a JSON object", where)
    unknown = sorted(set(data) - {"at", "run", "edits"})
    if unknown:
        raise TraceError(f"unknown event key {unknown[0]!r} (expected at, run, edits)", where)
    at = _seconds(data.get("at", previous_at))
    if at is None or at < previous_at:
        raise TraceError(f"'at' must be a number of seconds, not before the previous event ({previous_at})", where)
    run = data.get("run", {})
    if not isinstance(run, dict):
        raise TraceError("'run' must be an object of run facts", where)
    edits = data.get("edits", [])
    if not isinstance(edits, list):
        raise TraceError("'edits' must be a list", where)
    return Event(at, run, tuple(_edit(item, where) for item in edits), where.line or 0)


def _parsed(line: str, where: Location) -> Any:
    """One line's JSON; too deep, a number too long, or a lone surrogate is a located error."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TraceError(f"not valid JSON: {exc.msg}", Location(where.path, where.line, exc.colno)) from exc
    except RecursionError as exc:
        raise TraceError("not valid JSON: nested too deeply", where) from exc
    except ValueError as exc:  # an integer of thousands of digits
        raise TraceError("not valid JSON: a number too long to read", where) from exc
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TraceError("a string holds a lone surrogate (\\ud800-\\udfff), which is not text", where) from exc
    except RecursionError as exc:
        raise TraceError("not valid JSON: nested too deeply", where) from exc
    return data


def _seconds(value: Any) -> float | None:
    """A finite number of seconds, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = float(value)
    except OverflowError:
        return None
    return seconds if math.isfinite(seconds) else None


def _edit(item: Any, where: Location) -> Edit:
    if not isinstance(item, dict) or not isinstance(item.get("file"), str):
        raise TraceError("each edit needs a 'file' and one of " + ", ".join(EDIT_KINDS), where)
    kinds = [k for k in EDIT_KINDS if k in item]
    if len(kinds) != 1 or set(item) - {"file", *EDIT_KINDS}:
        raise TraceError(f"edit of {item['file']!r} must have exactly one of {', '.join(EDIT_KINDS)}", where)
    _check_relative(item["file"], where)
    kind, value = kinds[0], item[kinds[0]]
    if kind == "replace":
        if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)):
            raise TraceError("'replace' takes [old, new]", where)
        return Edit(item["file"], kind, value[1], value[0])
    if kind == "delete":
        return Edit(item["file"], kind)
    if not isinstance(value, str):
        raise TraceError(f"'{kind}' takes text", where)
    return Edit(item["file"], kind, value)


def _check_relative(name: str, where: Location) -> None:
    parts = PurePosixPath(name).parts
    if not parts or PurePosixPath(name).is_absolute() or ".." in parts or "\\" in name:
        raise TraceError(f"edit path {name!r} must stay inside the workspace", where)


def apply(edits: tuple[Edit, ...], workspace: Path, event: Event, trace: Path) -> None:
    """Apply one event's edits to the simulation's workspace copy, never outside it; errors name
    the trace line (never the copy's path)."""
    where = Location(str(trace), event.line, 1)
    for edit in edits:
        shown = one_line(repr(edit.file))
        try:
            _apply_one(edit, owned_path(workspace, edit.file), where)
        except Refused as exc:
            raise TraceError(f"edit of {shown}: {exc.detail}", where) from exc
        except OSError as exc:
            raise TraceError(f"edit of {shown}: {exc.strerror or type(exc).__name__}", where) from exc


def _apply_one(edit: Edit, target: Path, where: Location) -> None:
    if edit.kind == "delete":
        if target.is_dir():
            raise TraceError(f"edit of {one_line(repr(edit.file))}: cannot delete a directory", where)
        target.unlink(missing_ok=True)
        return
    current = _current(target, edit, where)
    if edit.kind == "replace" and edit.old not in current:
        raise TraceError(f"replace in {one_line(edit.file)}: text not found", where)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target, _edited(current, edit))


def _current(target: Path, edit: Edit, where: Location) -> str:
    """The file's text before the edit ('' when it does not exist yet)."""
    if not target.exists():
        return ""
    data, _ = read_regular(target, MAX_EDITED_BYTES)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceError(f"edit of {one_line(repr(edit.file))}: the file is not UTF-8 text", where) from exc


def _edited(current: str, edit: Edit) -> str:
    if edit.kind == "write":
        return edit.text
    if edit.kind == "replace":
        return current.replace(edit.old, edit.text, 1)
    joined = current if not current or current.endswith("\n") else current + "\n"
    return joined + edit.text + "\n"
