"""Which discovered skills are eligible, and the `<available_skills>` listing (skills/listing.py):
sorted and escaped, within its count and character budgets, always well-formed XML."""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc.model.config import SkillsConfig
from promptc.skills import discover as skills
from promptc.skills import listing as skillblock

from support import strategies
from support.factories import make_config, write_files
from support.skills import build, listed_names, skill_md

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


# --------------------------------------------------------------------------- the listing


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


COMPACT_ELEMENT = 10 + 25 + 60 + 47 + 11
"""One budget_case skill without its description, each line with its line break: `  <skill>`,
`    <name>skill-0</name>`, `    <location>/srv/agent/skills/skill-0/SKILL.md</location>`, a
`<version>` line holding `sha256:` and 16 hex digits, `  </skill>`."""
LIST_TAGS = len("<available_skills>\n") + len("</available_skills>")
COMPACT_INTRO = 2 + 73 + 72 + 90 + 172 + 5
"""What OpenClaw's budget counts above a compact list, counted by hand from its source: two line
breaks, four lines (73, 72, 90 and 172 characters), an empty line, and a line break after each of
those five. The full form's second line is 7 characters longer (it names the description)."""


def test_a_list_within_budget_keeps_every_description_and_has_no_note(tmp_path: Path) -> None:
    block = budget_case(tmp_path, 100_000)
    assert block.note is None and block.compact is False and block.text.count("<description>") == 5


def test_over_budget_the_list_takes_the_compact_form_and_says_so(tmp_path: Path) -> None:
    full = len(budget_case(tmp_path / "full", 100_000).text)
    block = budget_case(tmp_path / "tight", full - 1)
    assert listed_names(block) == [f"skill-{index}" for index in range(5)]
    assert "<description>" not in block.text and block.compact is True
    assert block.note == skillblock.notices()["compact"]
    assert block.text == f"{block.note}\n" + block.text.split("\n", 1)[1]
    assert len(block.text) == len(block.note) + 1 + LIST_TAGS + 5 * COMPACT_ELEMENT


def test_the_full_form_is_kept_while_it_and_the_room_for_its_introduction_fit(tmp_path: Path) -> None:
    text = budget_case(tmp_path / "measure", 100_000).text
    assert len(listed_names(budget_case(tmp_path / "a", len(text) + COMPACT_INTRO + 7))) == 5
    assert budget_case(tmp_path / "a", len(text) + COMPACT_INTRO + 7).compact is False
    assert budget_case(tmp_path / "b", len(text) + COMPACT_INTRO + 6).compact is True


def test_the_compact_form_is_used_whole_when_it_fits_exactly(tmp_path: Path) -> None:
    exact = len(skillblock.notices()["compact"]) + 1 + COMPACT_INTRO + LIST_TAGS + 5 * COMPACT_ELEMENT
    assert len(listed_names(budget_case(tmp_path / "a", exact))) == 5
    assert len(listed_names(budget_case(tmp_path / "b", exact - 1))) < 5


def test_when_even_the_compact_form_is_over_budget_the_first_skills_that_fit_are_listed(tmp_path: Path) -> None:
    note = skillblock.notices()["fewer_compact"].format(listed=3, total=5)
    three = len(note) + 1 + COMPACT_INTRO + LIST_TAGS + 3 * COMPACT_ELEMENT
    block = budget_case(tmp_path / "three", three)
    assert listed_names(block) == ["skill-0", "skill-1", "skill-2"] and block.compact is True
    assert block.note == note and len(block.text) == three - COMPACT_INTRO
    assert {entry.reason for entry in block.entries if not entry.included} == {"skills budget"}
    assert listed_names(budget_case(tmp_path / "two", three - 1)) == ["skill-0", "skill-1"]


def test_the_count_limit_alone_keeps_the_descriptions(tmp_path: Path) -> None:
    write_files(tmp_path, {f"skills/{name}/SKILL.md": skill_md(name, "d") for name in "abc"})
    block = build(tmp_path, make_config(skills=SkillsConfig(max_in_prompt=2)))
    assert block.note == "(Skills list shortened: 2 of 3 eligible skills listed.)"
    assert block.compact is False and block.text.count("<description>d</description>") == 2


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
    assert listing.compact == ("<description>" not in listing.text and bool(listing.note))


@settings(max_examples=200, deadline=None)
@given(
    found=strategies.skill_lists(),
    exotic=st.lists(
        st.text(st.characters(codec=None, categories=None, max_codepoint=0x10FFFF), max_size=30), max_size=3
    ),
    data=st.data(),
)
def test_the_measured_length_of_a_listing_is_its_length(found, exotic, data) -> None:
    """The budget search measures listings without building them (skillblock._list_length):
    every measure must be the length of the listing it stands for."""
    listed = list(found) + [
        skills.Skill(f"zz-{i}", text or "x", f"skills/{i}/SKILL.md", "") for i, text in enumerate(exotic)
    ]
    count = data.draw(st.integers(min_value=0, max_value=len(listed)))
    compact = data.draw(st.booleans())
    note = data.draw(st.one_of(st.none(), st.text(max_size=40)))
    elements = sum(skillblock._element_length(s, with_description=not compact) for s in listed[:count])
    intro = (COMPACT_INTRO if compact else COMPACT_INTRO + 7) if count else 0
    expected = len(skillblock._render(listed[:count], compact, note)) + intro if count else len(note or "")
    assert skillblock._list_length(count, elements, note, compact) == expected


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


# --------------------------------------------------------------------------- the requirement cap


def test_a_skill_with_too_many_requirements_is_ineligible_and_said_so(tmp_path: Path) -> None:
    bins = "[" + ", ".join(f"tool{i}" for i in range(skillblock.MAX_REQUIREMENTS + 1)) + "]"
    write_files(tmp_path, {"skills/big/SKILL.md": skill_md("big", "Big", f"metadata: {{requires: {{bins: {bins}}}}}")})
    checked: list[str] = []
    block = build(tmp_path, which=lambda name: checked.append(name) or "/bin/" + name)
    assert listed_names(block) == [] and checked == []  # not one binary looked up
    assert block.entries[0].reason.startswith("ineligible: too many requirements")
    assert any(f"at most {skillblock.MAX_REQUIREMENTS}" in d for d in block.diagnostics)


def test_always_lists_a_skill_whatever_it_requires_but_not_on_another_os(tmp_path: Path) -> None:
    always = "  openclaw:\n    always: true\n    requires:\n      bins: [ffmpeg]\n      env: [UNSET_KEY]"
    assert listed_names(build(meta_skill(tmp_path / "a", always))) == ["s"]
    elsewhere = always + "\n    os: [darwin]"
    assert build(meta_skill(tmp_path / "b", elsewhere)).entries[0].reason == "ineligible: only for darwin"
    text_flag = '  openclaw:\n    always: "true"\n    requires:\n      bins: [ffmpeg]'  # only a boolean counts
    assert build(meta_skill(tmp_path / "c", text_flag)).entries[0].reason == "ineligible: binaries not on PATH: ffmpeg"


@pytest.mark.parametrize("flag", ["true", "'yes'", "'1'", "'True'"])
def test_a_skill_for_people_only_is_never_listed(tmp_path: Path, flag: str) -> None:
    write_files(tmp_path, {"skills/s/SKILL.md": skill_md("s", "S", f"disable-model-invocation: {flag}")})
    block = build(tmp_path)
    assert block.text == ""
    assert block.entries[0].reason == "ineligible: hidden from the model (disable-model-invocation)"


def test_a_skill_with_the_flag_off_is_listed(tmp_path: Path) -> None:
    write_files(tmp_path, {"skills/s/SKILL.md": skill_md("s", "S", "disable-model-invocation: false")})
    assert listed_names(build(tmp_path)) == ["s"]
