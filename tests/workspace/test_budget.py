"""Each file's cut (truncate.py), the budget walk over all files, and the truncation notice."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import promptc
from promptc import Request
from promptc._lib.errors import WorkspaceError
from promptc.model.config import Budgets
from promptc.model.workspace import WorkspaceFile
from promptc.workspace import budget, truncate
from tests import strategies
from tests.factories import loaded

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


# --------------------------------------------------------------------------- one file


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


def test_cut_points_land_on_line_breaks() -> None:
    original = numbered_lines(800)
    head, marker, tail = split_output(truncate.truncate_file("MEMORY.md", original, 20_000))
    # Head: 14,000 wanted; whole 50-char lines give 14,000 - 1 (the newline is not kept).
    assert len(head) == 13_999 and original[len(head)] == "\n"
    # Tail: 4,000 wanted; starting at a line start gives exactly 80 lines minus the final newline.
    assert len(tail) == 3_999 and original[-len(tail) - 1] == "\n"
    assert marker == "[... MEMORY.md cut: kept 13999+3999 of 39999 chars; read the file for the rest ...]"


def test_without_line_breaks_the_cuts_are_exactly_seventy_and_twenty_percent() -> None:
    output = truncate.truncate_file("SOUL.md", "a" * 40_000, 20_000)
    marker = "[... SOUL.md cut: kept 14000+4000 of 40000 chars; read the file for the rest ...]"
    assert output == "a" * 14_000 + "\n" + marker + "\n" + "a" * 4_000


def test_text_at_or_under_the_budget_is_only_trailing_trimmed() -> None:
    assert truncate.truncate_file("USER.md", "abc  \n\n\t", 3) == "abc"
    assert truncate.truncate_file("USER.md", "x" * 500, 500) == "x" * 500


def test_small_budget_uses_the_compact_marker_and_shrinks_the_tail() -> None:
    original = "HEAD-" + "a" * 1000 + "-TAIL"
    # 44 head + 12 tail + marker + 2 newlines is 74 > 64, so the tail gives up 10 characters.
    output = truncate.truncate_file("USER.md", original, 64)
    assert output == "HEAD-" + "a" * 39 + "\n[cut 44+2/1010]\nIL"


def test_tiny_budget_shrinks_the_head_after_the_tail() -> None:
    assert truncate.truncate_file("USER.md", "HEAD-" + "a" * 1000 + "-TAIL", 19) == "HEAD\n[cut 4+0/1010]"


def test_budget_below_the_compact_marker_keeps_a_plain_prefix() -> None:
    assert truncate.truncate_file("USER.md", "HEAD-" + "a" * 1000, 10) == "HEAD-aaaaa"


def test_a_crlf_is_never_split() -> None:
    original = "x" * 699 + "\r\n" + "y" * 400  # the 700-char head cut falls inside the CRLF
    head, _, _ = split_output(truncate.truncate_file("T.md", original, 1000))
    assert head == "x" * 699


def test_a_surrogate_pair_is_never_split() -> None:
    original = "a" * 699 + "\ud83d\ude00" + "b" * 399 + "\ud83d\ude00" + "c" * 199
    head, _, tail = split_output(truncate.truncate_file("T.md", original, 1000))
    assert head == "a" * 699
    assert tail == "c" * 199  # the 200-char tail cut falls inside the second pair


@settings(max_examples=300, deadline=None)
@given(case=strategies.texts_with_budgets())
def test_output_fits_and_keeps_a_true_prefix_and_suffix(case: tuple[str, int]) -> None:
    text, max_chars = case
    output = truncate.truncate_file("SOUL.md", text, max_chars)
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
@given(case=strategies.texts_with_budgets(), name=st.sampled_from(["MEMORY.md", "AGENTS.md", "SOUL.md"]))
def test_the_marker_line_is_found_where_the_kept_head_ends(case: tuple[str, int], name: str) -> None:
    """What a cache tier cuts at (`MEMORY.md#head`): the first marker line of the file's own cut,
    after a line break; before it, exactly the kept head (a true prefix of the file)."""
    text, max_chars = case
    output = budget.truncate_for(name, text, max_chars)
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


# --------------------------------------------------------------------------- the walk


def test_four_large_files_fill_the_total_and_later_files_are_dropped() -> None:
    files = [
        loaded("AGENTS.md", "a" * 25_000),
        loaded("SOUL.md", "s" * 25_000),
        loaded("TOOLS.md", "t" * 25_000),
        loaded("IDENTITY.md", "i" * 25_000),
        loaded("USER.md", "u" * 1_000),
        loaded("HEARTBEAT.md", "h" * 1_000),
        loaded("BOOTSTRAP.md", "b" * 1_000),
        loaded("MEMORY.md", "m" * 1_000),
    ]
    result = budget.apply(files, Budgets())
    # Worked by hand: 14,000 + 4,000 + 2 newlines + a marker of 81 + len(name) - 7 characters;
    # IDENTITY.md gets the remaining 5,748 (4,023 + 1,149 + 84 + 2); USER.md the remaining 490
    # with a compact marker (343 + 98 + 17 + 2); then 30 < 64 remain.
    assert [file.injected_chars for file in result] == [18_085, 18_083, 18_084, 5_258, 460, 0, 0, 0]
    assert [file.status for file in result] == ["truncated"] * 5 + ["dropped"] * 3
    assert [file.raw_chars for file in result] == [25_000] * 4 + [1_000] * 4
    assert [file.reason for file in result] == [
        "per-file limit",
        "per-file limit",
        "per-file limit",
        "per-file limit and total budget",
        "total budget",
        "total budget",
        "total budget",
        "total budget",
    ]
    assert sum(file.injected_chars for file in result) <= 60_000
    assert all(file.injected_chars == len(file.text) for file in result)


def test_missing_file_injects_a_short_marker_without_its_path() -> None:
    (missing,) = budget.apply([loaded("SOUL.md", None, status="missing")], Budgets())
    assert missing.status == "missing"
    assert "SOUL.md" in missing.text and "/ws" not in missing.text
    assert (missing.raw_chars, missing.injected_chars) == (0, len(missing.text))
    assert 0 < len(missing.text) < 64


def test_missing_marker_counts_against_the_total_and_is_clamped() -> None:
    long_name = "N" * 200 + ".md"
    first, second = budget.apply(
        [loaded(long_name, None, status="missing"), loaded("SOUL.md", "x" * 100)],
        Budgets(max_chars=1_000, total_max_chars=150),
    )
    assert first.text == "[" + "N" * 149  # the marker, cut to the 150 characters left
    assert (second.status, second.reason, second.injected_chars) == ("dropped", "total budget", 0)


def test_floor_drops_missing_files_too() -> None:
    result = budget.apply(
        [loaded("AGENTS.md", "x" * 40), loaded("SOUL.md", None, status="missing")],
        Budgets(max_chars=1_000, total_max_chars=100),
    )
    assert [file.status for file in result] == ["ok", "dropped"]


def test_skipped_files_pass_through_and_cost_nothing() -> None:
    skipped = WorkspaceFile("MEMORY.md", "/ws/MEMORY.md", None, status="skipped", reason="too large")
    first, second = budget.apply([skipped, loaded("SOUL.md", "y" * 90)], Budgets(total_max_chars=100))
    assert (first.status, first.reason, first.injected_chars, first.text) == (
        "skipped",
        "too large",
        0,
        "",
    )
    assert (second.status, second.injected_chars) == ("ok", 90)


def test_frontmatter_metadata_travels_with_the_file() -> None:
    source = WorkspaceFile("SOUL.md", "/ws/SOUL.md", "body", frontmatter={"a": 1})
    assert budget.apply([source], Budgets())[0].frontmatter == {"a": 1}


def test_template_syntax_stays_literal_through_the_budget() -> None:
    (soul,) = budget.apply([loaded("SOUL.md", "{{ 7*7 }}\n{% raw %}\n")], Budgets())
    assert soul.text == "{{ 7*7 }}\n{% raw %}"


@settings(max_examples=100, deadline=None)
@given(
    files=strategies.workspace_files(),
    max_chars=strategies.budgets,
    total=strategies.budgets.map(lambda n: n * 3),
)
def test_walk_respects_both_budgets(files, max_chars: int, total: int) -> None:
    result = budget.apply(files, Budgets(max_chars=max_chars, total_max_chars=total))
    assert [file.name for file in result] == [file.name for file in files]
    assert all(file.injected_chars <= max_chars for file in result)
    assert sum(file.injected_chars for file in result) <= total
    for before, after in zip(files, result):
        if before.status == "skipped":
            assert after.status == "skipped"


# --------------------------------------------------------------------------- signature and notice


def cut_files():
    return budget.apply([loaded("SOUL.md", "a" * 40_000)], Budgets())


def test_no_signature_when_nothing_was_cut() -> None:
    assert budget.signature(budget.apply([loaded("SOUL.md", "short")], Budgets()), Budgets()) is None


def test_signature_is_compact_json_of_budgets_and_cut_counts() -> None:
    assert json.loads(budget.signature(cut_files(), Budgets())) == {
        "maxChars": 20_000,
        "totalMaxChars": 60_000,
        "files": [["SOUL.md", 40_000, 18_083]],
    }
    assert " " not in budget.signature(cut_files(), Budgets())


def notice_shown(workspace: Path, state: Path, warning: str, max_chars: int = 1_000) -> bool:
    """Whether a compile with a cut SOUL.md renders the truncation notice (and records its state)."""
    overrides = (
        f"agents.defaults.bootstrapPromptTruncationWarning={warning}",
        f"agents.defaults.bootstrapMaxChars={max_chars}",
    )
    prompt = promptc.compile_prompt(Request(workspace=workspace, session_state=state, overrides=overrides))
    return any(section.id == "bootstrap_notice" for section in prompt.sections)


def test_once_shows_the_notice_once_per_truncation(make_workspace, tmp_path: Path) -> None:
    ws, state = make_workspace({"SOUL.md": "s" * 5_000}), tmp_path / "session.json"
    assert notice_shown(ws, state, "once") is True
    assert notice_shown(ws, state, "once") is False
    assert notice_shown(ws, state, "once", max_chars=900) is True  # a different cut: a new signature
    assert notice_shown(ws, state, "once", max_chars=900) is False
    assert len(budget.read_seen(state)) == 2


def test_off_never_shows_and_records_nothing(make_workspace, tmp_path: Path) -> None:
    ws, state = make_workspace({"SOUL.md": "s" * 5_000}), tmp_path / "session.json"
    assert notice_shown(ws, state, "off") is False
    assert not state.exists()


def test_always_shows_every_time(make_workspace, tmp_path: Path) -> None:
    ws, state = make_workspace({"SOUL.md": "s" * 5_000}), tmp_path / "session.json"
    assert [notice_shown(ws, state, "always") for _ in range(3)] == [True, True, True]
    assert len(budget.read_seen(state)) == 1


def test_nothing_cut_means_no_notice_in_any_mode() -> None:
    for mode in ("off", "once", "always"):
        assert budget.decide_notice(mode, None, []) == budget.NoticeDecision(False, None)


def test_once_without_a_state_file_always_shows() -> None:
    assert budget.decide_notice("once", "sig", None) == budget.NoticeDecision(True, None)


def test_at_most_32_signatures_are_kept_newest_last(tmp_path: Path) -> None:
    seen = tuple(f"s{index}" for index in range(40))
    decision = budget.decide_notice("once", "s3", seen)
    assert decision.show is False
    assert len(decision.seen) == 32 and decision.seen[-1] == "s3" and decision.seen[0] == "s9"


def test_write_seen_keeps_other_session_state(tmp_path: Path) -> None:
    state = tmp_path / "session.json"
    state.write_text('{"other": {"kept": true}}', encoding="utf-8")
    budget.write_seen(state, ["a", "b"])
    assert json.loads(state.read_text()) == {
        "other": {"kept": True},
        budget.SEEN_SIGNATURES_KEY: ["a", "b"],
    }
    assert budget.read_seen(state) == ("a", "b")


def test_broken_session_state_is_a_located_error(tmp_path: Path) -> None:
    state = tmp_path / "session.json"
    state.write_text("{oops", encoding="utf-8")
    with pytest.raises(WorkspaceError) as caught:
        budget.read_seen(state)
    assert (caught.value.location.line, caught.value.location.column) == (1, 2)


def test_cut_descriptions_give_the_per_file_numbers() -> None:
    result = budget.apply([loaded("SOUL.md", "a" * 40_000), loaded("USER.md", "short")], Budgets())
    assert budget.describe_cuts(result) == ("SOUL.md: 40000 chars -> 18083 injected (truncated: per-file limit)",)
