"""HEARTBEAT.md is effectively empty when it holds no task."""

from __future__ import annotations

import pytest

from promptc.workspace.heartbeat import MAX_FENCE_DEPTH, MAX_JUDGED_CHARS, is_effectively_empty


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n  \n\t\n",
        "# Heartbeat\n\n## Tasks\n",
        "# Checks\n- [ ]\n* [ ]\n+ [x]\n- [X]\n-\n",
        "<!-- add tasks here -->\n",
        "<!--\nmulti-line comment\n- with a list inside\n-->\n",
        "```\n```\n",
        "```markdown\n# Keep this empty\n```\n",
        "#\n##\n",
        "Title\n=====\n",
        "---\n***\n",
        "1.\n2.\n",
        "> ## quoted heading\n",
    ],
    ids=[
        "empty",
        "blank-lines",
        "headings",
        "empty-items-and-checkboxes",
        "comment",
        "multi-line-comment",
        "bare-fence",
        "fence-around-headings",
        "bare-hashes",
        "setext-heading",
        "thematic-breaks",
        "empty-numbered-items",
        "quoted-heading",
    ],
)
def test_no_task_means_empty(text: str) -> None:
    assert is_effectively_empty(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "# Heartbeat\n- [ ] check the inbox\n",
        "#TODO check mail\n",
        "# Heartbeat\n<!-- note -->\nLook at the calendar.\n",
        "<!-- note --> then reply to Ana\n",
        "```bash\n./check_mail.sh\n```\n",
        "    indented code line\n",
        "[ ]\n",
        "> remember the dentist\n",
    ],
    ids=[
        "task-checkbox",
        "hash-without-space",
        "paragraph-after-comment",
        "text-after-comment",
        "command-in-fence",
        "indented-code",
        "checkbox-outside-a-list",
        "quoted-task",
    ],
)
def test_one_real_line_means_not_empty(text: str) -> None:
    assert is_effectively_empty(text) is False


def test_missing_file_is_never_empty() -> None:
    assert is_effectively_empty(None) is False


def test_headings_checkboxes_and_comments_together_are_empty() -> None:
    text = "# HEARTBEAT\n\n<!-- keep empty to skip -->\n\n## Watches\n- [ ]\n- [x]\n"
    assert is_effectively_empty(text) is True
    assert is_effectively_empty(text + "- water the plants\n") is False


def _nested_fences(depth: int, inner: str) -> str:
    """`depth` code fences, each inside the one before (an outer fence has more backticks)."""
    fences = ["`" * width + "\n" for width in range(3, 3 + depth)]
    return "".join(reversed(fences)) + inner + "".join(fences)


def test_fences_nested_a_few_levels_around_headings_are_still_empty() -> None:
    assert is_effectively_empty(_nested_fences(3, "# Tasks\n"))
    assert not is_effectively_empty(_nested_fences(3, "check the mail\n"))


def test_fences_nested_past_the_limit_count_as_a_task_instead_of_exhausting_the_stack() -> None:
    assert is_effectively_empty(_nested_fences(MAX_FENCE_DEPTH, "# Tasks\n")) is True
    assert is_effectively_empty(_nested_fences(MAX_FENCE_DEPTH + 2, "# Tasks\n")) is False
    # ~180 KB of fences nested ~600 deep: a recursive check would exhaust the stack.
    text = _nested_fences(600, "# Tasks\n")
    assert len(text) > 180_000
    assert is_effectively_empty(text) is False


@pytest.mark.parametrize("line", ["- [ ]\n", "# Heading\n\n", "<!-- nothing -->\n"])
def test_an_empty_file_longer_than_the_judged_size_runs_its_heartbeat(line: str) -> None:
    """markdown-it is slow on a large file of bare checkboxes, so past the judged size a
    HEARTBEAT.md is taken to hold something (a doubtful heartbeat is never skipped)."""
    fits = line * (MAX_JUDGED_CHARS // len(line))
    assert len(fits) <= MAX_JUDGED_CHARS and is_effectively_empty(fits) is True
    assert is_effectively_empty(fits + line) is False
