"""On-disk session repair: drop what no provider can use, fill what it rejects, streaming, atomically.

The file is read twice, line by line: once to find out whether anything needs fixing (a clean
file is never written) and which tool results are missing, once to write the fixed copy. A line
that needs no fix is copied byte for byte; a fixed line changes only the values the fix replaces
(linefix). A line longer than the line cap is never read whole: it is copied in chunks, as it was,
and reported. A symlink is followed: the file it points to is repaired (its backup goes beside it)
and the link itself is left in place. Stale temp files of an earlier, killed repair are removed
first (tempfiles).
"""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .._lib.atomic import write_chunks_atomic
from .._lib.errors import Location, TranscriptError
from . import caplines, jsonline, tempfiles
from .inserts import Insert, ResultScan
from .linefix import (
    BAD_IMAGE,
    BLANK_USER,
    FAILED_ASSISTANT,
    INVALID_MESSAGE,
    MALFORMED,
    NOT_REWRITABLE,
    RELINKED,
    LineFix,
    fix_line,
    relink_target,
)
from .model import parse_header
from .session import open_session
from .texts import DEFAULT_TEXTS, Texts

MIB = 1024 * 1024
DEFAULT_MAX_LINE_BYTES = 64 * MIB
"""Lines longer than this (line ending included) are copied unread."""

INSERTED = "inserted_result"
OVER_LONG = "over_long"
RESULTS_NOT_INSERTED = "results_not_inserted"
STALE_TEMP = "stale_temp"

_CHANGE_WORDS = {
    MALFORMED: ("dropped {n} malformed line", "dropped {n} malformed lines"),
    INVALID_MESSAGE: (
        "dropped {n} message entry without a message object or a role",
        "dropped {n} message entries without a message object or a role",
    ),
    FAILED_ASSISTANT: ("rewrote {n} empty failed assistant turn", "rewrote {n} empty failed assistant turns"),
    BLANK_USER: ("rewrote {n} user turn with blank text", "rewrote {n} user turns with blank text"),
    BAD_IMAGE: ("replaced {n} unreadable image with a note", "replaced {n} unreadable images with a note"),
    INSERTED: ("inserted {n} missing tool result", "inserted {n} missing tool results"),
    RELINKED: ("re-linked {n} entry to its new parent", "re-linked {n} entries to their new parents"),
}
_NOTE_WORDS = {
    OVER_LONG: ("kept {n} line over the {cap} line cap unread", "kept {n} lines over the {cap} line cap unread"),
    NOT_REWRITABLE: (
        "left {n} value that cannot be written back exactly",
        "left {n} values that cannot be written back exactly",
    ),
    RESULTS_NOT_INSERTED: ("inserted no missing tool results: an unread line may hold them",) * 2,
    STALE_TEMP: (
        "removed {n} stale temp file of an interrupted repair",
        "removed {n} stale temp files of an interrupted repair",
    ),
}


@dataclass(frozen=True, slots=True)
class RepairReport:
    """What `repair_file` did to one file."""

    path: Path
    """The session file, as given (possibly a symlink)."""
    status: str
    """`clean` (untouched), `repaired`, or `refused` (untouched; see `reason`)."""
    changes: Counter[str]
    """How many lines (or blocks, for images) each kind of fix touched; see _CHANGE_WORDS."""
    backup: Path | None = None
    """Copy of the original bytes, when the file was repaired (beside the file a symlink points to)."""
    reason: str | None = None
    """Why the file was refused."""
    notes: Counter[str] = field(default_factory=Counter)
    """What was left as it was, or cleaned up beside the file; see _NOTE_WORDS."""
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """The line cap this repair used (named in the notes)."""

    def summary(self) -> str:
        """One line for the user."""
        notes = _worded(self.notes, _NOTE_WORDS, cap=_size(self.max_line_bytes))
        tail = f" ({notes})" if notes else ""
        if self.status == "refused":
            return f"{self.path}: not repaired, file left as it was: {self.reason}{tail}"
        if self.status == "clean":
            return f"{self.path}: nothing to repair{tail}"
        done = _worded(self.changes, _CHANGE_WORDS)
        return f"{self.path}: repaired ({done}); original kept at {self.backup}" + (f"; {notes}" if notes else "")


def _worded(counts: Counter[str], words: dict, **extra: str) -> str:
    return ", ".join(words[kind][counts[kind] != 1].format(n=counts[kind], **extra) for kind in words if counts[kind])


def _size(limit: int) -> str:
    return f"{limit / MIB:g} MiB" if limit % MIB == 0 else f"{limit} bytes"


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the first read found."""

    changes: Counter[str]
    """Fixes by kind (relinks are counted while writing)."""
    notes: Counter[str]
    """What is left as it was."""
    inserts: dict[int, Insert]
    """Stand-in results to write, by the line they follow."""
    ids: frozenset[str]
    """The ids of the entries that are kept, so a parent that is none of them is known to be gone."""


class _Refused(Exception):
    """The file is not a session file we may rewrite."""


def repair_file(
    path: Path, texts: Texts = DEFAULT_TEXTS, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> RepairReport:
    """Repair one session file in place (see the module docstring); a second run is a no-op.

    `max_line_bytes` caps the line length that is read (longer lines are kept unread).
    """
    if max_line_bytes < 1:
        raise ValueError("max_line_bytes must be at least 1")
    before = _file_state(path)
    # Replacing a symlink would turn it into a copy and leave its target broken: work on the target.
    target = path.resolve()
    removed = Counter({STALE_TEMP: tempfiles.remove_stale(target)})
    report = _Reporter(path, max_line_bytes, removed)
    try:
        plan = _plan(target, texts, max_line_bytes)
    except _Refused as refused:
        return report.refused(str(refused))
    if not plan.changes:
        return report.done("clean", Counter(), plan.notes)
    tally: Counter[str] = Counter()
    try:
        backup = _rewrite(target, _fixed_bytes(target, texts, max_line_bytes, plan, tally), before)
    except _Refused as refused:
        # The header broke between the two passes; nothing was replaced.
        return report.refused(f"{refused} (it changed during the repair)")
    changes = plan.changes + Counter({RELINKED: tally[RELINKED]})
    return report.done("repaired", changes, plan.notes + Counter({NOT_REWRITABLE: tally[NOT_REWRITABLE]}), backup)


@dataclass(frozen=True, slots=True)
class _Reporter:
    """Builds the report for one file (the pieces known before the passes run)."""

    path: Path
    max_line_bytes: int
    notes: Counter[str]

    def refused(self, reason: str) -> RepairReport:
        return RepairReport(
            self.path, "refused", Counter(), reason=reason, notes=+self.notes, max_line_bytes=self.max_line_bytes
        )

    def done(self, status: str, changes: Counter[str], notes: Counter[str], backup: Path | None = None) -> RepairReport:
        """Counters are kept without zero counts, so a report compares equal to what it says."""
        return RepairReport(
            self.path, status, +changes, backup=backup, notes=+(self.notes + notes), max_line_bytes=self.max_line_bytes
        )


def _file_state(path: Path) -> tuple[int, int, int]:
    try:
        info = path.stat()
    except OSError as error:
        raise TranscriptError(f"cannot read session file: {error.strerror}", Location(str(path))) from error
    if not stat.S_ISREG(info.st_mode):
        raise TranscriptError("not a regular file", Location(str(path)))
    return info.st_size, info.st_mtime_ns, stat.S_IMODE(info.st_mode)


# ---------------------------------------------------------------------------------------------
# The two passes


def _plan(path: Path, texts: Texts, cap: int) -> _Plan:
    """First read: count the fixes, note what stays, find the missing results; raises _Refused when
    the first entry is not a valid header."""
    changes: Counter[str] = Counter()
    notes: Counter[str] = Counter()
    scan = ResultScan()
    ids: set[str] = set()
    header_seen = False
    with open_session(path) as handle:
        for number, line in caplines.lines_of(handle, cap):
            if not isinstance(line, bytes):
                if not header_seen:
                    raise _Refused(f"line {number} is over the {_size(cap)} line cap, so its header cannot be checked")
                notes[OVER_LONG] += 1
                scan.see_unreadable()
                continue
            fix = fix_line(line, texts)
            if fix.value is not None and not header_seen:
                _check_header(fix.value, number)
                header_seen = True
            changes.update(fix.changes)
            if fix.output and fix.value is not None:
                scan.see(number, fix.value)
                entry_id = _entry_id(fix)
                if entry_id is not None:
                    ids.add(entry_id)
    if not header_seen:
        raise _Refused("no session header: the file has no JSON entries")
    inserts, skipped = scan.inserts()
    if inserts and notes[OVER_LONG]:
        # An unread line may be the result of any of these calls: inventing one could duplicate it.
        inserts = {}
        notes[RESULTS_NOT_INSERTED] = 1
    changes[INSERTED] = sum(len(insert.lines) for insert in inserts.values())
    notes[NOT_REWRITABLE] = skipped
    return _Plan(+changes, +notes, inserts, frozenset(ids))


def _check_header(value: object, number: int) -> None:
    if not isinstance(value, dict) or not parse_header(value).valid:
        raise _Refused(f"line {number} is not a valid session header (type `session` with an id)")


def _fixed_bytes(path: Path, texts: Texts, cap: int, plan: _Plan, tally: Counter[str]) -> Iterator[bytes]:
    """Second read: the repaired file's bytes. Entries that lost their parent (a dropped entry) or got a
    new one (an inserted result) are re-linked, so the branch through them stays whole; `tally` counts
    the re-linked entries, and the dropped ones whose parent cannot be written back exactly."""
    relink = _Relinks(plan.ids)
    header_seen = False
    with open_session(path) as handle:
        for number, line in caplines.lines_of(handle, cap):
            if not isinstance(line, bytes):
                yield from line  # over the cap: copied unread
                continue
            fix = fix_line(line, texts, relink)
            if fix.value is not None and not header_seen:
                _check_header(fix.value, number)
                header_seen = True
                yield fix.output
                continue
            tally[RELINKED] += fix.changes.get(RELINKED, 0)
            yield fix.output
            tally[NOT_REWRITABLE] += not _remember_moves(fix, relink, plan.inserts.get(number))
            if number in plan.inserts:
                yield from _inserted_lines(fix.output, plan.inserts[number])


class _Relinks(Mapping[str, str]):
    """Entry id -> the JSON text of the parent its children name instead. An entry that moved (it was
    dropped, or results were inserted after it) maps to where its children now hang; once a line too
    broken to read was dropped, a parent that is no kept entry (it was on that line, id and all) maps
    to the entry kept just before that line, so no child is left pointing at nothing."""

    def __init__(self, kept: frozenset[str]) -> None:
        self.kept = kept
        self.moved: dict[str, str] = {}
        self.last_kept = "null"
        """The JSON text of the newest kept entry's id (or of the last result inserted after it)."""
        self.orphans_to: str | None = None
        """Where children of an unreadable dropped line go; None while no such line was dropped."""

    def __getitem__(self, entry_id: str) -> str:
        if entry_id in self.moved:
            return self.moved[entry_id]
        if self.orphans_to is not None and entry_id not in self.kept:
            return self.orphans_to
        raise KeyError(entry_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self.moved)

    def __len__(self) -> int:
        return len(self.moved)


def _entry_id(fix: LineFix) -> str | None:
    entry_id = fix.value.get("id") if isinstance(fix.value, dict) else None
    return entry_id if isinstance(entry_id, str) else None


def _remember_moves(fix: LineFix, relink: _Relinks, insert: Insert | None) -> bool:
    """Note where the children of this entry must point from now on: past its new results, or, when it
    was dropped, to its own parent (to the entry before it when it could not be read at all). False
    when that parent cannot be written back exactly."""
    entry_id = _entry_id(fix)
    if fix.value is None and not fix.output:
        relink.orphans_to = relink.last_kept
    if entry_id is None:
        return True
    if insert is not None:
        relink.moved[entry_id] = relink.last_kept = f'"{insert.last_id}"'
    elif fix.output:
        relink.last_kept = jsonline.exact_json(entry_id) or relink.last_kept
    else:
        target = relink_target(fix.value, relink)
        if target is None:
            return False
        relink.moved[entry_id] = target
    return True


def _inserted_lines(previous: bytes, insert: Insert) -> Iterator[bytes]:
    ending = b"\r\n" if previous.endswith(b"\r\n") else b"\n"
    if not previous.endswith(b"\n"):
        yield ending  # the line it follows was the last one and had no ending
    for line in insert.lines:
        yield line.encode("ascii") + ending


def _rewrite(path: Path, chunks: Iterator[bytes], before: tuple[int, int, int]) -> Path:
    """Atomically replace the file with `chunks`, keeping the original as a backup; returns the backup.

    The backup is made once the new file is written, just before the rename, so a repair killed while
    writing leaves only its temp file (which the next repair removes), not a second copy as well.
    """
    mode = before[2]
    backup = path.with_name(f"{path.name}.bak-{os.getpid()}-{time.time_ns() // 1_000_000}")
    try:
        write_chunks_atomic(
            path,
            _unchanged_after(chunks, path, before),
            mode,
            error=TranscriptError,
            temp_path=tempfiles.temp_path(path),
            before_rename=lambda: _back_up(path, backup),
        )
    except BaseException as error:
        # The original is untouched, so the backup would only be litter.
        backup.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise TranscriptError(f"repair failed, file left as it was: {error}", Location(str(path))) from error
        raise
    return backup


def _back_up(path: Path, backup: Path) -> None:
    """The original bytes under the backup name: a hard link when the file system allows one (instant, and
    it keeps the original's mode), else a copy given the original's mode."""
    try:
        os.link(path, backup)
    except OSError:
        shutil.copyfile(path, backup)
        shutil.copymode(path, backup)


def _unchanged_after(chunks: Iterator[bytes], path: Path, before: tuple[int, int, int]) -> Iterator[bytes]:
    yield from chunks
    # Between the two passes the runtime may have appended a line; replacing would lose it.
    if _file_state(path) != before:
        raise TranscriptError("the file changed while it was being repaired; run repair again", Location(str(path)))
