"""On-disk session repair: drop malformed lines and fill turns no provider accepts, streaming, atomically.

The file is read twice, line by line: once to find out whether anything needs fixing (a clean
file is never written), once to write the fixed copy. Lines that need no fix are copied byte for
byte, so CRLF endings, key order and number formats survive. A symlink is followed: the file it
points to is repaired (its backup goes beside it) and the link itself is left in place.
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import Location, TranscriptError
from ..fsutil import write_chunks_atomic
from .jsonline import dumps
from .model import AssistantMessage, TextBlock, UserMessage, loads, parse_entry, parse_header, to_json
from .queries import is_blank_text
from .texts import DEFAULT_TEXTS, Texts

MALFORMED = "malformed"
FAILED_ASSISTANT = "failed_assistant"
BLANK_USER = "blank_user"

_CHANGE_WORDS = {
    MALFORMED: ("dropped {n} malformed line", "dropped {n} malformed lines"),
    FAILED_ASSISTANT: ("rewrote {n} empty failed assistant turn", "rewrote {n} empty failed assistant turns"),
    BLANK_USER: ("rewrote {n} user turn with blank text", "rewrote {n} user turns with blank text"),
}


@dataclass(frozen=True)
class RepairReport:
    """What `repair_file` did to one file."""

    path: Path
    """The session file, as given (possibly a symlink)."""
    status: str
    """`clean` (untouched), `repaired`, or `refused` (untouched; see `reason`)."""
    changes: Counter[str]
    """How many lines each kind of fix touched (MALFORMED, FAILED_ASSISTANT, BLANK_USER)."""
    backup: Path | None = None
    """Copy of the original bytes, when the file was repaired (beside the file a symlink points to)."""
    reason: str | None = None
    """Why the file was refused."""

    def summary(self) -> str:
        """One line for the user."""
        if self.status == "refused":
            return f"{self.path}: not repaired, file left as it was: {self.reason}"
        if self.status == "clean":
            return f"{self.path}: nothing to repair"
        counts = [(words, self.changes[kind]) for kind, words in _CHANGE_WORDS.items() if self.changes[kind]]
        done = ", ".join(words[n != 1].format(n=n) for words, n in counts)
        return f"{self.path}: repaired ({done}); original kept at {self.backup}"


@dataclass(frozen=True)
class LineFix:
    """The outcome for one line of the file."""

    output: bytes
    """Bytes the repaired file gets for this line (empty when the line is dropped)."""
    change: str | None
    """Kind of fix applied, or None when the line is copied as is."""
    value: Any = None
    """The parsed JSON object, when the line held one."""


class _Refused(Exception):
    """The file is not a session file we may rewrite."""


def repair_file(path: Path, texts: Texts = DEFAULT_TEXTS) -> RepairReport:
    """Repair one session file in place (see the module docstring); a second run is a no-op."""
    before = _file_state(path)
    # Replacing a symlink would turn it into a copy and leave its target broken: work on the target.
    target = path.resolve()
    try:
        changes = Counter(fix.change for fix in _planned_lines(target, texts) if fix.change)
    except _Refused as refused:
        return RepairReport(path, "refused", Counter(), reason=str(refused))
    if not changes:
        return RepairReport(path, "clean", changes)
    try:
        backup = _rewrite(target, texts, before)
    except _Refused as refused:
        # The header broke between the two passes; nothing was replaced.
        return RepairReport(path, "refused", Counter(), reason=f"{refused} (it changed during the repair)")
    return RepairReport(path, "repaired", changes, backup=backup)


def _file_state(path: Path) -> tuple[int, int, int]:
    try:
        info = path.stat()
    except OSError as error:
        raise TranscriptError(f"cannot read session file: {error.strerror}", Location(str(path))) from error
    if not stat.S_ISREG(info.st_mode):
        raise TranscriptError("not a regular file", Location(str(path)))
    return info.st_size, info.st_mtime_ns, stat.S_IMODE(info.st_mode)


def _planned_lines(path: Path, texts: Texts) -> Iterator[LineFix]:
    """Fix every line in order; raises _Refused when the first entry is not a valid header."""
    header_seen = False
    with open(path, "rb") as lines:
        for number, raw in enumerate(lines, 1):
            fix = fix_line(raw, texts)
            if fix.value is not None and not header_seen:
                if not parse_header(fix.value).valid:
                    raise _Refused(f"line {number} is not a valid session header (type `session` with an id)")
                header_seen = True
            yield fix
    if not header_seen:
        raise _Refused("no session header: the file has no JSON entries")


def fix_line(raw: bytes, texts: Texts = DEFAULT_TEXTS) -> LineFix:
    """Decide one line: copy it, drop it (not a JSON object), or rewrite its entry."""
    body = raw.rstrip(b"\r\n")
    text = body.decode("utf-8", errors="replace")
    if not text.strip():
        return LineFix(raw, None)
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        return LineFix(b"", MALFORMED)
    if not isinstance(value, dict):
        return LineFix(b"", MALFORMED)
    fixed, change = _fix_entry(value, texts)
    if change is None:
        return LineFix(raw, None, value)
    # A lone surrogate (from a `\\uXXXX` escape) becomes that escape again, which JSON reads back.
    return LineFix(dumps(fixed).encode("utf-8", errors="backslashreplace") + raw[len(body):], change, value)


def _fix_entry(value: dict, texts: Texts) -> tuple[Any, str | None]:
    """The entry's JSON with its message fixed, and the kind of fix (None when nothing changed)."""
    message = value.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    if value.get("type") != "message" or role not in ("user", "assistant"):
        return value, None
    entry = parse_entry(value)
    fixed, change = _fix_message(entry.message, texts)
    return (to_json(replace(entry, message=fixed)), change) if change else (value, None)


def _fix_message(message: Any, texts: Texts) -> tuple[Any, str | None]:
    if isinstance(message, AssistantMessage) and message.content == () and message.stop_reason == "error":
        # Some providers reject an empty assistant turn, and the session would fail on every retry.
        return replace(message, content=(TextBlock(text=texts.failed_turn),)), FAILED_ASSISTANT
    if isinstance(message, UserMessage):
        filled = _fill_blank_user(message, texts.blank_user_turn)
        return filled, (BLANK_USER if filled is not message else None)
    return message, None


def _fill_blank_user(message: UserMessage, placeholder: str) -> UserMessage:
    """Blank text blocks go; a turn left with nothing gets the placeholder, so no user turn is lost."""
    if isinstance(message.content, str):
        return message if message.content.strip() else replace(message, content=placeholder)
    kept = tuple(b for b in message.content if not is_blank_text(b))
    if kept and len(kept) == len(message.content):
        return message
    return replace(message, content=kept or (TextBlock(text=placeholder),))


def _rewrite(path: Path, texts: Texts, before: tuple[int, int, int]) -> Path:
    """Back up the original, then atomically replace it with the fixed lines; returns the backup."""
    mode = before[2]
    backup = path.with_name(f"{path.name}.bak-{os.getpid()}-{time.time_ns() // 1_000_000}")
    try:
        shutil.copyfile(path, backup)
        os.chmod(backup, mode)
        write_chunks_atomic(path, _fixed_bytes(path, texts, before), mode, error=TranscriptError)
    except BaseException as error:
        # The original is untouched, so the backup would only be litter.
        backup.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise TranscriptError(f"repair failed, file left as it was: {error}", Location(str(path))) from error
        raise
    return backup


def _fixed_bytes(path: Path, texts: Texts, before: tuple[int, int, int]) -> Iterator[bytes]:
    yield from (fix.output for fix in _planned_lines(path, texts))
    # Between the two passes the runtime may have appended a line; replacing would lose it.
    if _file_state(path) != before:
        raise TranscriptError("the file changed while it was being repaired; run repair again", Location(str(path)))
