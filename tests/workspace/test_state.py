"""A workspace's own state (workspace/state.py): setup progress and `promptc init`; and the JSON
state files (`.promptc/workspace-state.json`, `--session-state`): whatever they hold, a compile
gives a prompt or one located error line (a PromptcError through the API), and a rewrite keeps
every key it does not own exactly as it was written."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import PromptcError, Request, compile_pending
from promptc._lib.errors import WorkspaceError
from promptc.commands import cli
from promptc.workspace import state
from promptc.workspace.heartbeat import is_effectively_empty

from support.factories import write_files
from support.strategies import hostile_text, yaml_values

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
    code, out, err = _cli(
        "render", "--quiet", "--workspace", ws, "--session-state", session, *ONCE, "--out", tmp_path / "o.txt"
    )
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
            "render",
            "--quiet",
            "--workspace",
            _workspace(root),
            "--session-state",
            session,
            *ONCE,
            "--out",
            root / "o.txt",
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
        code, out, err = _cli(
            "render", "--quiet", "--workspace", ws, "--session-state", session, *ONCE, "--out", root / "o.txt"
        )
        assert out == "" and "internal error" not in err, err
        if code == 2:
            assert ONE_ERROR.fullmatch(err), err
            return
        assert (code, err) == (0, "")
        for path in (ws / ".promptc" / "workspace-state.json", session):
            json.loads(path.read_bytes().decode("utf-8"))  # still JSON, and valid UTF-8


# --------------------------------------------------------------------------- setup state


def test_state_defaults_to_nothing_seeded(tmp_path: Path) -> None:
    found = state.read_state(tmp_path)
    assert found == state.WorkspaceState(1, None, None)
    assert not found.setup_complete


def test_init_seeds_every_default_file_and_records_the_seed_time(tmp_path: Path) -> None:
    written = state.init(tmp_path / "new", now="2026-01-02T03:04:05Z")
    assert written == [
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
    ]
    recorded = json.loads((tmp_path / "new" / ".promptc" / "workspace-state.json").read_text())
    assert recorded == {"version": 1, "bootstrapSeededAt": "2026-01-02T03:04:05Z"}
    for name in written:
        text = (tmp_path / "new" / name).read_text(encoding="utf-8")
        assert text.strip() and not text.startswith("---")


def test_init_never_overwrites_and_skips_bootstrap_in_a_used_workspace(tmp_path: Path) -> None:
    write_files(tmp_path, {"SOUL.md": "my own soul"})
    written = state.init(tmp_path, now="t1")
    assert "SOUL.md" not in written and "BOOTSTRAP.md" not in written
    assert "AGENTS.md" in written
    assert (tmp_path / "SOUL.md").read_text() == "my own soul"
    assert not (tmp_path / ".promptc").exists()


def test_second_init_writes_nothing_and_keeps_the_first_seed_time(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    assert state.init(tmp_path, now="t2") == []
    assert state.read_state(tmp_path).bootstrap_seeded_at == "t1"


def test_seeded_heartbeat_file_means_no_heartbeat_calls(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    assert is_effectively_empty((tmp_path / "HEARTBEAT.md").read_text(encoding="utf-8"))


def _compile(root: Path, now: str) -> None:
    """One compile through the public API, which records setup completion."""
    from promptc import Request, compile_prompt

    compile_prompt(Request(workspace=root, now=now))


def test_deleting_bootstrap_completes_setup_on_the_next_compile(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    _compile(tmp_path, now="2026-01-02T00:00:00Z")
    assert not state.read_state(tmp_path).setup_complete
    (tmp_path / "BOOTSTRAP.md").unlink()
    _compile(tmp_path, now="2026-01-03T00:00:00Z")
    assert state.read_state(tmp_path) == state.WorkspaceState(1, "t1", "2026-01-03T00:00:00Z")
    _compile(tmp_path, now="2026-01-04T00:00:00Z")  # later compiles keep the first completion time
    assert state.read_state(tmp_path).setup_completed_at == "2026-01-03T00:00:00Z"


def test_compiling_never_writes_into_a_workspace_that_was_not_seeded(tmp_path: Path) -> None:
    _compile(tmp_path, now="2026-01-01T00:00:00Z")
    assert not (tmp_path / ".promptc").exists()


def test_init_after_completed_setup_does_not_bring_bootstrap_back(tmp_path: Path) -> None:
    state.init(tmp_path, now="t1")
    (tmp_path / "BOOTSTRAP.md").unlink()
    _compile(tmp_path, now="2026-01-02T00:00:00Z")
    (tmp_path / "AGENTS.md").unlink()
    assert state.init(tmp_path, now="t3") == ["AGENTS.md"]


def test_invalid_state_file_is_an_error_with_its_location(tmp_path: Path) -> None:
    write_files(tmp_path, {".promptc/workspace-state.json": '{\n  "version": 1,,\n}'})
    with pytest.raises(WorkspaceError) as caught:
        state.read_state(tmp_path)
    location = caught.value.location
    assert location.path.endswith("workspace-state.json")
    assert (location.line, location.column) == (2, 16)


def test_state_field_of_the_wrong_type_is_an_error(tmp_path: Path) -> None:
    write_files(tmp_path, {".promptc/workspace-state.json": '{"version": 1, "setupCompletedAt": 5}'})
    with pytest.raises(WorkspaceError, match="setupCompletedAt"):
        state.read_state(tmp_path)


def test_atomic_write_leaves_only_the_target(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "state.json"
    state.write_json_atomic(target, {"b": 1, "a": [1, 2]})
    assert json.loads(target.read_text()) == {"b": 1, "a": [1, 2]}
    assert [path.name for path in target.parent.iterdir()] == ["state.json"]


# --------------------------------------------------------------------------- unsafe state files


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "outside"])
def test_a_state_file_that_is_not_a_small_regular_file_inside_is_refused(tmp_path: Path, kind: str) -> None:
    import threading

    root = tmp_path / "ws"
    (root / ".promptc").mkdir(parents=True)
    target = root / ".promptc" / "workspace-state.json"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    else:
        (tmp_path / "elsewhere.json").write_text('{"version": 1, "setupCompletedAt": "x"}')
        target.symlink_to(tmp_path / "elsewhere.json")
    found: list[BaseException] = []
    reader = threading.Thread(target=lambda: _catch(lambda: state.read_state(root), found), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "reading the state file blocked"
    assert len(found) == 1 and isinstance(found[0], WorkspaceError)
    expected = "not a regular file" if kind == "fifo" else "outside its root"  # /dev/zero is outside too
    assert expected in str(found[0]) and str(found[0]).startswith(str(target))


def test_a_state_file_linked_inside_the_workspace_is_read(tmp_path: Path) -> None:
    root = write_files(tmp_path / "ws", {"notes/state.json": '{"version": 1, "bootstrapSeededAt": "t0"}'})
    (root / ".promptc").mkdir()
    (root / ".promptc" / "workspace-state.json").symlink_to("../notes/state.json")
    assert state.read_state(root).bootstrap_seeded_at == "t0"


def _catch(action, found: list[BaseException]) -> None:
    try:
        action()
    except BaseException as error:
        found.append(error)


@pytest.mark.parametrize("link", [".promptc", ".promptc/workspace-state.json"])
def test_the_state_file_is_never_written_through_a_symlink_out_of_the_workspace(tmp_path: Path, link: str) -> None:
    outside, workspace = tmp_path / "outside", tmp_path / "ws"
    outside.mkdir()
    workspace.mkdir()
    if link == ".promptc":
        (workspace / ".promptc").symlink_to(outside, target_is_directory=True)
    else:
        (workspace / ".promptc").mkdir()
        (workspace / link).symlink_to(outside / "workspace-state.json")
    for write in (
        lambda: state.init(workspace, now="t1"),
        lambda: state.write_state(workspace, state.WorkspaceState(1, "t0", "t1")),
    ):
        with pytest.raises(WorkspaceError) as info:
            write()
        assert re.search(r"outside its root|passes through a symlink", str(info.value)), info.value
    assert list(outside.iterdir()) == []


def test_init_leaves_a_linked_bootstrap_file_alone_and_writes_nothing_through_it(tmp_path: Path) -> None:
    outside, workspace = tmp_path / "outside", tmp_path / "ws"
    outside.mkdir()
    workspace.mkdir()
    (workspace / "AGENTS.md").symlink_to(outside / "AGENTS.md")  # dangling: creating it would write outside
    written = state.init(workspace, now="t1")
    assert "AGENTS.md" not in written and "SOUL.md" in written
    assert list(outside.iterdir()) == []
