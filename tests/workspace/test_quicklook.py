"""The quick look at HEARTBEAT.md never claims a task the markdown parser would not find."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc.workspace.heartbeat import is_effectively_empty
from promptc.workspace.quicklook import has_task

from support.paths import CORPUS, REPO

FRAGMENTS = [
    "",
    " ",
    "# Heading",
    "## Tasks",
    "- [ ]",
    "* [x]",
    "+ [ ]",
    "- [ ] water the basil",
    "1.",
    "2) call mum",
    "plain words",
    "Title",
    "  indented words",
    "    code words",
    "\tcode",
    "```",
    "~~~",
    "```python",
    "===",
    "---",
    "  ---",
    "***",
    "<!-- hidden",
    "-->",
    "<!-- note -->",
    "[ref]: /url",
    "[ref]:",
    "'title words'",
    "> quoted",
    "> words",
    "<div>",
    "</div>",
    "- # heading",
    "-   five spaces",
    "&nbsp;",
    "\\escaped",
    "- ",
    "· bullet",
    "Überprüfe die Post",
    "检查邮件",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("- [ ] check the mail\n", True),
        ("# Tasks\n\nwater the basil\n", True),
        ("Tasks\n=====\n", False),  # a setext heading: the parser decides
        ("<!-- off -->\nwater the basil\n", False),  # a comment anywhere: the parser decides
        ("[a]: /url\n'title\nwords'\n", False),
        ("# Tasks\n- [ ]\n", False),
    ],
)
def test_plain_task_lines_are_seen_and_doubtful_texts_are_left_to_the_parser(text: str, expected: bool) -> None:
    assert has_task(text) is expected


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=8))
def test_a_task_seen_at_a_glance_is_a_task_to_the_parser(lines: list[str]) -> None:
    text = "\n".join(lines)
    if has_task(text):
        assert is_effectively_empty(text) is False, repr(text)


def test_every_real_heartbeat_file_agrees_with_the_parser() -> None:
    paths = sorted(CORPUS.glob("*/HEARTBEAT.md")) + sorted((REPO / "snapshots" / "_fixtures").glob("*/HEARTBEAT.md"))
    paths.append(REPO / "examples" / "workspace" / "HEARTBEAT.md")
    seen = 0
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
        if has_task(text):
            seen += 1
            assert is_effectively_empty(text) is False, path
    assert seen >= 1  # the look did answer for some of them
