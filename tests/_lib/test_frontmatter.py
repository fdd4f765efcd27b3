"""Frontmatter splitting: removed when well-formed, text kept verbatim otherwise."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc._lib import frontmatter


def test_block_and_following_blank_lines_are_removed() -> None:
    result = frontmatter.split("---\ntitle: Soul\n---\n\n\nBe kind.\n")
    assert result.body == "Be kind.\n"
    assert result.metadata == {"title": "Soul"}
    assert result.diagnostic is None


def test_dots_close_the_block_too() -> None:
    result = frontmatter.split("---\na: 1\n...\nBody")
    assert (result.body, result.metadata) == ("Body", {"a": 1})


def test_indentation_of_the_first_body_line_is_kept() -> None:
    assert frontmatter.split("---\na: 1\n---\n\n    code\n").body == "    code\n"


def test_only_the_first_closing_line_ends_the_block() -> None:
    assert frontmatter.split("---\na: 1\n---\nx\n---\ny").body == "x\n---\ny"


def test_empty_block_is_valid_and_empty() -> None:
    result = frontmatter.split("---\n---\nBody")
    assert (result.body, result.metadata, result.diagnostic) == ("Body", {}, None)


def test_text_without_leading_delimiter_is_untouched() -> None:
    text = "Intro\n---\na: 1\n---\n"
    assert frontmatter.split(text) == frontmatter.Split(text, None, None)


def test_unclosed_block_keeps_the_text_and_says_why() -> None:
    text = "---\ntitle: x\nno end here\n"
    result = frontmatter.split(text)
    assert result.body == text
    assert result.metadata is None
    assert "never closed" in result.diagnostic


def test_a_closing_line_with_extra_text_does_not_close() -> None:
    text = "---\na: 1\n---extra\nbody\n"
    result = frontmatter.split(text)
    assert result.body == text
    assert "never closed" in result.diagnostic


def test_invalid_yaml_keeps_the_text_and_names_the_file_line() -> None:
    text = "---\na: b: c\n---\nBody\n"
    result = frontmatter.split(text)
    assert result.body == text
    assert result.metadata is None
    # The second colon of the second file line is what YAML rejects, in PyYAML's own words
    # (libyaml words it "mapping values are not allowed in this context").
    problem = "frontmatter is not valid YAML (mapping values are not allowed here at line 2, column 5)"
    assert result.diagnostic == problem + "; file kept verbatim"
    assert frontmatter.metadata(text) == (None, problem)


@pytest.mark.parametrize("block", ["- a\n- b", "just words", "42"])
def test_yaml_that_is_not_a_mapping_keeps_the_text(block: str) -> None:
    text = f"---\n{block}\n---\nBody"
    result = frontmatter.split(text)
    assert result.body == text
    assert "not a mapping" in result.diagnostic


def test_yes_and_dates_stay_strings_true_stays_boolean() -> None:
    metadata = frontmatter.split("---\nname: yes\nday: 2024-01-31\nflag: true\n---\n").metadata
    assert metadata == {"name": "yes", "day": "2024-01-31", "flag": True}


def test_delimiter_lines_may_carry_trailing_spaces() -> None:
    assert frontmatter.split("---  \na: 1\n--- \nBody").body == "Body"


def test_body_is_data_not_a_template() -> None:
    assert frontmatter.split("---\na: 1\n---\n{{ 7*7 }} {% raw %}").body == "{{ 7*7 }} {% raw %}"


# --------------------------------------------------------------------------- hostile blocks


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        ("a: " + "[" * 600 + "]" * 600, "nested too deeply"),
        ("a: " + "[" * 70 + "]" * 70, "nested more than 64 levels deep"),
        ("a: " + "9" * 4301, "a value YAML cannot read"),
        ("a: !!float abc", "a value YAML cannot read"),
    ],
    ids=["600-deep", "70-deep", "4301-digits", "bad-float-tag"],
)
def test_a_block_yaml_cannot_hold_keeps_the_text_with_a_diagnostic(block: str, reason: str) -> None:
    text = f"---\n{block}\n---\nBody\n"
    result = frontmatter.split(text)
    assert result.body == text and result.metadata is None
    assert reason in (result.diagnostic or "") and "kept verbatim" in (result.diagnostic or "")
    assert "\n" not in (result.diagnostic or "")
    metadata, problem = frontmatter.metadata(text)  # a SKILL.md's reading says the same
    assert metadata is None and reason in (problem or "") and "\n" not in (problem or "")


def test_lone_surrogate_escapes_become_replacement_characters() -> None:
    result = frontmatter.split('---\n"k\\ud800": "v\\udfff"\npair: "\\ud83d\\ude00"\n---\nBody')
    assert result.metadata == {"k\ufffd": "v\ufffd", "pair": "\U0001f600"}


def test_a_hostile_bootstrap_file_is_injected_verbatim_with_a_warning(run_cli, tmp_path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    soul = "---\nnotes: " + "[" * 600 + "]" * 600 + "\n---\nBe kind.\n"
    (ws / "SOUL.md").write_text(soul, encoding="utf-8")
    (ws / "USER.md").write_text("---\nid: " + "9" * 5000 + "\n---\nHi.\n", encoding="utf-8")
    code, out, err = run_cli("render", "--workspace", ws, "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert "Be kind." in document["stable"] and "[[[[" in document["stable"]
    assert any("SOUL.md" in w and "nested too deeply" in w for w in document["warnings"])
    assert any("USER.md" in w and "a value YAML cannot read" in w for w in document["warnings"])


@pytest.mark.parametrize(
    "number",
    ["0x" + "f" * 4000, "0b" + "1" * 20_000, "-0x" + "F" * 3800, "1" + ":00" * 3000, "0" + "7" * 5000],
    ids=["hex", "binary", "negative-hex", "sexagesimal", "octal"],
)
def test_a_number_too_long_in_any_form_keeps_the_file_verbatim(run_cli, tmp_path, number: str) -> None:
    ws = tmp_path / "ws"
    (ws / "skills" / "s").mkdir(parents=True)
    (ws / "USER.md").write_text(f"---\nid: {number}\n---\nHi.\n", encoding="utf-8")
    (ws / "skills" / "s" / "SKILL.md").write_text(
        f"---\nname: s\ndescription: d\nversion: {number}\n---\nBody\n", encoding="utf-8"
    )
    for command in ("render", "context"):
        code, out, err = run_cli(command, "--workspace", ws, "--format", "json")
        assert code == 0, err
        warnings = json.loads(out)["warnings"]
        assert any(
            "USER.md" in w and "a number with more than 4,300 digits" in w and "kept verbatim" in w for w in warnings
        ), warnings


# --------------------------------------------------------------------------- one reader, worded one way

_LINES = st.one_of(
    st.builds(
        lambda key, sep, value: f"{key}{sep}{value}",
        st.sampled_from(["a", "b-c", "name", "yes", "[x", "? k", "- i", "  i"]),
        st.sampled_from([": ", ":", ":\t", " : ", "\t: "]),
        st.text(st.sampled_from(list("ab:-?#[]{},'\"!&*|>%@` \t\\") + ["\x85", "\u2028", "\ufeff", "é"]), max_size=8),
    ),
    st.sampled_from(["", " ", "# comment", "\t", "...", "%YAML 1.2", "\ufeffname: x", "k: &a [*a]", "k: *nope"]),
)
blocks = st.lists(_LINES, max_size=4).map("\n".join)
"""Frontmatter blocks of a few lines, many of them YAML that one parser or both refuse."""


def _pyyaml_words(error: yaml.YAMLError) -> str:
    problem = getattr(error, "problem", None) or "parse error"
    mark = getattr(error, "problem_mark", None)
    return problem if mark is None else f"{problem} at line {mark.line + 2}, column {mark.column + 1}"


@settings(max_examples=500, deadline=None)
@given(blocks)
@example("a: b: c")
@example('k: "\\ud800"')  # libyaml refuses an escaped lone surrogate; PyYAML's own parser reads it
def test_what_pyyamls_own_parser_refuses_is_refused_in_its_words(block: str) -> None:
    """A block is read by libyaml when PyYAML has it, but a block it cannot use is described in
    the words of PyYAML's own parser, so a diagnostic does not depend on how PyYAML was built."""
    found, problem = frontmatter.parse_block(block)
    assert (found is None) is (problem is not None)
    if problem is None or not problem.startswith("frontmatter is not valid YAML ("):
        return
    try:
        yaml.compose(block, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        assert problem == f"frontmatter is not valid YAML ({_pyyaml_words(error)})"


@pytest.mark.parametrize("count", [frontmatter.MAX_METADATA_VALUES - 1, frontmatter.MAX_METADATA_VALUES])
def test_the_limit_on_values_counts_the_mapping_and_each_value(count: int) -> None:
    text = "---\n" + "\n".join(f"k{index}: v" for index in range(count)) + "\n---\nBody"
    result = frontmatter.split(text)
    assert (result.metadata is None) == (count == frontmatter.MAX_METADATA_VALUES)
    if result.metadata is None:
        assert (
            result.diagnostic
            == f"frontmatter expands to more than {frontmatter.MAX_METADATA_VALUES} values; file kept verbatim"
        )


def test_an_alias_bomb_is_refused_by_the_value_budget() -> None:
    block = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        for prev, name in zip("abcdefgh", "bcdefghi")
    )
    found, problem = frontmatter.parse_block(block)
    assert found is None and problem == f"frontmatter expands to more than {frontmatter.MAX_METADATA_VALUES} values"
