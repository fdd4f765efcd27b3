"""Read a session file for replay: header, entries, and the messages the runtime would send."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .._lib.errors import Location, TranscriptError
from .._lib.fsutil import Refused, open_regular
from .encode import loads
from .model import CompactionSummary, Entry, SessionHeader, Transcript, parse_entry, parse_header


@dataclass(frozen=True, slots=True)
class Session:
    """A parsed session file."""

    header: SessionHeader
    """Line 1."""
    entries: tuple[Entry, ...]
    """Every later non-blank line, in file order."""


def read_session(path: Path) -> Session:
    """Parse a whole session file; any malformed line is an error (repair first)."""
    with open_session(path) as lines:
        try:
            return parse_session(lines, path)
        except OSError as error:
            raise _unreadable(path, error) from error


def open_session(path: Path) -> BinaryIO:
    """A session file opened to stream through it: a FIFO or device (also one swapped in after a
    first check) is one error line, never a read that blocks."""
    try:
        return open_regular(path)
    except Refused as refused:
        raise TranscriptError(f"cannot read session file: it {refused.detail}", Location(str(path))) from refused
    except OSError as error:
        raise _unreadable(path, error) from error


def _unreadable(path: Path, error: OSError) -> TranscriptError:
    return TranscriptError(f"cannot read session file: {error.strerror}", Location(str(path)))


def parse_session(lines: Iterable[bytes], path: Path) -> Session:
    """Parse a session's lines (a file, or standard input); errors name `path` and the line."""
    header: SessionHeader | None = None
    entries: list[Entry] = []
    for number, raw in enumerate(lines, 1):
        value = _parse_line(raw, path, number)
        if value is None:
            continue
        if header is None:
            header = _checked_header(value, path, number)
        else:
            entries.append(parse_entry(value))
    if header is None:
        raise TranscriptError("empty session file: no header line", Location(str(path)))
    return Session(header, tuple(entries))


def _parse_line(raw: bytes, path: Path, number: int) -> dict | None:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    if not text.strip():
        return None
    try:
        value = loads(text)
    except json.JSONDecodeError as error:
        where = Location(str(path), number, error.colno)
        raise TranscriptError(f"malformed JSON ({error.msg}); run `promptc transcript repair` first", where) from error
    except (ValueError, RecursionError) as error:
        where = Location(str(path), number, 1)
        raise TranscriptError(f"malformed JSON ({error}); run `promptc transcript repair` first", where) from error
    if not isinstance(value, dict):
        raise TranscriptError("a session line must be a JSON object", Location(str(path), number, 1))
    return value


def _checked_header(value: dict, path: Path, number: int) -> SessionHeader:
    header = parse_header(value)
    if not header.valid:
        reason = "invalid session header: expected type `session` and a non-empty id"
        raise TranscriptError(reason, Location(str(path), number, 1))
    return header


def replay_messages(entries: tuple[Entry, ...]) -> Transcript:
    """The messages of the active branch, as the runtime builds its context.

    After a compaction the history is: its summary, the kept entries from `firstKeptEntryId` up
    to the compaction, then everything after it. Entry types other than `message` and
    `compaction` carry no replayed message and are skipped.
    """
    branch = active_branch(entries)
    cut = max((i for i, e in enumerate(branch) if e.type == "compaction"), default=None)
    if cut is None:
        return _replayed(branch)
    compaction = branch[cut]
    first_kept = next((i for i, e in enumerate(branch[:cut]) if e.id == compaction.raw.get("firstKeptEntryId")), cut)
    kept = branch[first_kept:cut] + branch[cut + 1 :]
    summary = CompactionSummary(summary=compaction.raw.get("summary"), timestamp=compaction.timestamp)
    return (summary, *_replayed(kept))


def _replayed(entries: tuple[Entry, ...]) -> Transcript:
    """The messages of the `message` entries, in order."""
    return tuple(e.message for e in entries if e.type == "message" and e.message is not None)


def active_branch(entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    """Root-to-leaf path ending at the last entry, following `parentId`; file order when ids are missing."""
    if not entries or not all(isinstance(e.id, str) for e in entries):
        return entries
    by_id = {e.id: e for e in entries}
    path: list[Entry] = []
    seen: set[str] = set()
    node: Entry | None = entries[-1]
    while node is not None and node.id not in seen:  # a parentId cycle ends the walk
        seen.add(node.id)
        path.append(node)
        node = by_id.get(node.parent_id) if isinstance(node.parent_id, str) else None
    return tuple(reversed(path))
