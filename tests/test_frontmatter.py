"""Frontmatter splitting: removed when well-formed, text kept verbatim otherwise."""

from __future__ import annotations

import json

import pytest
from hypothesis import event, example, given, settings
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
    # The second colon of the second file line is what YAML rejects.
    assert "not valid YAML" in result.diagnostic
    assert "line 2, column 5" in result.diagnostic


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


# --------------------------------------------------------------------------- hostile blocks (issue 14 item 6)


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


# --------------------------------------------------------------------------- the plain fast path

_KEYS = st.one_of(
    st.builds(lambda first, rest: first + rest, st.sampled_from("abXY_"), st.text("abcXYZ_-09", max_size=5)),
    st.sampled_from(
        [
            "name",
            "description",
            "a-b",
            "_x",
            "true",
            "True",
            "false",
            "null",
            "Null",
            "yes",
            "on",
            "y",
            "n",
            "1a",
            "x" * 128,
            "x" * 129,
            "<<",
            "=",
            "~",
        ]
    ),
)
_ODD_CHARACTERS = st.sampled_from(
    list(".:#-?,[]{}&*!|>'\"%@`~\\/=< \t")
    + ["\x85", "\u2028", "\u2029", "\ufeff", "\x01", "\x7f", "\ud800", "é", "😀", "\xa0", "\r"]
)
_WORDS = st.builds(lambda first, rest: first + rest, st.sampled_from("abxyz"), st.text("abcxyz ./()09", max_size=7))
_WITH_ODD = st.builds(lambda head, odd, tail: head + odd + tail, _WORDS, _ODD_CHARACTERS, st.text("ab .", max_size=3))
_JSON_LEAVES = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(_ODD_CHARACTERS, max_size=4),
    _WORDS,
)
_JSON = st.recursive(
    _JSON_LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_WORDS, inner, max_size=3)),
    max_leaves=6,
)
_FLOWS = st.one_of(
    st.builds(lambda text, ascii: json.dumps(text, ensure_ascii=ascii), st.one_of(_WORDS, _WITH_ODD), st.booleans()),
    st.builds(
        lambda data, ascii, compact: json.dumps(data, ensure_ascii=ascii, separators=(",", ":") if compact else None),
        st.one_of(st.lists(_JSON, max_size=3), st.dictionaries(_WORDS, _JSON, max_size=3)),
        st.booleans(),
        st.booleans(),
    ),
    st.sampled_from(
        [
            '{"n": 1e5}',
            '{"n": 1.5e3}',
            '{"n": 1.5E-3}',
            '{"n": NaN}',
            "[Infinity]",
            '{"s": "a\\/b"}',
            '["\\ud83d\\ude00"]',
            '["\\ud800"]',
            '["\\u0000"]',
            '{"a":1,"a":2}',
            "[01]",
            "[-0]",
            "[1.0e+999]",
            '{"a": [1, 2]',
            "{a: 1}",
            "['q']",
            '{"a": 1} # c',
            '{"a": "x"} tail',
            '"a" b',
            '"\\x41"',
            '"a\\\nb"',
            '"q" # c',
            "[" * 70 + "]" * 70,
            '{"k": "\\t"}',
        ]
    ),
)
_VALUES = st.one_of(
    _WORDS,
    _FLOWS,
    _FLOWS,
    _WITH_ODD,
    _WITH_ODD,
    st.sampled_from(
        [
            "true",
            "TRUE",
            "yes",
            "1",
            "-1",
            "+1",
            "0x1F",
            "0o17",
            "1_000",
            "1e3",
            "1.5",
            ".inf",
            "-.inf",
            ".nan",
            "null",
            "~",
            "NULL",
            "2024-01-01",
            "12:30:00",
            "1:20",
            "=",
            "<<",
            "- a",
            "-",
            "a: b",
            "a:",
            "a #b",
            "a#b",
            "x: ",
            "&anchor",
            "*alias",
            "!tag x",
            "|",
            ">",
            "'q'",
            '"q"',
            "plain text, with [brackets]",
        ]
    ),
    st.text(_ODD_CHARACTERS, max_size=4),
)
_ENTRIES = st.builds(
    lambda key, value, tail: f"{key}: {value}{tail}", _KEYS, _VALUES, st.sampled_from(["", "", "", " ", "  ", "\t"])
)
_ODD_LINES = st.one_of(
    st.builds(
        lambda key, colon, value: f"{key}{colon}{value}", _KEYS, st.sampled_from([":  ", ":", ":\t", " : "]), _VALUES
    ),
    st.sampled_from(
        ["", " ", "# comment", "  indented: x", "- item", "---", "...", "key:", "%YAML 1.2", "\ufeffname: x"]
    ),
)
blocks = st.lists(st.one_of(_ENTRIES, _ENTRIES, _ENTRIES, _ENTRIES, _ENTRIES, _ODD_LINES), max_size=4).map("\n".join)
"""Frontmatter blocks, mostly `key: value` lines, the values often text with one odd character."""


@settings(max_examples=1000, deadline=None)
@given(blocks)
@example("k: a\u2028b")  # a line break to YAML, not to str.split("\n")
def test_the_plain_fast_path_reads_a_block_as_libyaml_does(block: str) -> None:
    plain = frontmatter.plain_mapping(block)
    event("fast path" if plain is not None else "YAML")
    assert frontmatter.parse_metadata(block) == frontmatter.parse_block(block, frontmatter.FastLoader)
    if plain is not None:
        assert frontmatter.parse_block(block, frontmatter.FastLoader) == (plain, None)


def test_a_skill_block_of_key_text_lines_takes_the_fast_path() -> None:
    block = "\nname: weather\ndescription: Get the forecast (today, tomorrow; no key needed)   \n\nhomepage: https://x.test/a#b\n"
    assert frontmatter.plain_mapping(block) == {
        "name": "weather",
        "description": "Get the forecast (today, tomorrow; no key needed)",
        "homepage": "https://x.test/a#b",
    }
    assert frontmatter.plain_mapping('name: x\nmetadata: {"a": [1, -2.5, true, null, "q\\u00e9"]}') == {
        "name": "x",
        "metadata": {"a": [1, -2.5, True, None, "qé"]},
    }
    assert frontmatter.plain_mapping('description: "Say \\"hi\\": twice"') == {"description": 'Say "hi": twice'}
    assert frontmatter.plain_mapping("name: x\nversion: 1.0") is None  # a float: the loader reads it
    assert frontmatter.plain_mapping('metadata: {"n": 1e5}') is None  # text to YAML 1.1, a number to JSON


@pytest.mark.parametrize("count", [frontmatter.MAX_METADATA_VALUES - 1, frontmatter.MAX_METADATA_VALUES])
def test_the_fast_path_keeps_the_limit_on_values(count: int) -> None:
    block = "\n".join(f"k{index}: v" for index in range(count))
    found = frontmatter.parse_metadata(block)
    assert found == frontmatter.parse_block(block, frontmatter.FastLoader)
    assert (found[0] is None) == (count == frontmatter.MAX_METADATA_VALUES)


def test_the_fast_path_refuses_exactly_what_yaml_cannot_read_as_plain_text_on_one_line() -> None:
    """Every code point: YAML 1.1's printable set (tab aside, which the fast path never takes),
    less its line breaks (U+0085, U+2028, U+2029) and the byte-order mark."""
    printable = [(0x20, 0x7E), (0xA0, 0xD7FF), (0xE000, 0xFFFD), (0x10000, 0x10FFFF)]
    unreadable = [
        c for c in range(0x110000) if not any(lo <= c <= hi for lo, hi in printable) or c in (0x2028, 0x2029, 0xFEFF)
    ]
    every = "".join(map(chr, range(0x110000)))
    assert [m.start() for m in frontmatter._UNPRINTABLE.finditer(every)] == unreadable
