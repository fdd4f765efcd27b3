"""The JSON state files (`.promptc/workspace-state.json`, `--session-state`): whatever they hold,
a compile gives a prompt or one located error line (a PromptcError through the API), and a
rewrite keeps every key it does not own exactly as it was written (issue 14 review, items 1-3)."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import PromptcError, Request, compile_pending
from promptc.commands import cli
from tests.strategies import hostile_text, yaml_values

SEEN_KEY = "bootstrapTruncationSignaturesSeen"
ONCE = (
    "--set",
    "agents.defaults.bootstrapPromptTruncationWarning=once",
    "--set",
    "agents.defaults.bootstrapMaxChars=1000",
)
"""Flags under which a render with a cut SOUL.md records its signature in the session state."""
ONE_ERROR = re.compile(r"promptc: error: [^\n]+\n")

DEEP_OBJECT = '{"a":' * 2000 + "1" + "}" * 2000
HUGE_VERSION = '{"version": ' + "9" * 5000 + "}"
DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
HOSTILE = {
    "an object nested 2,000 deep": (DEEP_OBJECT, (1, 501), "nested more than 100 levels deep"),
    "a 5,000-digit number": (HUGE_VERSION, (1, 13), "a number with more than 4300 digits"),
    "an array nested 100,000 deep": (DEEP_ARRAY, (1, 101), "nested more than 100 levels deep"),
}


def _workspace(root: Path, state: str | None = None) -> Path:
    """A workspace with a SOUL.md that the ONCE budget cuts, and optionally a state file."""
    ws = root / "ws"
    (ws / ".promptc").mkdir(parents=True)
    (ws / "SOUL.md").write_text("s" * 5000, encoding="utf-8")
    if state is not None:
        (ws / ".promptc" / "workspace-state.json").write_text(state, encoding="utf-8")
    return ws


def _cli(*args: Any) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([str(arg) for arg in args])
    return code, out.getvalue(), err.getvalue()


def _strict_json(text: str) -> Any:
    """`json.loads` that refuses what Python accepts but JSON does not (NaN, Infinity)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


# --------------------------------------------------------------------------- content no parser should meet


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_workspace_state_is_one_located_error_line_and_a_promptc_error(tmp_path: Path, case: str) -> None:
    content, (line, column), problem = HOSTILE[case]
    ws = _workspace(tmp_path, content)
    code, out, err = _cli("render", "--workspace", ws)
    path = ws / ".promptc" / "workspace-state.json"
    assert code == 2 and out == "" and ONE_ERROR.fullmatch(err), err
    assert err == f"promptc: error: {path}:{line}:{column}: cannot read workspace state: {problem}\n"
    with pytest.raises(PromptcError) as caught:
        compile_pending(Request(workspace=ws))
    assert caught.value.location is not None and caught.value.location.path == str(path)
    assert (caught.value.location.line, caught.value.location.column) == (line, column)


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
def test_a_hostile_session_state_is_one_located_error_line_and_a_promptc_error(tmp_path: Path, case: str) -> None:
    content, (line, column), problem = HOSTILE[case]
    ws = _workspace(tmp_path)
    session = tmp_path / "session.json"
    session.write_text(content, encoding="utf-8")
    code, out, err = _cli("render", "--workspace", ws, "--session-state", session)
    assert code == 2 and out == "", err
    assert err == f"promptc: error: {session}:{line}:{column}: cannot read session state: {problem}\n"
    with pytest.raises(PromptcError, match="cannot read session state"):
        compile_pending(Request(workspace=ws, session_state=session))


def test_a_number_just_within_the_digit_limit_and_a_long_fraction_are_read(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    session.write_text('{"big": ' + "9" * 4300 + ', "fraction": 0.' + "1" * 6000 + ', "exp": 1e400}', encoding="utf-8")
    nested = '{"deep": ' + "[" * 99 + "]" * 99 + "}"  # 100 levels with the object itself
    ws = _workspace(tmp_path, nested)
    assert _cli("render", "--workspace", ws, "--session-state", session, "--out", tmp_path / "o.txt")[0] == 0


# --------------------------------------------------------------------------- rewrites keep what they do not own


def test_a_lone_surrogate_in_the_workspace_state_survives_the_setup_completion_write(tmp_path: Path) -> None:
    original = '{"version": 1, "bootstrapSeededAt": "\\ud800", "note": "caf\\u00e9 \\udcff"}'
    ws = _workspace(tmp_path, original)  # seeded, and BOOTSTRAP.md is gone: setup completes now
    code, _, err = _cli("render", "--workspace", ws, "--out", tmp_path / "o.txt")
    assert (code, err) == (0, "")
    written = (ws / ".promptc" / "workspace-state.json").read_text(encoding="utf-8")
    assert written.startswith(original[:-1])  # every byte before the closing brace kept
    recorded = _strict_json(written)
    assert recorded["bootstrapSeededAt"] == "\ud800" and recorded["note"] == "caf\u00e9 \udcff"
    assert isinstance(recorded["setupCompletedAt"], str)


def test_a_once_notice_record_keeps_other_session_keys_byte_for_byte(tmp_path: Path) -> None:
    original = '{"other":"\\ud800","n":1e400,"z":-0,"f":2.50,"nested":{"k":[1, 0.0]}}'
    session = tmp_path / "session.json"
    session.write_text(original, encoding="utf-8")
    ws = _workspace(tmp_path)
    code, out, err = _cli("render", "--workspace", ws, "--session-state", session, *ONCE, "--out", tmp_path / "o.txt")
    assert (code, out, err) == (0, "", "")
    written = session.read_text(encoding="utf-8")
    assert written.startswith(original[:-1] + ",")
    for member in ('"n":1e400', '"z":-0', '"other":"\\ud800"', '"f":2.50'):
        assert member in written
    assert len(json.loads(written)[SEEN_KEY]) == 1


def test_a_rewrite_replaces_only_its_own_value_and_writes_valid_json(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    before, after = '{\n "a": -0,\n "', '": ["stale"] ,\n "b": 1E+2\n}\n'
    session.write_text(before + SEEN_KEY + after, encoding="utf-8")
    ws = _workspace(tmp_path)
    assert _cli("render", "--workspace", ws, "--session-state", session, *ONCE, "--out", tmp_path / "o.txt")[0] == 0
    written = session.read_text(encoding="utf-8")
    assert written.startswith(before + SEEN_KEY + '": [') and written.endswith(' ,\n "b": 1E+2\n}\n')
    seen = _strict_json(written)[SEEN_KEY]
    assert seen[0] == "stale" and len(seen) == 2


def test_a_new_session_state_file_is_indented_json(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    ws = _workspace(tmp_path)
    assert _cli("render", "--workspace", ws, "--session-state", session, *ONCE, "--out", tmp_path / "o.txt")[0] == 0
    written = session.read_text(encoding="utf-8")
    assert written == json.dumps(json.loads(written), indent=2) + "\n"
    session.write_text("{}", encoding="utf-8")  # an empty object gets the same layout
    assert _cli("render", "--workspace", ws, "--session-state", session, *ONCE, "--out", tmp_path / "o.txt")[0] == 0
    assert session.read_text(encoding="utf-8") == written.removesuffix("\n")


# --------------------------------------------------------------------------- any content


finite_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), hostile_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3)),
    max_leaves=8,
)
raw_numbers = st.sampled_from(["1e400", "-1e400", "-0", "0.0", "2.50", "1E+2", "-0.0e-0", "9" * 4300])
"""Numbers whose text a parse-and-dump would change (or could not write back at all)."""


@st.composite
def session_objects(draw: st.DrawFn) -> str:
    """A JSON object as someone else may have written it: any keys, values in any spelling,
    any of the json module's layouts."""
    members = draw(
        st.dictionaries(
            hostile_text.filter(lambda k: k != SEEN_KEY),
            st.one_of(finite_values.map(json.dumps), raw_numbers),
            max_size=4,
        )
    )
    ascii_only, spacing = draw(st.booleans()), draw(st.sampled_from([("", ":"), (" ", ": "), ("\n  ", ": ")]))
    keys = {
        key: json.dumps(key, ensure_ascii=ascii_only or re.search("[\ud800-\udfff]", key) is not None)
        for key in members
    }
    body = ",".join(f"{spacing[0]}{keys[key]}{spacing[1]}{value}" for key, value in members.items())
    return "{" + body + "}"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(session_objects())
def test_any_session_object_is_kept_byte_for_byte_when_a_signature_is_recorded(original: str) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        session = root / "session.json"
        session.write_bytes(original.encode("utf-8", "surrogatepass"))
        code, _, err = _cli(
            "render", "--workspace", _workspace(root), "--session-state", session, *ONCE, "--out", root / "o.txt"
        )
        assert (code, err) == (0, "")
        written = session.read_bytes().decode("utf-8")
    assert written.startswith(original[:-1])
    recorded = _strict_json(written)
    assert len(recorded.pop(SEEN_KEY)) == 1
    assert json.dumps(recorded, sort_keys=True) == json.dumps(json.loads(original), sort_keys=True)


hostile_state_files = st.one_of(
    st.binary(max_size=200),
    yaml_values.map(lambda v: json.dumps(v).encode("ascii")),
    st.integers(90, 3000).map(lambda n: ('{"x": ' + "[" * n + "]" * n + "}").encode("ascii")),
    st.integers(4200, 6000).map(lambda n: ('{"version": ' + "7" * n + "}").encode("ascii")),
    st.tuples(hostile_text, hostile_text).map(
        lambda pair: json.dumps({"bootstrapSeededAt": pair[0], pair[1]: pair[0]}).encode("ascii")
    ),
)
"""Bytes a state file may hold: anything, JSON with hostile strings, nesting and numbers past
the limits, a seeded workspace state whose setup completes on this compile."""


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(hostile_state_files, hostile_state_files)
def test_any_state_file_content_gives_a_prompt_or_one_error_line(workspace_state: bytes, session_state: bytes) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        ws = _workspace(root)
        (ws / ".promptc" / "workspace-state.json").write_bytes(workspace_state)
        session = root / "session.json"
        session.write_bytes(session_state)
        try:
            compile_pending(Request(workspace=ws, session_state=session))
        except PromptcError as error:
            assert "\n" not in str(error)
        code, out, err = _cli("render", "--workspace", ws, "--session-state", session, *ONCE, "--out", root / "o.txt")
        assert out == "" and "internal error" not in err, err
        if code == 2:
            assert ONE_ERROR.fullmatch(err), err
            return
        assert (code, err) == (0, "")
        for path in (ws / ".promptc" / "workspace-state.json", session):
            json.loads(path.read_bytes().decode("utf-8"))  # still JSON, and valid UTF-8
