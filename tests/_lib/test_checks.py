"""What the Python API checks where a value is made (_lib/checks.py): every `Request` field,
every `Compiler` argument and a compile's own arguments give one PromptcError line naming the
field and what it got, never a TypeError or a value accepted that a compile cannot use."""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from promptc import Compiler, PromptcError, Request, RunFacts, compile_prompt
from promptc._lib.errors import RunFactsError
from promptc.model.request import FIXED_NAMES

BAD_VALUES: list[tuple[str, Any, str]] = [
    ("workspace", 5, "expected a path (str or os.PathLike), got 5"),
    ("workspace", "\0x", "a path cannot hold a NUL character, got '\\x00x'"),
    ("workspace", b"ws", "expected a path (str or os.PathLike), got b'ws'"),
    ("workspace", "", "expected a path (str or os.PathLike), got ''"),
    ("config_paths", 5, "expected a sequence of paths, got 5"),
    ("config_paths", "c.yaml", "expected a sequence of paths, got 'c.yaml'"),
    ("config_paths", [5], "[0]: expected a path (str or os.PathLike), got 5"),
    ("config_paths", ["a.yaml", Path("b\0.yaml")], "[1]: a path cannot hold a NUL character"),
    ("config_paths", {"a.yaml"}, "expected a sequence of paths, got a set"),
    ("template_dirs", [5], "[0]: expected a path (str or os.PathLike), got 5"),
    ("contribution_paths", [5], "[0]: expected a path (str or os.PathLike), got 5"),
    ("session_state", 5, "expected a path (str or os.PathLike), got 5"),
    ("overrides", [5], "[0]: expected a string, got int"),
    ("overrides", "a=1", "expected a sequence of KEY=VALUE strings, got 'a=1'"),
    ("config_layers", [5], "[0]: expected a config layer (made by promptc.inputs.layers.layer_from), got 5"),
    ("env", 5, "expected a mapping of names to values (str to str), got 5"),
    ("env", {"PATH": 5}, "expected names and values of text, got 'PATH': 5"),
    ("env", {"PATH": "/bin\0/x"}, "'PATH': an environment variable cannot hold a NUL character"),
    ("now", "x", "expected an ISO 8601 UTC time like 2026-01-31T09:30:00Z, got 'x'"),
    ("now", math.nan, "expected an ISO 8601 UTC time like 2026-01-31T09:30:00Z, got nan"),
    ("now", "2026-01-31T09:30:00+00:00", "expected an ISO 8601 UTC time"),
    ("now", "2026-02-30T09:30:00Z", "expected an ISO 8601 UTC time"),
    ("now", "2026-01-31 09:30:00Z", "expected an ISO 8601 UTC time"),
    ("plugins", "yes", "expected true or false, got 'yes'"),
    ("plugins", 1, "expected true or false, got 1"),
    ("platform", 5, "expected a string, got int"),
    ("platform", "", "must not be blank"),
    ("platform", "linux\nx", "must be one line"),
]
"""(field, value, what the error says after `Request.<field>`)."""


@pytest.mark.parametrize("field, value, message", BAD_VALUES, ids=[f"{f}={v!r}"[:40] for f, v, _ in BAD_VALUES])
def test_a_request_refuses_a_bad_field_with_one_promptc_error_line(field, value, message):
    error = _refusal(Request, field, value)
    assert error.startswith(_expected("Request", field, message)), error
    assert "\n" not in error


def _refusal(make: Any, field: str, value: Any) -> str:
    """The message of the PromptcError that `make(field=value)` raises."""
    with pytest.raises(PromptcError) as info:
        make(**{field: value})
    return str(info.value)


def _expected(owner: str, field: str, message: str) -> str:
    return f"{owner}.{field}{'' if message.startswith('[') else ': '}{message}"


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Request)])
def test_every_request_field_is_checked(field):
    with pytest.raises(PromptcError, match=rf"^Request\.{field}\b"):
        Request(**{field: object()})


FIXED = [(f, v, m) for f, v, m in BAD_VALUES if f not in ("session_state", "now")]


@pytest.mark.parametrize("field, value, message", FIXED, ids=[f"{f}={v!r}"[:40] for f, v, _ in FIXED])
def test_a_compiler_refuses_a_bad_argument_as_a_request_does(field, value, message):
    error = _refusal(Compiler, field, value)
    assert error.startswith(_expected("Compiler", field, message)), error


@pytest.mark.parametrize("argument", [*FIXED_NAMES, "check_files", "notify", "inputs"])
def test_every_compiler_argument_is_checked(argument):
    with pytest.raises(PromptcError, match=rf"^Compiler\.{argument}\b"):
        Compiler(**{argument: object()})


def test_a_compiler_refuses_an_unknown_argument_with_a_suggestion():
    with pytest.raises(PromptcError, match=r"^Compiler: unknown argument 'workspaces' \(did you mean 'workspace'\?\)"):
        Compiler(workspaces="ws")
    with pytest.raises(PromptcError, match=r"^Compiler: give the fixed inputs as one FixedInputs or as keywords"):
        Compiler(Request(), workspace="ws")


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"run": {"channel": "telegram"}}, "Compiler.compile.run: expected RunFacts, got dict"),
        ({"session_state": 5}, "Compiler.compile.session_state: expected a path (str or os.PathLike), got 5"),
        ({"now": "t1"}, "Compiler.compile.now: expected an ISO 8601 UTC time like 2026-01-31T09:30:00Z, got 't1'"),
    ],
)
def test_a_compile_checks_its_own_arguments(tmp_path, arguments, message):
    compiler = Compiler(workspace=tmp_path, env={})
    for compile_turn in (compiler.compile, compiler.compile_pending):
        with pytest.raises(PromptcError) as info:
            compile_turn(**arguments)
        assert str(info.value) == message


def test_a_request_stores_what_it_accepted_in_the_documented_types(tmp_path):
    env = {"PATH": "/usr/bin"}
    request = Request(
        workspace=str(tmp_path),
        config_paths=["a.yaml", tmp_path / "b.yaml"],
        overrides=["x=1"],
        template_dirs=(str(tmp_path),),
        session_state=str(tmp_path / "s.json"),
        env=env,
        now="2026-01-31T09:30:00Z",
        platform="linux",
    )
    assert request.workspace == tmp_path and request.session_state == tmp_path / "s.json"
    assert request.config_paths == (Path("a.yaml"), tmp_path / "b.yaml") and request.template_dirs == (tmp_path,)
    assert request.overrides == ("x=1",) and request.env == env
    env["PATH"] = "/elsewhere"  # changing the caller's mapping afterwards changes nothing
    assert request.env == {"PATH": "/usr/bin"}


def test_now_is_written_to_the_state_file_as_given(run_cli, tmp_path):
    ws = tmp_path / "ws"
    assert run_cli("init", ws)[0] == 0
    (ws / "BOOTSTRAP.md").unlink()
    compile_prompt(Request(workspace=ws, env={}, now="2026-01-31T09:30:00Z"))
    state = json.loads((ws / ".promptc" / "workspace-state.json").read_text(encoding="utf-8"))
    assert state["setupCompletedAt"] == "2026-01-31T09:30:00Z"


def test_an_os_pathlike_is_taken_as_its_path(tmp_path):
    class Named(os.PathLike):
        def __fspath__(self) -> str:
            return str(tmp_path)

    assert Request(workspace=Named()).workspace == tmp_path
    assert Compiler(workspace=Named(), env={}).compile(RunFacts()).text


def test_a_request_refuses_what_it_cannot_use(tmp_path):
    assert Request(workspace=str(tmp_path)).workspace == tmp_path  # strings become Paths
    with pytest.raises(RunFactsError, match="Request.run: expected RunFacts, got dict"):
        Request(run={"channel": "telegram"})  # type: ignore[arg-type]
    with pytest.raises(PromptcError, match="Request.overrides: expected a sequence of KEY=VALUE strings, got 'prompt"):
        Request(overrides="prompt.cacheBoundaryMarker=xyz")  # type: ignore[arg-type]
