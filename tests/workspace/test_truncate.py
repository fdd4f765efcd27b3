"""One file's cut (workspace/truncate.py): head and tail around a marker line, cut points on line
breaks and never inside a CRLF or a surrogate pair, and an output that fits any budget."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from promptc.model.config import Budgets
from promptc.workspace import budget, truncate

from support import strategies
from support.factories import loaded

FULL_MARKER = re.compile(r"\[\.\.\. (\S+) cut: kept (\d+)\+(\d+) of (\d+) chars; read the file for the rest \.\.\.\]")


COMPACT_MARKER = re.compile(r"\[cut (\d+)\+(\d+)/(\d+)\]")


def numbered_lines(count: int, width: int = 49) -> str:
    """`count` distinct lines of exactly `width` characters plus a newline each (no trailing one)."""
    return "\n".join(f"line {index:06d} ".ljust(width, "x") for index in range(count))


def split_output(output: str) -> tuple[str, str, str]:
    """(head, marker, tail) of a truncated output."""
    found = FULL_MARKER.search(output) or COMPACT_MARKER.search(output)
    assert found is not None, output
    head, tail = output[: found.start()], output[found.end() :]
    return head.removesuffix("\n"), found.group(0), tail.removeprefix("\n")


def test_forty_thousand_char_soul_fits_the_default_budget() -> None:
    original = numbered_lines(800)  # 800 * 50 - 1 = 39,999 characters
    original += "!"  # exactly 40,000
    assert len(original) == 40_000
    (soul,) = budget.apply([loaded("SOUL.md", original)], Budgets())
    assert soul.status == "truncated" and soul.injected_chars == len(soul.text) <= 20_000
    head, marker, tail = split_output(soul.text)
    assert original.startswith(head) and len(head) >= 12_000  # 60% of the budget
    assert original.endswith(tail) and len(tail) >= 3_000  # 15% of the budget
    assert "SOUL.md" in marker and "40000" in marker


def test_by_default_the_marker_room_is_set_aside_and_the_rest_split_three_to_one() -> None:
    output = truncate.truncate_file("SOUL.md", "a" * 40_000, 20_000)
    # The marker with 0+0 is 74 characters: 20,000 - 74 - 2 newlines leaves 19,924, whose
    # 75/25 split (14,943 + 4,981) lengthens the marker to 81; 20,000 - 81 - 2 = 19,917 gives
    # 14,937 + 4,979.
    marker = "[... SOUL.md cut: kept 14937+4979 of 40000 chars; read the file for the rest ...]"
    assert output == "a" * 14_937 + "\n" + marker + "\n" + "a" * 4_979
    assert len(output) == 19_999


def test_by_default_cuts_move_at_most_a_two_hundredth_of_the_budget_to_a_line_break() -> None:
    original = numbered_lines(800)  # 39,999 characters, a line break at every index 50k - 1
    head, marker, tail = split_output(truncate.truncate_file("MEMORY.md", original, 20_000))
    # Wanted: head 14,936 and tail 4,978 (the marker with 0+0 is 76 characters; see above).
    # The head moves back to the line break at 14,899 (37 characters, within 100); the tail
    # starts after the break at 35,049, so it keeps 39,999 - 35,050 = 4,949.
    assert len(head) == 14_899 and original[len(head)] == "\n"
    assert len(tail) == 4_949 and original[-len(tail) - 1] == "\n"
    assert marker == "[... MEMORY.md cut: kept 14899+4949 of 39999 chars; read the file for the rest ...]"


def test_by_default_a_line_break_out_of_reach_leaves_the_cut_where_it_falls() -> None:
    original = "x" * 14_800 + "\n" + "y" * 30_000  # the break is 136 before the 14,936 head cut: out of reach
    head, _, _ = split_output(truncate.truncate_file("MEMORY.md", original, 20_000))
    assert len(head) == 14_936


def test_a_small_budget_sets_aside_the_compact_marker_room() -> None:
    original = "HEAD-" + "a" * 1000 + "-TAIL"
    # The full marker (73 with 0+0) does not fit 64; "[cut 0+0/1010]" is 14, leaving 48 whose
    # split 36 + 12 makes the marker 16; 64 - 16 - 2 = 46 gives 34 + 11.
    output = truncate.truncate_file("USER.md", original, 64)
    assert output == "HEAD-" + "a" * 29 + "\n[cut 34+11/1010]\n" + "a" * 6 + "-TAIL"


def test_seventy_twenty_cut_points_land_on_line_breaks() -> None:
    original = numbered_lines(800)
    head, marker, tail = split_output(truncate.truncate_file("MEMORY.md", original, 20_000, "70/20"))
    # Head: 14,000 wanted; whole 50-char lines give 14,000 - 1 (the newline is not kept).
    assert len(head) == 13_999 and original[len(head)] == "\n"
    # Tail: 4,000 wanted; starting at a line start gives exactly 80 lines minus the final newline.
    assert len(tail) == 3_999 and original[-len(tail) - 1] == "\n"
    assert marker == "[... MEMORY.md cut: kept 13999+3999 of 39999 chars; read the file for the rest ...]"


def test_without_line_breaks_the_seventy_twenty_cuts_are_exactly_those_percentages() -> None:
    output = truncate.truncate_file("SOUL.md", "a" * 40_000, 20_000, "70/20")
    marker = "[... SOUL.md cut: kept 14000+4000 of 40000 chars; read the file for the rest ...]"
    assert output == "a" * 14_000 + "\n" + marker + "\n" + "a" * 4_000


def test_text_at_or_under_the_budget_is_only_trailing_trimmed() -> None:
    assert truncate.truncate_file("USER.md", "abc  \n\n\t", 3) == "abc"
    assert truncate.truncate_file("USER.md", "x" * 500, 500) == "x" * 500


def test_small_budget_uses_the_compact_marker_and_shrinks_the_tail() -> None:
    original = "HEAD-" + "a" * 1000 + "-TAIL"
    # 44 head + 12 tail + marker + 2 newlines is 74 > 64, so the tail gives up 10 characters.
    output = truncate.truncate_file("USER.md", original, 64, "70/20")
    assert output == "HEAD-" + "a" * 39 + "\n[cut 44+2/1010]\nIL"


def test_tiny_budget_shrinks_the_head_after_the_tail() -> None:
    assert truncate.truncate_file("USER.md", "HEAD-" + "a" * 1000 + "-TAIL", 19, "70/20") == "HEAD\n[cut 4+0/1010]"


def test_budget_below_the_compact_marker_keeps_a_plain_prefix() -> None:
    assert truncate.truncate_file("USER.md", "HEAD-" + "a" * 1000, 10, "70/20") == "HEAD-aaaaa"


def test_a_crlf_is_never_split() -> None:
    original = "x" * 699 + "\r\n" + "y" * 400  # the 700-char head cut falls inside the CRLF
    head, _, _ = split_output(truncate.truncate_file("T.md", original, 1000, "70/20"))
    assert head == "x" * 699


def test_a_surrogate_pair_is_never_split() -> None:
    original = "a" * 699 + "\ud83d\ude00" + "b" * 399 + "\ud83d\ude00" + "c" * 199
    head, _, tail = split_output(truncate.truncate_file("T.md", original, 1000, "70/20"))
    assert head == "a" * 699
    assert tail == "c" * 199  # the 200-char tail cut falls inside the second pair


@settings(max_examples=300, deadline=None)
@given(case=strategies.texts_with_budgets(), style=st.sampled_from(sorted(truncate.STYLES)))
def test_output_fits_and_keeps_a_true_prefix_and_suffix(case: tuple[str, int], style: str) -> None:
    text, max_chars = case
    output = truncate.truncate_file("SOUL.md", text, max_chars, style)
    trimmed = text.rstrip()
    assert len(output) <= max_chars
    if output == trimmed:
        return
    found = FULL_MARKER.search(output) or COMPACT_MARKER.search(output)
    if found is None:
        assert trimmed.startswith(output)
        return
    head, _marker, tail = split_output(output)
    assert trimmed.startswith(head) and trimmed.endswith(tail)
    kept_head, kept_tail, size = (int(n) for n in found.groups()[-3:])
    assert (kept_head, kept_tail, size) == (len(head), len(tail), len(trimmed))
    tail_start = len(trimmed) - len(tail)
    assert not splits_a_pair(trimmed, len(head)) and not splits_a_pair(trimmed, tail_start)


@settings(max_examples=300, deadline=None)
@given(
    case=strategies.texts_with_budgets(),
    name=st.sampled_from(["MEMORY.md", "AGENTS.md", "SOUL.md"]),
    style=st.sampled_from(sorted(truncate.STYLES)),
)
def test_the_marker_line_is_found_where_the_kept_head_ends(case: tuple[str, int], name: str, style: str) -> None:
    """What a cache tier cuts at (`MEMORY.md#head`): the first marker line of the file's own cut,
    after a line break; before it, exactly the kept head (a true prefix of the file)."""
    text, max_chars = case
    output = budget.truncate_for(name, text, max_chars, style)
    unit = f"## {name}\n<workspace_file>\n{output}\n</workspace_file>"
    at = truncate.marker_start(name, unit)
    found = FULL_MARKER.search(output) or COMPACT_MARKER.search(output)
    if found is None:
        assert at is None or FULL_MARKER.search(text) or COMPACT_MARKER.search(text)
        return
    prefix = f"## {name}\n<workspace_file>\n"
    if FULL_MARKER.search(text) is None and COMPACT_MARKER.search(text) is None:
        assert at == len(prefix) + found.start()  # the file's own text holds no marker-like line
    assert unit[at - 1] == "\n" and text.rstrip().startswith(unit[len(prefix) : at - 1])


def splits_a_pair(text: str, index: int) -> bool:
    """Whether a cut before `index` separates a CRLF or a surrogate pair."""
    if not 0 < index < len(text):
        return False
    pair = text[index - 1 : index + 1]
    return pair == "\r\n" or ("\ud800" <= pair[0] <= "\udbff" and "\udc00" <= pair[1] <= "\udfff")
