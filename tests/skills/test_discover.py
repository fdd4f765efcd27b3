"""Finding SKILL.md files (skills/discover.py): where discovery searches, which root wins, links
and loops below the skill roots, and the caps that bound the walk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptc.model.config import SkillsConfig
from promptc.skills import discover as skills
from promptc.skills import listing as skillblock

from support.factories import make_config, write_files
from support.paths import CORPUS
from support.skills import build, listed_names, skill_md

# --------------------------------------------------------------------------- discovery


def test_nested_skill_is_listed_by_its_frontmatter_name(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/personal/foo/SKILL.md": skill_md("weather-pro", "Forecasts")})
    block = build(tmp_path)
    assert block.text == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>weather-pro</name>\n"
        "    <description>Forecasts</description>\n"
        "    <location>/srv/agent/skills/personal/foo/SKILL.md</location>\n"
        f"    <version>{block.entries[0].version}</version>\n"
        "  </skill>\n"
        "</available_skills>"
    )


def test_hidden_dirs_node_modules_and_deep_dirs_are_not_searched(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "skills/.hidden/SKILL.md": skill_md("hidden", "H"),
            "skills/node_modules/pkg/SKILL.md": skill_md("vendored", "V"),
            "skills/1/2/3/4/5/6/SKILL.md": skill_md("six-deep", "D"),
            "skills/1/2/3/4/5/6/7/SKILL.md": skill_md("seven-deep", "D"),
        },
    )
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.name for skill in found] == ["six-deep"]


def test_a_folder_with_a_skill_md_is_one_skill_and_its_subfolders_are_not_searched(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "skills/outer/SKILL.md": skill_md("outer", "O"),
            "skills/outer/examples/inner/SKILL.md": skill_md("inner", "I"),
            "skills/unreadable/SKILL.md": "no frontmatter\n",
            "skills/unreadable/sub/SKILL.md": skill_md("hidden-by-parent", "H"),
        },
    )
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.name for skill in found] == ["outer"]


def test_a_root_that_is_itself_a_skill_lists_only_that_skill(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/SKILL.md": skill_md("whole", "W"), "skills/part/SKILL.md": skill_md("part", "P")})
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.name for skill in found] == ["whole"]


def test_a_skills_folder_directly_below_a_root_is_searched_as_a_root(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "skills/skills/1/2/3/4/5/6/SKILL.md": skill_md("six-below-nested", "D"),
            "skills/skills/1/2/3/4/5/6/7/SKILL.md": skill_md("seven-below-nested", "D"),
            "skills/x/skills/1/2/3/4/5/SKILL.md": skill_md("deeper-skills-folder", "D"),
        },
    )
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.name for skill in found] == ["six-below-nested"]


def test_an_extra_root_is_searched_two_levels_deep_unless_it_is_named_skills(tmp_path: Path) -> None:
    files = {
        "a/SKILL.md": skill_md("one-deep", "D"),
        "a/b/SKILL.md": skill_md("two-deep", "D"),
        "g/b/c/SKILL.md": skill_md("three-deep", "D"),
        "skills/1/2/3/4/5/SKILL.md": skill_md("in-its-skills-folder", "D"),
    }
    write_files(tmp_path / "project", files)
    write_files(tmp_path / "tree/skills", files)
    extra = (str(tmp_path / "project"), str(tmp_path / "tree/skills"))
    block = build(tmp_path / "ws", make_config(skills=SkillsConfig(extra_dirs=extra[:1])))
    assert listed_names(block) == ["in-its-skills-folder", "one-deep"]
    block = build(tmp_path / "ws", make_config(skills=SkillsConfig(extra_dirs=extra[1:])))
    assert listed_names(block) == ["in-its-skills-folder", "one-deep", "three-deep"]


def test_oversized_skill_file_is_skipped(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/big/SKILL.md": skill_md("big", "B") + "x" * 256_000})
    found, diagnostics = skills.discover([tmp_path / "skills"])
    assert found == () and "256000 bytes" in diagnostics[0]


def test_later_root_overrides_earlier_by_name(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "extra/tool/SKILL.md": skill_md("tool", "from extra"),
            "extra/only-extra/SKILL.md": skill_md("only-extra", "kept"),
            "ws/skills/tool/SKILL.md": skill_md("tool", "from workspace"),
        },
    )
    cfg = make_config(skills=SkillsConfig(extra_dirs=(str(tmp_path / "extra"),)))
    block = build(tmp_path / "ws", cfg)
    assert "from workspace" in block.text and "from extra" not in block.text
    assert f"<location>{tmp_path / 'extra' / 'only-extra' / 'SKILL.md'}</location>" in block.text
    assert "<location>/srv/agent/skills/tool/SKILL.md</location>" in block.text


def test_a_workspace_skill_is_located_under_the_directory_read_when_the_prompt_names_no_other(
    tmp_path: Path,
) -> None:
    write_files(tmp_path, {"ws/skills/tool/SKILL.md": skill_md("tool", "T")})
    block = build(tmp_path / "ws", shown_root=None)
    assert f"<location>{tmp_path}/ws/skills/tool/SKILL.md</location>" in block.text
    assert block.entries[0].location == f"{tmp_path}/ws/skills/tool/SKILL.md"


def test_a_shown_root_with_a_trailing_slash_gives_one_slash(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/tool/SKILL.md": skill_md("tool", "T")})
    assert build(tmp_path, shown_root="/srv/agent/").entries[0].location == "/srv/agent/skills/tool/SKILL.md"


def test_duplicate_name_in_one_root_keeps_the_first_path(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "skills/a/SKILL.md": skill_md("same", "first"),
            "skills/b/SKILL.md": skill_md("same", "second"),
        },
    )
    found, diagnostics = skills.discover([tmp_path / "skills"])
    assert [skill.description for skill in found] == ["first"]
    assert "duplicate skill name 'same'" in diagnostics[0]


# --------------------------------------------------------------------------- links and loops


def test_symlink_loops_under_skills_are_cut_and_the_compile_goes_on(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/group/a/SKILL.md": skill_md("a", "A")})
    (tmp_path / "skills/group/up").symlink_to("..")  # a directory loop
    (tmp_path / "skills/self").symlink_to("self")  # ELOOP on open
    block = build(tmp_path)
    assert listed_names(block) == ["a"]  # the loop through `up` is walked once, `self` skipped
    assert block.diagnostics == (
        f"{tmp_path}/skills/group/up: a link loop (it leads back to {tmp_path}/skills); skipped",
        f"{tmp_path}/skills/self: a link loop (skills/self -> skills/self); skipped",
    )


def test_each_link_loop_is_one_warning_line_naming_its_link(run_cli, tmp_path: Path) -> None:
    ws = write_files(tmp_path / "ws", {"skills/a/SKILL.md": skill_md("a", "A"), "skills/b/notes.md": "b"})
    (ws / "skills/loop1").symlink_to("..")  # back to the workspace, which holds skills/ again
    (ws / "skills/x").symlink_to("y")  # two links that point at each other: one loop
    (ws / "skills/y").symlink_to("x")
    (ws / "skills/b/SKILL.md").symlink_to("SKILL.md")
    code, out, err = run_cli("context", "--workspace", ws, "--format", "json")
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["warnings"] == [
        f"{ws}/skills/b/SKILL.md: a link loop (skills/b/SKILL.md -> skills/b/SKILL.md); skipped",
        f"{ws}/skills/loop1: a link loop (it leads back to {ws}/skills); skipped",
        f"{ws}/skills/x: a link loop (skills/x -> skills/y -> skills/x); skipped",
    ]
    assert document["skills_summary"]["listed"] == 1 and document["skills_summary"]["skipped"] == {"link loop": 1}
    code, out, _ = run_cli("context", "--workspace", ws)
    assert [line for line in out.splitlines() if "a link loop" in line] == [f"  - {w}" for w in document["warnings"]]


def test_a_second_way_into_a_searched_directory_is_no_loop(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/real/SKILL.md": skill_md("real", "Real")})
    (tmp_path / "skills/alias").symlink_to("real")
    block = build(tmp_path)
    assert listed_names(block) == ["real"] and block.diagnostics == ()


@pytest.mark.parametrize("target", ["/", "/proc"])
def test_a_skills_link_to_a_system_directory_is_refused_with_a_diagnostic(tmp_path: Path, target: str) -> None:
    (tmp_path / "skills").symlink_to(target)
    block = build(tmp_path)
    assert block.entries == () and block.text == ""
    assert any("outside" in d and "allowSymlinkTargets" in d for d in block.diagnostics)


def _outside_skill(tmp_path: Path) -> tuple[Path, Path]:
    outside = write_files(tmp_path / "elsewhere", {"far/SKILL.md": skill_md("far", "Far away")})
    ws = write_files(tmp_path / "ws", {"AGENTS.md": "x"})
    (ws / "skills").mkdir()
    return ws, outside


def test_a_skill_dir_or_skill_file_linked_outside_the_workspace_is_not_listed(tmp_path: Path) -> None:
    ws, outside = _outside_skill(tmp_path)
    (ws / "skills/dir-link").symlink_to(outside / "far")
    (ws / "skills/file-link").mkdir()
    (ws / "skills/file-link/SKILL.md").symlink_to(outside / "far/SKILL.md")
    block = build(ws)
    assert block.entries == ()
    assert sum("outside its root" in d for d in block.diagnostics) == 2


def test_allow_symlink_targets_lets_a_deliberate_link_through(tmp_path: Path) -> None:
    ws, outside = _outside_skill(tmp_path)
    (ws / "skills/dir-link").symlink_to(outside / "far")
    cfg = make_config(tree={"skills": {"load": {"allowSymlinkTargets": [str(outside)]}}})
    assert listed_names(build(ws, cfg)) == ["far"]


def test_links_inside_the_workspace_are_followed(tmp_path: Path) -> None:
    ws = write_files(tmp_path, {"library/tidy/SKILL.md": skill_md("tidy", "Tidies")})
    (ws / "skills").mkdir()
    (ws / "skills/tidy").symlink_to(ws / "library/tidy")
    assert listed_names(build(ws)) == ["tidy"]


# --------------------------------------------------------------------------- caps


def test_discovery_stops_at_its_caps_with_a_diagnostic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(tmp_path, {f"skills/s{i}/SKILL.md": skill_md(f"s{i}", "S") for i in range(5)})
    monkeypatch.setattr(skills, "MAX_SKILLS", 3)
    block = build(tmp_path)
    assert listed_names(block) == ["s0", "s1", "s2"]
    assert any("stopped after 3 SKILL.md files" in d for d in block.diagnostics)
    monkeypatch.setattr(skills, "MAX_SKILLS", 100)
    monkeypatch.setattr(skills, "MAX_DIRECTORIES", 3)  # skills/, s0, s1
    block = build(tmp_path)
    assert listed_names(block) == ["s0", "s1"]
    assert any("stopped after 3 directories" in d for d in block.diagnostics)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present in this checkout")
def test_no_corpus_workspace_reaches_a_cap() -> None:
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        block = skillblock.build(make_config(), folder, env={}, which=lambda name: None, platform="linux")
        assert not any("per-compile limit" in d or "requirements (at most" in d for d in block.diagnostics), folder.name
