"""Lossless JSON for session lines: numbers keep their text, spans of values, splicing, writing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc.transcript.jsonline import (
    RawNumber,
    decode_line,
    dumps,
    element_spans,
    encode_line,
    exact_json,
    loads,
    member_spans,
    separator,
    splice,
    value_span,
)


@pytest.mark.parametrize("text", ["1e400", "-0", "1e-400", "1.50", "2E+3", "0.1000000000000000055511151231257827"])
def test_numbers_python_would_change_keep_their_text(text):
    assert loads(text) == RawNumber(text) and dumps(loads(f"[{text}]")) == f"[{text}]"


def test_a_5000_digit_integer_is_read_and_written_back():
    digits = "9" * 5000
    assert dumps(loads('{"n": ' + digits + "}")) == '{"n":' + digits + "}"


def test_ordinary_numbers_stay_python_numbers():
    assert loads("[0, -3, 1.5, 1e+16, -0.0]") == [0, -3, 1.5, 1e16, -0.0]
    assert [type(v) for v in loads("[7, 2.5]")] == [int, float]


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_non_json_constants_are_refused(text):
    with pytest.raises(ValueError):
        loads(text)


def test_raw_numbers_compare_by_their_nearest_float():
    assert loads("-0").value == 0 and loads("1e400").value == float("inf")


@pytest.mark.parametrize("value", [{"k": [1, {"z": []}, {}], "s": "é", "n": None, "b": True}, [], {}, [[]], "x"])
def test_dumps_writes_what_json_dumps_writes(value):
    assert dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert dumps(value, indent=2) == json.dumps(value, ensure_ascii=False, indent=2)
    assert dumps(value, ascii_only=True) == json.dumps(value, separators=(",", ":"))


def test_exact_json_refuses_a_lone_surrogate():
    assert exact_json({"id": "é"}) == '{"id":"\\u00e9"}'
    assert exact_json({"id": "\udcff"}) is None and exact_json(["a", ["\ud800"]]) is None


def test_member_spans_find_each_value_and_the_last_of_a_repeated_key():
    text = ' { "a" : 1 , "b": {"c": [1, 2]}, "a": "second" } '
    spans = member_spans(text, value_span(text))
    assert {key: text[span.start : span.end] for key, span in spans.items()} == {
        "a": '"second"',
        "b": '{"c": [1, 2]}',
    }
    assert member_spans("{}", value_span("{}")) == {}


def test_element_spans_and_separator():
    text = '[{"x": 1}, "two" ,3]'
    spans = element_spans(text, value_span(text))
    assert [text[s.start : s.end] for s in spans] == ['{"x": 1}', '"two"', "3"]
    assert separator(text, spans) == ", " and separator("[1]", element_spans("[1]", value_span("[1]"))) == ","
    assert element_spans("[ ]", value_span("[ ]")) == []


def test_splice_replaces_only_the_given_spans():
    text = '{"a": 1e400, "b": "x", "c": [1]}'
    spans = member_spans(text, value_span(text))
    assert splice(text, [(spans["c"], "[]"), (spans["b"], '"y"')]) == '{"a": 1e400, "b": "y", "c": []}'


def test_bytes_that_are_not_utf8_survive_decoding_and_encoding():
    raw = b'{"t": "caf\xc3\xa9 \xff\xfe"}'
    assert encode_line(decode_line(raw)) == raw
    assert loads(decode_line(raw))["t"] == "café \udcff\udcfe"


# ---------------------------------------------------------------------------------------------
# Depth: a line nested deeper than Python's recursion limit reads like any other


def _nested(depth: int, inner: str = "1.50") -> str:
    return '{"k": ' * depth + "[" * depth + inner + "]" * depth + "}" * depth


def test_a_value_nested_far_past_the_recursion_limit_is_read():
    value = loads(_nested(6000))
    for _ in range(6000):
        value = value["k"]
    for _ in range(6000):
        value = value[0]
    assert value == RawNumber("1.50")


def test_spans_of_a_deep_line_are_found():
    text = '{"a": ' + "[" * 3000 + "]" * 3000 + ', "b": 2}'
    members = member_spans(text, value_span(text))
    assert text[members["b"].start : members["b"].end] == "2"
    assert members["a"].end - members["a"].start == 6000


@pytest.mark.parametrize(
    "broken",
    [
        "[" * 3000 + "1," + "]" * 3000,
        "[" * 3000 + "]" * 2999,
        "[" * 3000 + "NaN" + "]" * 3000,
        "[" * 3000 + "]" * 3001,
        '{"a": ' * 3000 + "{1: 2}" + "}" * 3000,
    ],
    ids=["trailing comma", "unclosed", "NaN", "extra close", "number key"],
)
def test_a_deep_line_that_is_not_json_is_still_refused(broken):
    with pytest.raises(ValueError):
        loads(broken)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(_JSON, st.sampled_from([None, 1]), st.integers(min_value=1, max_value=3))
def test_deep_and_shallow_reads_agree(value, indent, wrapping):
    """The same value read below and far above the recursion limit: the deep copy holds it unchanged."""
    text = json.dumps(value, indent=indent)
    deep = loads("[" * (1500 * wrapping) + text + "]" * (1500 * wrapping))
    for _ in range(1500 * wrapping):
        deep = deep[0]
    assert deep == loads(text)
