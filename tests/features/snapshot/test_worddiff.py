"""Word-level diffs (features/snapshot/worddiff.py): changed lines matched word by word, context
kept, marks that never span a line break, and whole lines for a block too large to match."""

from __future__ import annotations

from promptc.features.snapshot import worddiff
from promptc.features.snapshot.worddiff import ADDED, KEPT, REMOVED, Hunk


def test_one_changed_word_is_one_removed_and_one_added_run():
    found = worddiff.hunks("one two three\nfour\n", "one 2 three\nfour\n")
    assert found == (Hunk(1, 1, ((KEPT, "one "), (REMOVED, "two"), (ADDED, "2"), (KEPT, " three\nfour\n"))),)


def test_an_added_line_is_added_whole_between_its_context_lines():
    found = worddiff.hunks("a\nb\nc\nd\ne\n", "a\nb\nc\nx\nd\ne\n")
    assert found == (Hunk(3, 3, ((KEPT, "c\n"), (ADDED, "x\n"), (KEPT, "d\n"))),)
    assert list(worddiff.render(found, worddiff.plain_mark, str)) == ["@@ -3 +3 @@", "c", "{+x+}", "d"]


def test_far_apart_changes_are_separate_hunks():
    before = "".join(f"line {n}\n" for n in range(1, 11))
    after = before.replace("line 2\n", "line two\n").replace("line 9\n", "line nine\n")
    found = worddiff.hunks(before, after)
    assert [(h.old_line, h.new_line) for h in found] == [(1, 1), (8, 8)]
    assert [run for run in found[1].runs if run[0] != KEPT] == [(REMOVED, "9"), (ADDED, "nine")]


def test_a_mark_is_closed_before_each_line_break():
    found = worddiff.hunks("keep\n", "keep\nnew one\nnew two\n")
    lines = list(worddiff.render(found, worddiff.ansi_mark, worddiff.ansi_header))
    assert lines[0] == "\x1b[36m@@ -1 +1 @@\x1b[0m"
    assert lines[1:] == ["keep", "\x1b[32m\x1b[4mnew one\x1b[0m", "\x1b[32m\x1b[4mnew two\x1b[0m"]


def test_kept_text_passes_through_keep_and_changed_text_through_mark():
    found = worddiff.hunks("<a>\n", "<b>\n")
    lines = list(worddiff.render(found, lambda kind, text: f"{kind}({text})", str, keep=lambda t: t.upper()))
    assert lines == ["@@ -1 +1 @@", "<-(a)+(b)>"]


def test_a_block_too_large_to_match_word_by_word_is_whole_lines(monkeypatch):
    monkeypatch.setattr(worddiff, "MAX_WORD_PAIRS", 3)
    found = worddiff.hunks("a b c\n", "a x c\n")
    assert found == (Hunk(1, 1, ((REMOVED, "a b c\n"), (ADDED, "a x c\n"))),)


def test_identical_texts_have_no_hunks_and_long_diffs_are_cut():
    assert worddiff.hunks("same\n", "same\n") == ()
    assert worddiff.shortened(["1", "2", "3"], 2) == ["1", "2", "... (1 more diff line)"]
    assert worddiff.shortened(["1", "2", "3"], 1) == ["1", "... (2 more diff lines)"]
