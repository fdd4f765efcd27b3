"""Cut one file's text to a length: head and tail around a marker line, or for a file of rules,
head, a digest of the rule lines from the cut middle, and tail. Characters are code points."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

LINE_BREAK_REACH = 256
"""How far a cut point may move to land on a line break."""
RESERVED_REACH_SHARE = 200
"""With the marker's room set aside first, a cut moves at most 1/200 of the budget to land on a
line break, so the head and tail together lose at most 1% of it."""
MIN_KEPT = 16
"""Below this many characters left beside the full marker line, the compact marker is used."""


@dataclass(frozen=True, slots=True)
class Proportions:
    """How much of the head and tail a cut keeps, in hundredths."""

    head: int
    """Share of the budget kept from the start."""
    tail: int
    """Share of the budget kept from the end."""
    reserve: bool
    """The shares are of what is left once the marker line and its line breaks are set aside."""


STYLES: dict[str, Proportions] = {
    "75/25": Proportions(75, 25, reserve=True),
    "70/20": Proportions(70, 20, reserve=False),
}
"""The cut of each `agents.defaults.bootstrapTruncation` value (the first is the default)."""


BLANK_RUN = re.compile(r"\n{3,}")
"""Three or more line feeds in a row (two or more empty lines); a line holding spaces or a
carriage return is not empty here."""


def squeeze_blank_lines(text: str) -> str:
    """`text` with every run of empty lines cut to one, as OpenClaw injects a file: applied after
    the cut, so a marker's numbers still count characters of the file on disk."""
    return BLANK_RUN.sub("\n\n", text)


def truncate_file(name: str, text: str, max_chars: int, style: str = "75/25") -> str:
    """`text` trailing-trimmed, cut head/tail with a marker when longer than `max_chars`.

    `75/25` sets aside the marker's room and keeps 75% of the rest from the start and 25% from
    the end; `70/20` keeps 70% and 20% of `max_chars`. The result is never longer than
    `max_chars`. Cuts prefer line breaks (within 256 characters, and for `75/25` within 1/200 of
    the budget) and never split a surrogate pair or a CRLF.
    """
    text = text.rstrip()
    if len(text) <= max_chars:
        return text
    proportions = STYLES[style]
    head, tail, marker = _layout(name, len(text), max_chars, proportions)
    if marker is None:
        return text[: _safe_head_end(text, max_chars)]
    reach = min(LINE_BREAK_REACH, max_chars // RESERVED_REACH_SHARE) if proportions.reserve else LINE_BREAK_REACH
    head_end = _head_cut(text, head, reach)
    tail_start = _tail_cut(text, len(text) - tail, reach)
    return _join(text[:head_end], marker(head_end, len(text) - tail_start), text[tail_start:])


DIGEST_SHARES = (45, 35, 15)
"""Head, digest and tail shares of the budget, in percent (the rest is for the marker lines)."""
DIGEST_LINE_MAX = 240
"""A digest line longer than this is shortened (with an ellipsis)."""
RULE_WORDS = re.compile(
    r"\b(must|never|always|only|do not|don't|required?|forbidden|security|secrets?|credentials?|passwords?|"
    r"tokens?|privacy|private|tests?|commit|push|approv\w*|confirm|delete|ask)\b",
    re.IGNORECASE,
)
"""Words that mark a line as a rule worth keeping when the middle of AGENTS.md is cut."""
LIST_OR_HEADING = re.compile(r"^(#{1,6}\s|[-*+]\s|\d+[.)]\s)")


def truncate_with_digest(name: str, text: str, max_chars: int, style: str = "75/25") -> str:
    """Keep about 45% from the start, a digest of the rule lines from the cut middle in about 35%,
    and about 15% from the end; a digest that needs less than its share gives the rest back to
    the head and tail (three parts to one), as much of it as still leaves a rule line in the
    middle, and again for what the smaller middle's digest leaves unused. The result is never
    longer than `max_chars`; when the budget is too small for the digest layout, or the middle has
    no rule lines, the plain cut is used."""
    text = text.rstrip()
    if len(text) <= max_chars:
        return text
    head_share, digest_share, tail_share = (max_chars * share // 100 for share in DIGEST_SHARES)
    cut = _digest_cut(text, head_share, tail_share, digest_share)
    if cut is None:  # no rules in the middle: the plain cut keeps more of the file
        return truncate_file(name, text, max_chars, style)
    head_chars, tail_chars, budget = head_share, tail_share, digest_share
    for _ in range(WIDENING_ROUNDS):  # a wider head and tail leave fewer rules: spare again
        spare = budget - cut.used
        wider = _widest(text, head_chars, tail_chars, spare, cut.used)
        if wider is None:
            break
        given, cut = wider
        head_chars, tail_chars, budget = head_chars + given * 3 // 4, tail_chars + given // 4, budget - given
    head, tail = text[: cut.head_end], text[cut.tail_start :]
    lines = digest_lines(name, len(head), len(tail), len(text), cut.chosen, cut.left_out)
    result = "\n".join(part for part in (head, *lines, tail) if part)
    return result if len(result) <= max_chars else truncate_file(name, text, max_chars, style)


WIDENING_ROUNDS = 4
"""How often the digest's unused share is handed to the head and tail (each round's wider cut
leaves a smaller middle, so a smaller digest and some share unused again)."""


def _widest(text: str, head: int, tail: int, spare: int, used: int) -> tuple[int, _DigestCut] | None:
    """The most of `spare` (three parts to the head, one to the tail) that still leaves a rule
    line in the middle, with its cut; None when none of it does. A wider head and tail only
    ever shrink the middle, so the amounts that work come first."""

    def cut_with(given: int) -> _DigestCut | None:
        return _digest_cut(text, head + given * 3 // 4, tail + given // 4, used)

    given = bisect.bisect_left(range(1, spare + 1), True, key=lambda amount: cut_with(amount) is None)
    found = cut_with(given) if given else None
    return None if found is None else (given, found)


@dataclass(frozen=True, slots=True)
class _DigestCut:
    head_end: int
    tail_start: int
    chosen: list[str]
    left_out: int
    used: int
    """Characters the chosen lines take, newlines included."""


def _digest_cut(text: str, head: int, tail: int, budget: int) -> _DigestCut | None:
    """Where the head and tail end for these lengths, and the digest of the middle between
    them within `budget` (None when the middle has no rule line that fits)."""
    head_end = _head_cut(text, head)
    tail_start = _tail_cut(text, len(text) - tail)
    fenced = _fence_count(text[:head_end]) % 2 == 1  # the head ends inside a code block
    chosen, left_out = rule_digest(text[head_end:tail_start], budget, fenced=fenced)
    if not chosen:
        return None
    return _DigestCut(head_end, tail_start, chosen, left_out, sum(len(line) + 1 for line in chosen))


def _fence_count(text: str) -> int:
    return sum(1 for line in text.split("\n") if _is_fence(line))


def _is_fence(line: str) -> bool:
    return line.lstrip().startswith(("```", "~~~"))


def digest_lines(name: str, head: int, tail: int, size: int, chosen: list[str], left_out: int) -> list[str]:
    """The usual cut marker, the digest's label and lines, and how many rule lines did not fit."""
    label = f"[rule lines from the cut part of {name}, in their original order:]"
    omitted = [f"[... {left_out} more rule lines did not fit ...]"] if left_out else []
    return [full_marker(name, head, tail, size), label, *chosen, *omitted]


def rule_digest(middle: str, budget: int, *, fenced: bool = False) -> tuple[list[str], int]:
    """(the rule lines that fit `budget`, in file order; how many candidates did not fit).

    Lines naming a rule (must, never, secrets, commit, ...) are taken first, then headings and
    list items, each in file order, while they fit with one newline between them. `fenced`: the
    middle starts inside a code block (its opening fence is in the head).
    """
    candidates = [_digest_line(line) for line in _outside_code_fences(middle.split("\n"), fenced)]
    ranked = [(i, line) for i, line in enumerate(candidates) if line and RULE_WORDS.search(line)]
    ranked += [
        (i, line)
        for i, line in enumerate(candidates)
        if line and not RULE_WORDS.search(line) and LIST_OR_HEADING.match(line)
    ]
    taken, used = set(), 0
    for index, line in ranked:
        if used + len(line) + 1 <= budget:
            taken.add(index)
            used += len(line) + 1
    return [candidates[i] for i in sorted(taken)], len(ranked) - len(taken)


def _outside_code_fences(lines: list[str], fenced: bool = False) -> list[str]:
    """The lines, with fence lines and everything inside code fences blanked (code is not a rule)."""
    kept = []
    for line in lines:
        fence = _is_fence(line)
        fenced = fenced != fence
        kept.append("" if fence or fenced else line)
    return kept


def _digest_line(line: str) -> str:
    """A line with its whitespace collapsed, shortened to the digest's line limit."""
    line = " ".join(line.split())
    return line if len(line) <= DIGEST_LINE_MAX else line[: DIGEST_LINE_MAX - 1] + "\u2026"


def full_marker(name: str, head: int, tail: int, size: int) -> str:
    """The marker line that replaces the middle of a cut file."""
    return f"[... {name} cut: kept {head}+{tail} of {size} chars; read the file for the rest ...]"


def compact_marker(head: int, tail: int, size: int) -> str:
    """The marker used when the budget is too small for the full one."""
    return f"[cut {head}+{tail}/{size}]"


def marker_start(name: str, text: str) -> int | None:
    """Where the first cut-marker line of `name` starts in `text` (a prompt unit holding the cut
    file), or None; the line break before it is what separates the kept head from the rest."""
    pattern = re.compile(
        r"(?<=\n)(\[\.\.\. " + re.escape(name) + r" cut: kept \d+\+\d+ of \d+ chars; |\[cut \d+\+\d+/\d+\]$)", re.M
    )
    found = pattern.search(text)
    return found.start() if found and found.start() > 1 else None


MarkerMaker = Callable[[int, int], str]
"""Builds a marker line from the kept head and tail lengths."""


def _layout(name: str, size: int, max_chars: int, proportions: Proportions) -> tuple[int, int, MarkerMaker | None]:
    """Head and tail lengths plus the marker to use, together fitting `max_chars`.

    The marker is None when not even a bare compact marker fits.
    """
    full = partial(full_marker, name, size=size)
    if proportions.reserve:
        if max_chars - len(full(0, 0)) - 2 >= MIN_KEPT:
            return (*_reserved_split(max_chars, full, proportions), full)
        head, tail = _reserved_split(max_chars, partial(compact_marker, size=size), proportions)
    else:
        head, tail = max_chars * proportions.head // 100, max_chars * proportions.tail // 100
        # Marker length grows with the digits of head and tail, so checking at the largest
        # values bounds every smaller cut too.
        if _joined_length(head, tail, full(head, tail)) <= max_chars:
            return head, tail, full
    compact = partial(compact_marker, size=size)
    if len(compact(0, 0)) > max_chars:
        return 0, 0, None
    head, tail = _shrink_to_fit(head, tail, compact, max_chars)
    return head, tail, compact


def _reserved_split(max_chars: int, marker: MarkerMaker, proportions: Proportions) -> tuple[int, int]:
    """Head and tail as shares of what is left beside the marker and its two line breaks.

    The room is measured once with the marker's shortest numbers, then again with the numbers
    that room gives: those are at least as large as the final ones, so the second split fits.
    """
    head, tail = 0, 0
    for _ in range(2):
        room = max(0, max_chars - len(marker(head, tail)) - 2)
        head, tail = room * proportions.head // 100, room * proportions.tail // 100
    return head, tail


def _shrink_to_fit(head: int, tail: int, marker: MarkerMaker, max_chars: int) -> tuple[int, int]:
    """Shorten the tail, then the head, until everything fits; then give the head back what
    shorter counts and dropped separators freed."""
    wanted_head = head
    while (overflow := _joined_length(head, tail, marker(head, tail)) - max_chars) > 0:
        tail_cut = min(tail, overflow)
        head, tail = max(0, head - (overflow - tail_cut)), tail - tail_cut
    while head < wanted_head and _joined_length(head + 1, tail, marker(head + 1, tail)) <= max_chars:
        head += 1
    return head, tail


def _joined_length(head: int, tail: int, marker: str) -> int:
    """Length of head + marker + tail with one newline between non-empty neighbours."""
    return head + tail + len(marker) + (head > 0) + (tail > 0)


def _join(head: str, marker: str, tail: str) -> str:
    """Head, marker and tail on their own lines (empty parts take no separator)."""
    return "\n".join(part for part in (head, marker, tail) if part)


def _head_cut(text: str, end: int, reach: int = LINE_BREAK_REACH) -> int:
    """Move a head cut back to the nearest line break within `reach`, kept safe."""
    if 0 < end < len(text) and text[end] != "\n":
        line_break = text.rfind("\n", max(0, end - reach), end)
        if line_break > 0:
            end = line_break
    return _safe_head_end(text, end)


def _tail_cut(text: str, start: int, reach: int = LINE_BREAK_REACH) -> int:
    """Move a tail cut forward to just after the nearest line break within `reach`, kept safe."""
    if 0 < start < len(text) and text[start - 1] != "\n":
        line_break = text.find("\n", start, start + reach)
        if line_break != -1 and line_break + 1 < len(text):
            start = line_break + 1
    return _safe_tail_start(text, start)


def _splits_pair(text: str, index: int) -> bool:
    """Whether cutting before `index` would separate a CRLF or a surrogate pair."""
    if not 0 < index < len(text):
        return False
    before, after = text[index - 1], text[index]
    crlf = before == "\r" and after == "\n"
    surrogates = "\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff"
    return crlf or surrogates


def _safe_head_end(text: str, end: int) -> int:
    """`end`, or one less when it would split a pair (keeps the head short, never longer)."""
    return end - 1 if _splits_pair(text, end) else end


def _safe_tail_start(text: str, start: int) -> int:
    """`start`, or one more when it would split a pair (keeps the tail short, never longer)."""
    return start + 1 if _splits_pair(text, start) else start
