"""Reading one SKILL.md (skills/skillfile.py): its name, description and version, the reason it is
skipped, and its frontmatter found exactly where a workspace file's would be."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from promptc._lib import frontmatter
from promptc.skills import discover as skills

from support.factories import write_files
from support.skills import build, listed_names, skill_md


def test_name_falls_back_to_the_directory(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/tidy-up/SKILL.md": skill_md(None, "Cleans")})
    assert listed_names(build(tmp_path)) == ["tidy-up"]


def test_version_is_the_sha256_prefix_of_the_raw_bytes_and_follows_every_byte(
    tmp_path: Path,
) -> None:
    path = write_files(tmp_path, {"skills/a/SKILL.md": skill_md("a", "A")}) / "skills/a/SKILL.md"
    first = build(tmp_path).entries[0].version
    assert first == "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    path.write_bytes(path.read_bytes() + b" ")
    assert build(tmp_path).entries[0].version != first


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (skill_md("x", None), "no `description`"),
        ("---\nname: [x\n---\n", "not valid YAML"),
        ("# no frontmatter at all\n", "no frontmatter (a `---` block with name and description); skill skipped"),
        ("---\nname: x\ndescription: never closed\n", "never closed"),
    ],
    ids=["no-description", "bad-yaml", "no-frontmatter", "unclosed"],
)
def test_skill_without_usable_description_is_skipped_with_a_diagnostic(tmp_path: Path, content: str, why: str) -> None:
    write_files(tmp_path, {"skills/x/SKILL.md": content})
    found, diagnostics = skills.discover([tmp_path / "skills"])
    assert found == ()
    assert len(diagnostics) == 1 and why in diagnostics[0] and "skills/x/SKILL.md" in diagnostics[0]


def test_whitespace_in_descriptions_is_collapsed(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/a/SKILL.md": "---\nname: a\ndescription: |\n  two\n  lines\n---\n"})
    assert "<description>two lines</description>" in build(tmp_path).text


# --------------------------------------------------------------------------- the same delimiters as workspace files


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: a\ndescription: closed by dots\n...\nbody\n",
        "---  \nname: a\ndescription: trailing blanks on the delimiters\n---\t\nbody\n",
        "----\nname: a\ndescription: four dashes open nothing\n----\nbody\n",
        "...\nname: a\ndescription: dots do not open\n---\nbody\n",
        "---\nname: a\ndescription: never closed\n",
        "---\n---\nbody\n",
    ],
)
def test_a_skill_md_block_is_found_exactly_where_a_workspace_file_block_would_be(tmp_path: Path, text: str) -> None:
    write_files(tmp_path, {"skills/a/SKILL.md": text})
    found, _ = skills.discover([tmp_path / "skills"])
    expected = frontmatter.split(text).metadata
    assert [skill.metadata for skill in found] == ([expected] if expected and expected.get("description") else [])


def test_a_skill_md_yaml_error_names_the_line_of_the_file(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/x/SKILL.md": "---\nname: x\nwhen: a: b\n---\n"})
    _, diagnostics = skills.discover([tmp_path / "skills"])
    assert len(diagnostics) == 1
    assert "frontmatter is not valid YAML (mapping values are not allowed here at line 3, column 8)" in diagnostics[0]


def test_a_skill_md_block_is_read_as_a_yaml_document_of_whole_lines(tmp_path: Path) -> None:
    """Each line of the block keeps its line break, so a block scalar that ends it keeps its last one."""
    write_files(
        tmp_path, {"skills/x/SKILL.md": "---\nname: x\ndescription: d\nmetadata:\n  note: |\n    kept\n---\nbody\n"}
    )
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.metadata for skill in found] == [{"name": "x", "description": "d", "metadata": {"note": "kept\n"}}]
