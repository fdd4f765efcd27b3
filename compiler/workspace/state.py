"""A workspace's own state: `.promptc/workspace-state.json` (setup progress), `promptc init`, and the
small JSON state files (workspace and session state) read and written atomically."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._lib import atomic, fsutil, resources
from .._lib.errors import Location, WorkspaceError
from .._lib.owned import owned_path
from .._lib.reads import UNRECORDED, Recorder
from ..model.workspace import BOOTSTRAP_FILE_NAMES
from .loader import MEMORY_FALLBACK_NAME

STATE_RELATIVE_PATH = Path(".promptc") / "workspace-state.json"
STATE_VERSION = 1
MAX_STATE_BYTES = 1024 * 1024
"""Bytes a state file may hold: they are a few hundred, and a larger one is refused."""
SEEDED_TEMPLATE_NAMES: tuple[str, ...] = tuple(n for n in BOOTSTRAP_FILE_NAMES if n != "MEMORY.md")
"""What `promptc init` writes, in load order (MEMORY.md is the agent's own to start)."""


# --------------------------------------------------------------------------- setup state


@dataclass(frozen=True, slots=True)
class WorkspaceState:
    """`.promptc/workspace-state.json`: when the workspace was seeded and when setup finished."""

    version: int = STATE_VERSION
    """Format version of the state file."""
    bootstrap_seeded_at: str | None = None
    """When `promptc init` wrote BOOTSTRAP.md (ISO 8601, as passed in)."""
    setup_completed_at: str | None = None
    """When BOOTSTRAP.md was first seen deleted after seeding."""

    @property
    def setup_complete(self) -> bool:
        """Whether BOOTSTRAP.md should no longer be injected."""
        return self.setup_completed_at is not None


def state_path(root: Path) -> Path:
    """Where the workspace keeps its setup state."""
    return Path(root) / STATE_RELATIVE_PATH


def read_state(root: Path, tracker: Recorder | None = None, identity: fsutil.Identity | None = None) -> WorkspaceState:
    """The workspace's setup state; the default (nothing seeded) when there is no state file.

    The file is opened below the workspace directory (a link out of it is refused, as for the
    bootstrap files); anything but a small regular file is a WorkspaceError.
    """
    path = state_path(root)
    data = _parse_json(_read_state_file(Path(root), tracker or UNRECORDED, identity), path, "workspace state")
    if data is None:
        return WorkspaceState()
    return WorkspaceState(
        version=_state_field(data, "version", int, str(path), default=STATE_VERSION),
        bootstrap_seeded_at=_state_field(data, "bootstrapSeededAt", str, str(path)),
        setup_completed_at=_state_field(data, "setupCompletedAt", str, str(path)),
    )


def _state_field(data: dict[str, Any], key: str, kind: type, path: str, default: Any = None) -> Any:
    """One optional field of the state object, type-checked."""
    value = data.get(key, default)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise WorkspaceError(f"workspace state field {key!r} must be {kind.__name__}", Location(path))
    return value


def write_state(root: Path, state: WorkspaceState) -> None:
    """Persist the setup state atomically; other keys in the file keep their text."""
    data: dict[str, Any] = {"version": state.version}
    if state.bootstrap_seeded_at is not None:
        data["bootstrapSeededAt"] = state.bootstrap_seeded_at
    if state.setup_completed_at is not None:
        data["setupCompletedAt"] = state.setup_completed_at
    path = owned(root, STATE_RELATIVE_PATH.as_posix())
    write_members(path, _read_state_file(Path(root), UNRECORDED, None), "workspace state", data)


def owned(root: Path, relative: str) -> Path:
    """`root / relative` for promptc to write, refused when a symlink on the way (the `.promptc`
    dir, say) would lead the write out of the workspace."""
    try:
        return owned_path(Path(root), relative)
    except fsutil.Refused as exc:
        raise WorkspaceError(f"refusing to write: {exc.detail}", Location(str(Path(root) / relative))) from exc


def next_state(state: WorkspaceState, *, bootstrap_present: bool, now: str) -> WorkspaceState:
    """Pure rule: a seeded workspace whose BOOTSTRAP.md is gone has completed its setup now."""
    if state.bootstrap_seeded_at is None or state.setup_complete or bootstrap_present:
        return state
    return replace(state, setup_completed_at=now)


# --------------------------------------------------------------------------- init


def init(root: Path, *, now: str) -> list[str]:
    """Seed a workspace with our default files, never overwriting; return the names written.

    BOOTSTRAP.md (the first-run setup guide) is written only into a brand-new workspace: no
    bootstrap file present and no setup recorded. Writing it records `bootstrapSeededAt = now`.
    """
    root = Path(root)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WorkspaceError(f"cannot create the workspace: {error.strerror or error}", Location(str(root))) from error
    state = read_state(root)
    brand_new = _is_brand_new(root, state)
    written = [
        name
        for name in SEEDED_TEMPLATE_NAMES
        if (name != "BOOTSTRAP.md" or brand_new) and _write_new(root / name, template_text(name))
    ]
    if "BOOTSTRAP.md" in written:
        write_state(root, replace(state, bootstrap_seeded_at=now))
    return written


def _is_brand_new(root: Path, state: WorkspaceState) -> bool:
    """No bootstrap file (or memory.md) exists and no setup was ever recorded."""
    entries = set(os.listdir(root))
    known = set(BOOTSTRAP_FILE_NAMES) | {MEMORY_FALLBACK_NAME}
    recorded = state.bootstrap_seeded_at is not None or state.setup_complete
    return not recorded and not (entries & known)


def _write_new(path: Path, text: str) -> bool:
    """Create `path` with `text` unless it exists already; True when written. Exclusive creation
    never follows a link in the file's own place (a linked AGENTS.md is the user's and left as it
    is), and the names are bare file names directly in the workspace."""
    try:
        with open(path, "x", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except FileExistsError:
        return False
    return True


def template_text(name: str) -> str:
    """The text of one of our built-in workspace templates (`templates/workspace/<name>`)."""
    return (resources.templates_root() / "workspace" / name).read_text(encoding="utf-8")


# --------------------------------------------------------------------------- JSON state files


def _read_state_file(root: Path, tracker: Recorder, identity: fsutil.Identity | None) -> bytes | None:
    path = str(state_path(root))
    try:
        fd = fsutil.open_below(root, str(STATE_RELATIVE_PATH), identity)
        try:
            data, info = fsutil.read_open(fd, MAX_STATE_BYTES)
        finally:
            os.close(fd)
    except FileNotFoundError:
        tracker.missing(path)
        return None
    except fsutil.Refused as refused:
        raise WorkspaceError(f"cannot read workspace state: it {refused.detail}", Location(path)) from refused
    except OSError as error:
        raise WorkspaceError(f"cannot read workspace state: {error.strerror or error}", Location(path)) from error
    tracker.file(path, info, data)
    return data


def read_json_object(path: Path, what: str) -> dict[str, Any] | None:
    """A small JSON state file's top-level object, or None when the file does not exist.

    Only a regular file of at most MAX_STATE_BYTES is read (a FIFO or a device is refused, never
    waited on); anything unreadable is a WorkspaceError naming `what` and, for bad JSON, the
    line and column.
    """
    return _parse_json(read_json_bytes(path, what), Path(path), what)


def read_json_bytes(path: Path, what: str) -> bytes | None:
    """The bytes of a small JSON state file the user named, or None when it does not exist."""
    try:
        return fsutil.read_regular(path, MAX_STATE_BYTES)[0]
    except FileNotFoundError:
        return None
    except fsutil.Refused as refused:
        raise WorkspaceError(f"cannot read {what}: it {refused.detail}", Location(str(path))) from refused
    except OSError as error:
        raise WorkspaceError(f"cannot read {what}: {error.strerror or error}", Location(str(path))) from error


def _parse_json(data: bytes | None, path: Path, what: str) -> dict[str, Any] | None:
    return None if data is None else _decode_object(data, path, what)[1]


def _decode_object(data: bytes, path: Path, what: str) -> tuple[str, dict[str, Any]]:
    """The text of a JSON state file and its top-level object; anything else a WorkspaceError."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorkspaceError(f"cannot read {what}: {error}", Location(str(path))) from error
    _check_bounds(text, str(path), what)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        where = Location(str(path), error.lineno, error.colno)
        raise WorkspaceError(f"{what} is not valid JSON: {error.msg}", where) from error
    if not isinstance(value, dict):
        raise WorkspaceError(f"{what} must be a JSON object", Location(str(path)))
    return text, value


MAX_JSON_DEPTH = 100
"""Levels of nested objects and arrays past which a state file is refused, as in config files:
the JSON parser recurses once a level."""
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?', re.DOTALL)
"""What the bounds check looks at: strings (skipped whole), brackets, numbers."""


def _check_bounds(text: str, path: str, what: str) -> None:
    """Refuse, with its line and column, what the JSON parser cannot take in its stride: nesting
    past MAX_JSON_DEPTH (a RecursionError) and an integer past Python's digit limit (a ValueError)."""
    depth, digits = 0, sys.get_int_max_str_digits() or None
    for token in _JSON_TOKEN.finditer(text):
        kind, number = token.group()[0], token.group().lstrip("-")
        depth += 1 if kind in "[{" else -1 if kind in "]}" else 0
        if depth > MAX_JSON_DEPTH:
            problem = f"nested more than {MAX_JSON_DEPTH} levels deep"
        elif digits and number.isdigit() and len(number) > digits:
            problem = f"a number with more than {digits} digits"
        else:
            continue
        raise WorkspaceError(f"cannot read {what}: {problem}", _where(text, path, token.start()))


def _where(text: str, path: str, offset: int) -> Location:
    return Location(path, text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset))


def write_members(path: Path, data: bytes | None, what: str, changes: Mapping[str, Any]) -> None:
    """Set `changes` in the JSON state file whose current bytes are `data` (None: there is no
    file yet), atomically. Every other member keeps its text byte for byte (a number JSON cannot
    round-trip, such as `1e400` or `-0`, an escaped lone surrogate), and so does the layout."""
    if data is None:
        write_json_atomic(path, dict(changes))
        return
    text, _ = _decode_object(data, path, what)
    atomic.write_text_atomic(Path(path), with_members(text, changes))


_SPACE = re.compile(r"[ \t\n\r]*")
"""Whitespace between JSON tokens (what the json module skips)."""


def with_members(text: str, changes: Mapping[str, Any]) -> str:
    """`text` (a valid JSON object) with each key of `changes` set: a present member's value
    replaced in place (the last one, which a reader sees, when a key repeats), a new member
    added after the last one. Values are written as `write_json_atomic` writes them."""
    spans, after_last = _member_spans(text)
    edits = [(*spans[key], _value_text(value)) for key, value in changes.items() if key in spans]
    added = [f"{json.dumps(key)}: {_value_text(value)}" for key, value in changes.items() if key not in spans]
    if added:
        joined = "".join(f",\n  {member}" for member in added)
        edits.append((after_last, after_last, joined if spans else joined[1:] + "\n"))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _member_spans(text: str) -> tuple[dict[str, tuple[int, int]], int]:
    """Where each top-level member's value starts and ends, and where a new member goes (after
    the last value, else just inside the `{`)."""
    decoder, spans = json.JSONDecoder(), {}
    at = after_last = _skip(text, 0) + 1
    at = _skip(text, at)
    while text[at] != "}":
        key, at = decoder.raw_decode(text, at)
        start = _skip(text, _skip(text, at) + 1)
        _, after_last = decoder.raw_decode(text, start)
        spans[key] = (start, after_last)
        at = _skip(text, after_last)
        at = _skip(text, at + 1) if text[at] == "," else at
    return spans, after_last


def _skip(text: str, at: int) -> int:
    """The offset of the first token at or after `at`."""
    space = _SPACE.match(text, at)
    return space.end() if space else at


def _value_text(value: Any) -> str:
    """One member's value as indented JSON two spaces in; escapes keep it ASCII."""
    return json.dumps(value, indent=2).replace("\n", "\n  ")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write `data` as indented JSON, atomically (temp file beside it, then rename). Non-ASCII
    characters are escaped, so any string, a lone surrogate too, gives valid UTF-8 JSON."""
    atomic.write_text_atomic(Path(path), json.dumps(data, indent=2) + "\n")
