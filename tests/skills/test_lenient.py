"""Frontmatter strict YAML refuses, read line by line as OpenClaw reads it (skills/lenient.py and
its use in skills/skillfile.py): the skill is listed, with a warning naming the file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from promptc.skills import discover as skills
from promptc.skills import lenient

from support.factories import write_files
from support.skills import build, listed_names

CAREFUL = "---\nname: careful\ndescription: Use this: carefully\n---\n# Body\n"


def test_an_unquoted_colon_in_a_description_still_lists_the_skill_with_a_warning(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/careful/SKILL.md": CAREFUL})
    block = build(tmp_path)
    assert listed_names(block) == ["careful"]
    assert "<description>Use this: carefully</description>" in block.text
    path = tmp_path / "skills/careful/SKILL.md"
    assert block.diagnostics == (
        f"{path}:3: frontmatter is not valid YAML (mapping values are not allowed here at line 3, column 22);"
        " read line by line as OpenClaw reads it (quote the value to silence this)",
    )


def test_render_lists_the_skill_and_names_the_file_and_line_on_standard_error(run_cli, tmp_path: Path) -> None:
    ws = write_files(tmp_path / "ws", {"skills/careful/SKILL.md": CAREFUL})
    code, out, err = run_cli("render", "--workspace", ws, "--no-state")
    assert code == 0 and "<name>careful</name>" in out
    assert f"promptc: warning: {ws}/skills/careful/SKILL.md:3: frontmatter is not valid YAML" in err


def test_a_refused_block_without_a_description_is_still_skipped_with_yaml_s_reason(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/x/SKILL.md": "---\nname: x: y\n---\n"})
    found, diagnostics = skills.discover([tmp_path / "skills"])
    assert found == ()
    assert diagnostics == (
        f"{tmp_path}/skills/x/SKILL.md: frontmatter is not valid YAML (mapping values are not allowed here at"
        " line 2, column 8); skill skipped",
    )


def test_a_leniently_read_skill_keeps_its_one_line_metadata_requirements(tmp_path: Path) -> None:
    text = (
        "---\nname: needy\ndescription: Needs: a binary\n"
        'metadata: {"openclaw": {"requires": {"bins": ["absent-tool"]}}}\n---\n'
    )
    write_files(tmp_path, {"skills/needy/SKILL.md": text})
    block = build(tmp_path)
    assert listed_names(block) == []
    assert block.entries[0].reason == "ineligible: binaries not on PATH: absent-tool"


def test_a_good_block_is_read_as_yaml_and_gives_no_warning(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/ok/SKILL.md": '---\nname: ok\ndescription: "Use this: carefully"\n---\n'})
    block = build(tmp_path)
    assert listed_names(block) == ["ok"] and block.diagnostics == ()


# --------------------------------------------------------------------------- the line rules


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("description: Use this: carefully", {"description": "Use this: carefully"}),
        ("name:   spaced out   ", {"name": "spaced out"}),
        ("name: \"quoted: yes\"\nother: 'single'", {"name": "quoted: yes", "other": "single"}),
        ("name: \"mismatched'", {"name": "\"mismatched'"}),
        ("name: first\nname: second", {"name": "second"}),
        ("name:\n  one\n\n\ttwo\nnext: n", {"name": "one\n\n\ttwo", "next": "n"}),
        ("name:\nnext: n", {"next": "n"}),
        ('empty: ""\nblank:', {}),
        ("- a list item\n  indented: no\nkey with space: x\ncafé: x", {}),
        ("dashed-key_1: v", {"dashed-key_1": "v"}),
        ("description: >\n  folded text", {"description": ">"}),
        ("metadata: {a: {b: 1}}", {"metadata": {"a": {"b": 1}}}),
        ("metadata: {broken", {"metadata": "{broken"}),
        ("metadata:\n  openclaw: x", {"metadata": "openclaw: x"}),
    ],
    ids=[
        "colon-in-value",
        "trimmed",
        "quotes",
        "mismatched-quotes",
        "later-wins",
        "indented-lines",
        "no-indented-lines",
        "empty-values",
        "not-key-lines",
        "key-characters",
        "block-indicator-kept",
        "flow-metadata",
        "broken-flow-metadata",
        "indented-metadata-text",
    ],
)
def test_the_line_reader_follows_openclaw_s_rules(block: str, expected: dict) -> None:
    assert lenient.read_block(block) == expected


@given(st.text())
@example("a:\n")
@example('a: "')
@example("metadata: {&x [*x]}")
@example("metadata: {" + "[" * 500)
def test_the_line_reader_never_raises_and_gives_only_non_empty_text_under_key_names(block: str) -> None:
    found = lenient.read_block(block)
    for key, value in found.items():
        assert re.fullmatch(r"[A-Za-z0-9_-]+", key)
        if key == "metadata" and not isinstance(value, str):
            assert isinstance(value, dict)
        else:
            assert isinstance(value, str) and value != ""
