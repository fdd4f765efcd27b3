"""Fit bootstrap files into the per-file and total budgets, each cut the way that suits it
(truncate.py); and the truncation notice: its signature, whether to show it, the seen-state."""

from __future__ import annotations

import json
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..model.config import Budgets
from ..model.workspace import ContextFile, FileStatus, WorkspaceFile
from .state import read_json_bytes, read_json_object, write_members
from .truncate import squeeze_blank_lines, truncate_file, truncate_with_digest

MIN_REMAINING = 64
"""Below this many characters of total budget, later files are dropped."""


# --------------------------------------------------------------------------- each file's cut

DIGEST_FILES = frozenset({"AGENTS.md"})
"""Files whose cut middle is replaced by a digest of its rule lines instead of nothing."""


def truncate_for(name: str, text: str, max_chars: int, style: str = "75/25") -> str:
    """The cut that suits the file: AGENTS.md keeps a digest of its rules, others head and tail
    in the proportions `style` names."""
    if name in DIGEST_FILES:
        return truncate_with_digest(name, text, max_chars, style)
    return truncate_file(name, text, max_chars, style)


# --------------------------------------------------------------------------- all files


def missing_marker(name: str) -> str:
    """What stands in for a bootstrap file that does not exist (no path: output stays portable)."""
    return f"[{name} does not exist in this workspace yet]"


Cuts = MutableMapping[tuple[str, int, str, str], tuple[str, int, bool]]
"""(name, limit, style, content) -> (injected text, trimmed length, cut?): a warm compiler keeps one,
so a turn with new facts does not cut the same file again (an AGENTS.md digest is costly)."""


def apply(files: Sequence[WorkspaceFile], budgets: Budgets, cuts: Cuts | None = None) -> tuple[ContextFile, ...]:
    """Walk the files in order within `budgets`: each gets its injected text, status and counts.

    Missing files inject a short marker; once fewer than 64 characters of the total remain,
    every later file is dropped; skipped files pass through untouched and cost nothing.
    """
    remaining = budgets.total_max_chars
    result: list[ContextFile] = []
    for file in files:
        placed = _place(file, budgets, remaining, {} if cuts is None else cuts)
        remaining -= placed.injected_chars
        result.append(placed)
    return tuple(result)


def _place(file: WorkspaceFile, budgets: Budgets, remaining: int, cuts: Cuts) -> ContextFile:
    """One file's fate given the characters of total budget still available."""
    max_chars = budgets.max_chars
    if file.status == "skipped":
        return _context(file, "", "skipped", file.reason, raw=0)
    if remaining < MIN_REMAINING:
        return _context(file, "", "dropped", "total budget", raw=len((file.content or "").rstrip()))
    if file.status == "missing":
        marker = missing_marker(file.name)[: min(max_chars, remaining)]
        return _context(file, marker, "missing", None, raw=0)
    text, raw, cut = _cut(file.name, file.content or "", min(max_chars, remaining), budgets.style, cuts)
    if not cut:
        return _context(file, text, "ok", None, raw=raw)
    return _context(file, text, "truncated", _cut_reason(raw, max_chars, remaining), raw=raw)


def _cut(name: str, content: str, limit: int, style: str, cuts: Cuts) -> tuple[str, int, bool]:
    key = (name, limit, style, content)
    found = cuts.get(key)
    if found is None:
        trimmed = content.rstrip()
        text = truncate_for(name, trimmed, limit, style)
        found = cuts[key] = (squeeze_blank_lines(text), len(trimmed), text != trimmed)
    return found


def _cut_reason(raw: int, max_chars: int, remaining: int) -> str:
    """Which budget(s) forced the cut: the per-file one, the total one (when it is the
    smaller limit), or both."""
    causes = []
    if raw > max_chars:
        causes.append("per-file limit")
    if remaining < max_chars and raw > remaining:
        causes.append("total budget")
    return " and ".join(causes)


def _context(file: WorkspaceFile, text: str, status: FileStatus, reason: str | None, *, raw: int) -> ContextFile:
    """A ContextFile carrying the file's identity and frontmatter."""
    return ContextFile(
        name=file.name,
        path=file.path,
        text=text,
        status=status,
        reason=reason,
        raw_chars=raw,
        injected_chars=len(text),
        frontmatter=file.frontmatter,
    )


def describe_cuts(files: Sequence[ContextFile]) -> tuple[str, ...]:
    """One diagnostic line per truncated, dropped or skipped file, with the per-file numbers."""
    return tuple(
        f"{file.name}: {file.raw_chars} chars -> {file.injected_chars} injected ({file.status}: {file.reason})"
        for file in files
        if file.status in ("truncated", "dropped", "skipped")
    )


# --------------------------------------------------------------------------- truncation notice

MAX_SEEN_SIGNATURES = 32
"""How many truncation signatures the session state remembers, newest last."""
SEEN_SIGNATURES_KEY = "bootstrapTruncationSignaturesSeen"
"""The key in the session state file that holds the signatures already warned about."""


def signature(files: Sequence[ContextFile], budgets: Budgets) -> str | None:
    """A compact, deterministic key for this truncation; None when nothing is cut.

    Budgets plus name/raw/injected of every truncated or dropped file, in load order.
    """
    cut = [file for file in files if file.status in ("truncated", "dropped")]
    if not cut:
        return None
    data = {
        "maxChars": budgets.max_chars,
        "totalMaxChars": budgets.total_max_chars,
        "files": [[file.name, file.raw_chars, file.injected_chars] for file in cut],
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class NoticeDecision:
    """Whether to render the fixed truncation notice, and what to remember."""

    show: bool
    """Render the bootstrap_notice section."""
    seen: tuple[str, ...] | None
    """The signatures to store in the session state file; None means leave the file alone."""


def decide_notice(warning: str, signature: str | None, seen: Sequence[str] | None) -> NoticeDecision:
    """Pure rule for `off` / `once` / `always`; `seen` is None when there is no session state file."""
    if signature is None or warning == "off":
        return NoticeDecision(False, None)
    show = warning == "always" or seen is None or signature not in seen
    remembered = None if seen is None else _remember(seen, signature)
    return NoticeDecision(show, remembered)


def _remember(seen: Sequence[str], signature: str) -> tuple[str, ...]:
    """`seen` with `signature` moved to the newest end, keeping the newest 32."""
    kept = [item for item in seen if item != signature] + [signature]
    return tuple(kept[-MAX_SEEN_SIGNATURES:])


def read_seen(state_path: Path) -> tuple[str, ...]:
    """The signatures already warned about in this session (none when the file is absent)."""
    data = read_json_object(Path(state_path), "session state") or {}
    seen = data.get(SEEN_SIGNATURES_KEY, [])
    if not isinstance(seen, list):
        return ()
    return tuple(item for item in seen if isinstance(item, str))


def write_seen(state_path: Path, seen: Sequence[str]) -> None:
    """Store the seen signatures atomically; every other key of the session state keeps its text."""
    data = read_json_bytes(Path(state_path), "session state")
    write_members(Path(state_path), data, "session state", {SEEN_SIGNATURES_KEY: list(seen)[-MAX_SEEN_SIGNATURES:]})
