"""The budget walk over all bootstrap files (workspace/budget.py), and the truncation notice: its
signature, when it shows, and the session state that remembers it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings

import promptc
from promptc import Request
from promptc._lib.errors import WorkspaceError
from promptc.model.config import Budgets
from promptc.model.workspace import WorkspaceFile
from promptc.workspace import budget

from support import strategies
from support.factories import loaded

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
    result = budget.apply(files, Budgets(style="70/20"))
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
        "files": [["SOUL.md", 40_000, 19_999]],  # test_truncate works the 75/25 cut out
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
    assert budget.describe_cuts(result) == ("SOUL.md: 40000 chars -> 19999 injected (truncated: per-file limit)",)


# --------------------------------------------------------------------------- empty lines


def test_runs_of_empty_lines_become_one_and_whitespace_lines_are_not_empty() -> None:
    text = "a\n\n\n\nb\n \n\n\nc\r\n\r\n\r\nd\n\ne"
    (placed,) = budget.apply([loaded("SOUL.md", text)], Budgets())
    # Four line feeds become two; " " ends the first run of "b\n \n\n\n" so only the three
    # after it are squeezed; CRLF lines and a single empty line stay.
    assert placed.text == "a\n\nb\n \n\nc\r\n\r\n\r\nd\n\ne"
    assert placed.injected_chars == len(placed.text) and placed.raw_chars == len(text)


def test_empty_lines_are_squeezed_after_the_cut_so_the_marker_counts_the_file_on_disk() -> None:
    text = "a" * 100 + "\n\n\n\n" + "a" * 39_896  # 40,000 characters
    (placed,) = budget.apply([loaded("SOUL.md", text)], Budgets())
    # The cut is the 14,937 + 4,979 of a 40,000-character file (test_truncate); the four line
    # feeds in the head then become two.
    assert "kept 14937+4979 of 40000 chars" in placed.text
    assert placed.text.startswith("a" * 100 + "\n\n" + "a")
    assert placed.status == "truncated" and placed.injected_chars == 19_997
