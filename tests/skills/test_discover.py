"""Skill discovery, eligibility and the budgeted `<available_skills>` block."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc._lib import frontmatter
from promptc.model.config import SkillsConfig
from promptc.skills import discover as skills
from promptc.skills import listing as skillblock
from tests import strategies
from tests.factories import make_config, write_files

ALL_BINS = {"git": "/usr/bin/git", "jq": "/usr/bin/jq"}


def skill_md(name: str | None, description: str | None, extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    lines += [extra, "---", "", "# Instructions", ""] if extra else ["---", "", "# Instructions", ""]
    return "\n".join(lines)


def build(root: Path, cfg=None, *, env=None, which=ALL_BINS.get, platform="linux"):
    return skillblock.build(cfg or make_config(), root, env=env or {}, which=which, platform=platform)


def listed_names(block) -> list[str]:
    return [entry.name for entry in block.entries if entry.included]


# --------------------------------------------------------------------------- discovery


def test_nested_skill_is_listed_by_its_frontmatter_name(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/personal/foo/SKILL.md": skill_md("weather-pro", "Forecasts")})
    block = build(tmp_path)
    assert block.text == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>weather-pro</name>\n"
        "    <description>Forecasts</description>\n"
        "    <location>skills/personal/foo/SKILL.md</location>\n"
        f"    <version>{block.entries[0].version}</version>\n"
        "  </skill>\n"
        "</available_skills>"
    )


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
        ("---\nname: x\ndescription: a: b\n---\n", "not valid YAML"),
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
    assert "<location>skills/tool/SKILL.md</location>" in block.text


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


def test_whitespace_in_descriptions_is_collapsed(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/a/SKILL.md": "---\nname: a\ndescription: |\n  two\n  lines\n---\n"})
    assert "<description>two lines</description>" in build(tmp_path).text


# --------------------------------------------------------------------------- eligibility


def meta_skill(tmp_path: Path, metadata: str) -> Path:
    return write_files(tmp_path, {"skills/s/SKILL.md": skill_md("s", "S", f"metadata:\n{metadata}")})


@pytest.mark.parametrize(
    ("metadata", "kwargs", "reason"),
    [
        ("  requires:\n    bins: [git, ffmpeg]", {}, "binaries not on PATH: ffmpeg"),
        ("  openclaw:\n    requires:\n      bins: [ffmpeg]", {}, "binaries not on PATH: ffmpeg"),
        (
            "  requires:\n    anyBins: [ffmpeg, sox]",
            {},
            "none of these binaries on PATH: ffmpeg, sox",
        ),
        ("  requires:\n    env: [API_KEY]", {}, "environment variables unset: API_KEY"),
        (
            "  requires:\n    config: [tools.browser.enabled]",
            {},
            "config values not set: tools.browser.enabled",
        ),
        ("  os: [darwin]", {}, "only for darwin"),
        ("  openclaw:\n    os: [win32, darwin]", {}, "only for darwin, win32"),
        ("  clawdbot:\n    os: darwin", {}, "only for darwin"),
    ],
)
def test_unmet_requirement_makes_a_skill_ineligible(tmp_path: Path, metadata: str, kwargs, reason: str) -> None:
    block = build(meta_skill(tmp_path, metadata), **kwargs)
    assert block.text == ""
    assert block.entries[0].included is False
    assert block.entries[0].reason == f"ineligible: {reason}"


def test_met_requirements_make_a_skill_eligible(tmp_path: Path) -> None:
    metadata = (
        "  openclaw:\n    os: [linux]\n    requires:\n      bins: [git]\n      anyBins: [ffmpeg, jq]\n"
        "      env: [API_KEY]\n      config: [tools.browser.enabled]"
    )
    cfg = make_config(tree={"tools": {"browser": {"enabled": True}}})
    block = build(meta_skill(tmp_path, metadata), cfg, env={"API_KEY": "k"})
    assert listed_names(block) == ["s"]


def test_macos_alias_matches_darwin(tmp_path: Path) -> None:
    block = build(meta_skill(tmp_path, "  os: [macOS]"), platform="darwin")
    assert listed_names(block) == ["s"]


def test_disabled_and_allowlist_are_honoured(tmp_path: Path) -> None:
    write_files(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name, name.upper()) for name in "abc"})
    cfg = make_config(skills=SkillsConfig(disabled=frozenset({"a"}), allowlist=("a", "b")))
    block = build(tmp_path, cfg)
    assert listed_names(block) == ["b"]
    assert [entry.reason for entry in block.entries] == [
        "ineligible: disabled in config",
        None,
        "ineligible: not in the agent's skills allowlist",
    ]
    assert build(tmp_path, make_config(skills=SkillsConfig(allowlist=()))).text == ""


# --------------------------------------------------------------------------- the block


def test_list_is_sorted_by_code_point_and_text_is_escaped(tmp_path: Path) -> None:
    write_files(
        tmp_path,
        {
            "skills/one/SKILL.md": '---\nname: b\ndescription: "\'quotes\' & \\"more\\""\n---\n',
            "skills/two/SKILL.md": skill_md("B", "<tag>"),
            "skills/three/SKILL.md": skill_md("a", "plain"),
        },
    )
    block = build(tmp_path)
    assert listed_names(block) == ["B", "a", "b"]
    assert "<description>&lt;tag&gt;</description>" in block.text
    assert "<description>&apos;quotes&apos; &amp; &quot;more&quot;</description>" in block.text


def test_no_eligible_skill_gives_no_text(tmp_path: Path) -> None:
    assert build(tmp_path) == skillblock.SkillsBlock("", (), None, ())


def test_count_limit_lists_the_first_names_with_a_note(tmp_path: Path) -> None:
    write_files(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name, "d") for name in "abc"})
    block = build(tmp_path, make_config(skills=SkillsConfig(max_in_prompt=2)))
    assert listed_names(block) == ["a", "b"]
    assert block.entries[2].reason == "over maxSkillsInPrompt"
    assert block.text.startswith(f"{block.note}\n<available_skills>")
    assert "2 of 3" in block.note


def budget_case(tmp_path: Path, max_chars: int):
    descriptions = {f"skill-{index}": f"Does thing number {index} " + "very " * 30 + "well." for index in range(5)}
    write_files(
        tmp_path,
        {f"skills/{name}/SKILL.md": skill_md(name, text) for name, text in descriptions.items()},
    )
    return build(tmp_path, make_config(skills=SkillsConfig(max_prompt_chars=max_chars)))


def test_budget_first_shortens_descriptions(tmp_path: Path) -> None:
    full = len(budget_case(tmp_path / "full", 100_000).text)
    block = budget_case(tmp_path / "tight", full - 100)
    assert len(block.text) <= full - 100
    assert listed_names(block) == [f"skill-{index}" for index in range(5)]
    assert block.text.count("...</description>") == 5
    assert "descriptions shortened" in block.note and block.text.splitlines()[0] == block.note


def test_budget_then_omits_descriptions(tmp_path: Path) -> None:
    # Five skills of about 150 characters each without descriptions; far less with them.
    block = budget_case(tmp_path, 900)
    assert len(block.text) <= 900
    assert "<description>" not in block.text
    assert len(listed_names(block)) == 5
    assert "descriptions omitted" in block.note


def test_budget_then_lists_fewer_skills(tmp_path: Path) -> None:
    block = budget_case(tmp_path, 400)
    assert len(block.text) <= 400
    assert "<description>" not in block.text
    assert 0 < len(listed_names(block)) < 5
    assert listed_names(block) == [f"skill-{index}" for index in range(len(listed_names(block)))]
    assert f"{len(listed_names(block))} of 5 eligible skills listed" in block.note
    assert {entry.reason for entry in block.entries if not entry.included} == {"skills budget"}


def test_budget_too_small_for_any_skill_gives_no_text(tmp_path: Path) -> None:
    block = budget_case(tmp_path, 50)
    assert block.text == "" and listed_names(block) == []
    assert "0 of 5" in block.note


@settings(max_examples=150, deadline=None)
@given(found=strategies.skill_lists(), max_chars=st.integers(min_value=0, max_value=4_000))
def test_any_listing_fits_its_budget_and_keeps_a_name_ordered_prefix(found, max_chars: int) -> None:
    listing = skillblock.fit_listing(found, len(found), max_chars)
    assert len(listing.text) <= max_chars
    listed = re.findall(r"<name>(.*?)</name>", listing.text)
    assert listed == [skill.name for skill in found[: listing.count]]
    whole = listing.count == len(found) and all(
        f"<description>{skillblock.xml_escape(skill.description)}</description>" in listing.text for skill in found
    )
    assert (listing.note is None) == (whole or not found)


@settings(max_examples=200, deadline=None)
@given(
    found=strategies.skill_lists(),
    exotic=st.lists(
        st.text(st.characters(codec=None, categories=None, max_codepoint=0x10FFFF), max_size=30), max_size=3
    ),
    data=st.data(),
)
def test_the_measured_length_of_a_listing_is_its_length(found, exotic, data) -> None:
    """The budget search measures listings without building them (skillblock.rendered_length):
    every measure must be the length of the listing it stands for."""
    listed = list(found) + [
        skills.Skill(f"zz-{i}", text or "x", f"skills/{i}/SKILL.md", "") for i, text in enumerate(exotic)
    ]
    if not listed:
        return
    sizes = [skillblock._fixed_size(skill) for skill in listed]
    count = data.draw(st.integers(min_value=0, max_value=len(listed)))
    chars = data.draw(st.one_of(st.none(), st.integers(min_value=0, max_value=200)))
    total = data.draw(st.integers(min_value=len(listed), max_value=len(listed) + 3))
    expected = len(skillblock._render(listed, count, chars, total))
    assert skillblock.rendered_length(listed, sizes, count, chars, total) == expected


# --------------------------------------------------------------------------- XML that parses

_ANY_TEXT = st.text(
    st.characters(codec=None, categories=None, min_codepoint=0, max_codepoint=0x10FFFF), min_size=1, max_size=40
)


@settings(max_examples=150, deadline=None)
@given(
    names=st.lists(_ANY_TEXT, min_size=1, max_size=5, unique=True),
    descriptions=st.lists(_ANY_TEXT, min_size=5, max_size=5),
)
def test_every_listing_is_well_formed_xml_with_one_field_per_line(names, descriptions) -> None:
    listed = [
        skills.Skill(name, description, f"skills/{name}/SKILL.md", "sha256:0123456789abcdef")
        for name, description in zip(sorted(names), descriptions)
    ]
    text = skillblock.fit_listing(listed, len(listed), 100_000).text
    block = text[text.index("<available_skills>") :]
    root = ElementTree.fromstring(block)  # raises on anything XML cannot hold
    assert [skill.findtext("name") for skill in root] == [_xml_equivalent(skill.name) for skill in listed]
    assert all(line.strip().startswith("<") for line in block.split("\n"))
    block.encode("utf-8")


def _xml_equivalent(text: str) -> str:
    """What an XML parser reads back: forbidden characters became U+FFFD, CR arrives as CR."""
    forbidden = {*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0xD800, 0xE000), 0xFFFE, 0xFFFF}
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return "".join("\ufffd" if ord(c) in forbidden else c for c in joined)


def test_xml_escape_changes_exactly_the_characters_xml_cannot_hold_as_they_are() -> None:
    """Every code point of the basic plane, one at a time: the five specials and the line
    breaks become references, what XML forbids becomes U+FFFD, every other one is left alone."""
    references = {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        '"': "&quot;",
        "'": "&apos;",
        "\n": "&#10;",
        "\r": "&#13;",
        "\x85": "&#133;",
        "\u2028": "&#8232;",
        "\u2029": "&#8233;",
    }
    for point in [*range(0x10000), 0x1F600, 0x10FFFF]:
        char = chr(point)
        expected = references.get(char, _xml_equivalent(char))
        assert skillblock.xml_escape(f"a{char}b") == f"a{expected}b", hex(point)


def test_control_characters_in_a_skill_name_are_replaced_not_passed_through(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/one/SKILL.md": '---\nname: "a\\x00b\\x01c\\uFFFEd"\ndescription: ok\n---\n'})
    block = build(tmp_path)
    assert "<name>a\ufffdb\ufffdc\ufffdd</name>" in block.text
    ElementTree.fromstring(block.text)


# --------------------------------------------------------------------------- links and loops


def test_symlink_loops_under_skills_are_cut_and_the_compile_goes_on(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/a/SKILL.md": skill_md("a", "A")})
    (tmp_path / "skills/a/up").symlink_to("..")  # a directory loop
    (tmp_path / "skills/self").symlink_to("self")  # ELOOP on open
    block = build(tmp_path)
    assert listed_names(block) == ["a"]  # the loop through `up` is walked once, `self` skipped
    assert block.diagnostics == (
        f"{tmp_path}/skills/a/up: a link loop (it leads back to {tmp_path}/skills); skipped",
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


def test_a_skill_with_too_many_requirements_is_ineligible_and_said_so(tmp_path: Path) -> None:
    bins = "[" + ", ".join(f"tool{i}" for i in range(skillblock.MAX_REQUIREMENTS + 1)) + "]"
    write_files(tmp_path, {"skills/big/SKILL.md": skill_md("big", "Big", f"metadata: {{requires: {{bins: {bins}}}}}")})
    checked: list[str] = []
    block = build(tmp_path, which=lambda name: checked.append(name) or "/bin/" + name)
    assert listed_names(block) == [] and checked == []  # not one binary looked up
    assert block.entries[0].reason.startswith("ineligible: too many requirements")
    assert any(f"at most {skillblock.MAX_REQUIREMENTS}" in d for d in block.diagnostics)


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
    write_files(tmp_path, {"skills/x/SKILL.md": "---\nname: x\ndescription: a: b\n---\n"})
    _, diagnostics = skills.discover([tmp_path / "skills"])
    assert len(diagnostics) == 1
    assert "frontmatter is not valid YAML (mapping values are not allowed here at line 3, column 15)" in diagnostics[0]


def test_a_skill_md_block_is_read_as_a_yaml_document_of_whole_lines(tmp_path: Path) -> None:
    """Each line of the block keeps its line break, so a block scalar that ends it keeps its last one."""
    write_files(
        tmp_path, {"skills/x/SKILL.md": "---\nname: x\ndescription: d\nmetadata:\n  note: |\n    kept\n---\nbody\n"}
    )
    found, _ = skills.discover([tmp_path / "skills"])
    assert [skill.metadata for skill in found] == [{"name": "x", "description": "d", "metadata": {"note": "kept\n"}}]


# --------------------------------------------------------------------------- one line per diagnostic

FORGED = "bad\npromptc: error: forged\x1b[2J"


def test_a_skill_directory_name_cannot_forge_a_line_in_the_context_report(run_cli, tmp_path: Path) -> None:
    ws = write_files(
        tmp_path / "ws",
        {
            f"skills/{FORGED}/SKILL.md": "---\nname: [unclosed\n---\n",  # a warning that names the path
            f"skills/{FORGED}-named/SKILL.md": skill_md(None, "Named after its directory"),
            "skills/needy/SKILL.md": skill_md(
                "needy", "Needs a tool", 'metadata: {requires: {bins: ["x\\npromptc: error: forged"]}}'
            ),
        },
    )
    code, out, err = run_cli("context", "--workspace", ws, "--detail")
    assert (code, err) == (0, "")
    assert not any(line.startswith("promptc: error") or "\x1b" in line for line in out.splitlines()), out
    escaped = "bad\\npromptc: error: forged\\x1b[2J"
    assert f"  - {ws}/skills/{escaped}/SKILL.md: frontmatter is not valid YAML" in out
    assert f"  + {escaped}-named" in out.splitlines()
    assert "  - needy (ineligible: binaries not on PATH: x\\npromptc: error: forged)" in out.splitlines()
    code, out, _ = run_cli("render", "--workspace", ws, "--no-state")
    assert "<name>bad&#10;promptc: error: forged\ufffd[2J-named</name>" in out  # the prompt keeps the name
