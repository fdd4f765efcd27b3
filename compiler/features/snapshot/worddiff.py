"""Word-level diffs: the changed lines of two texts as runs of kept, removed and added words, and
their plain (`[-old-]{+new+}`) and terminal-colour renderings. The review report renders the
same hunks as Markdown and HTML."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

CONTEXT_LINES = 1
"""Unchanged lines shown around each change."""
MAX_WORD_PAIRS = 4_000_000
"""Above this many (old words x new words) a changed block is shown as whole lines removed and
added: matching words costs time in proportion to that product."""
KEPT, REMOVED, ADDED = "=", "-", "+"

_WORDS = re.compile(r"\s+|\w+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class Hunk:
    """One changed place with its context."""

    old_line: int
    """1-based line of the hunk's start in the older text."""
    new_line: int
    """1-based line of its start in the newer text."""
    runs: tuple[tuple[str, str], ...]
    """(KEPT, REMOVED or ADDED, text) in reading order; the texts hold their line breaks."""

    @property
    def header(self) -> str:
        """`@@ -12 +12 @@`, the lines where the hunk starts."""
        return f"@@ -{self.old_line} +{self.new_line} @@"


def hunks(before: str, after: str, context: int = CONTEXT_LINES) -> tuple[Hunk, ...]:
    """The changes from `before` to `after`, line blocks matched first, then words inside them."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    found = []
    for group in matcher.get_grouped_opcodes(context):
        runs: list[tuple[str, str]] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                runs.append((KEPT, "".join(old[i1:i2])))
            else:
                runs += _words("".join(old[i1:i2]), "".join(new[j1:j2]))
        found.append(Hunk(group[0][1] + 1, group[0][3] + 1, _merged(runs)))
    return tuple(found)


def _words(before: str, after: str) -> list[tuple[str, str]]:
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    if len(old) * len(new) > MAX_WORD_PAIRS:
        return [(REMOVED, before), (ADDED, after)]
    runs = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            runs.append((KEPT, "".join(old[i1:i2])))
            continue
        runs += [(REMOVED, "".join(old[i1:i2])), (ADDED, "".join(new[j1:j2]))]
    return runs


def _merged(runs: list[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Empty runs dropped and neighbours of one kind joined."""
    merged: list[tuple[str, str]] = []
    for kind, text in runs:
        if not text:
            continue
        if merged and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return tuple(merged)


def render(
    found: tuple[Hunk, ...],
    mark: Callable[[str, str], str],
    header: Callable[[str], str],
    keep: Callable[[str], str] = str,
) -> Iterator[str]:
    """The hunks as lines: each header, then its text, kept runs passed through `keep` and changed
    ones through `mark(kind, text)` one line at a time (so a mark never spans a line break)."""
    for hunk in found:
        yield header(hunk.header)
        text = "".join(keep(piece) if kind == KEPT else _marked(kind, piece, mark) for kind, piece in hunk.runs)
        yield from text.removesuffix("\n").split("\n")


def _marked(kind: str, text: str, mark: Callable[[str, str], str]) -> str:
    return "\n".join(mark(kind, line) if line else "" for line in text.split("\n"))


def plain_mark(kind: str, text: str) -> str:
    """git's plain word-diff marks: `[-removed-]`, `{+added+}`."""
    return f"[-{text}-]" if kind == REMOVED else f"{{+{text}+}}"


_RED, _GREEN, _CYAN, _BOLD, _RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"
_STRIKE, _UNDERLINE = "\x1b[9m", "\x1b[4m"


def ansi_mark(kind: str, text: str) -> str:
    """Removed words red and struck through, added ones green and underlined (not colour alone)."""
    return (_RED + _STRIKE if kind == REMOVED else _GREEN + _UNDERLINE) + text + _RESET


def ansi_header(text: str) -> str:
    return _CYAN + text + _RESET


def ansi_bold(text: str) -> str:
    return _BOLD + text + _RESET


def shortened(lines: list[str], limit: int) -> list[str]:
    """At most `limit` lines, the cut counted on a last line."""
    if len(lines) <= limit:
        return lines
    more = len(lines) - limit
    return lines[:limit] + [f"... ({more:,} more diff {'line' if more == 1 else 'lines'})"]
