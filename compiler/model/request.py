"""What one compile is asked to do: the fixed inputs (everything that is not per turn, what a
Compiler is built from and keyed on) and a Request (those plus one turn). Each input is one field
declaration with its check and meaning; a Compiler, its sources and `compile_prompt`'s cache key
all read the fields from here."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lib import checks
from .._lib.errors import RunFactsError, UsageError, did_you_mean
from .config import Layer
from .runfacts import RunFacts


@dataclass(frozen=True, slots=True)
class Input:
    """How one input is checked and keyed."""

    doc: str
    """What the input is."""
    check: checks.Check
    """Turns a value given through the API into the one stored (lists to tuples, strings to
    Paths), or raises ValueError saying what is wrong."""
    key: Callable[[Any], Hashable] | None = None
    """How the value enters a cache key (None: as it is)."""


def _input(default: Any, check: checks.Check, doc: str, key: Callable[[Any], Hashable] | None = None) -> Any:
    return dataclasses.field(default=default, metadata={"input": Input(doc, check, key)})


def _layer_ids(layers: tuple[Layer, ...]) -> Hashable:
    return tuple(map(id, layers))  # a Compiler kept by this key holds the layers, so the ids stay theirs


def _environment_key(env: Mapping[str, str] | None) -> Hashable:
    return None if env is None else frozenset(env.items())


_PATHS = checks.sequence_of(checks.path, "paths")
_LAYER = checks.instance_of(Layer, "a config layer (made by promptc.inputs.layers.layer_from)")


@dataclass(frozen=True, slots=True, kw_only=True)
class FixedInputs:
    """Everything a compile reads that does not change from turn to turn."""

    config_paths: tuple[Path, ...] = _input((), _PATHS, "`--config` files, lowest precedence first.")
    overrides: tuple[str, ...] = _input(
        (), checks.sequence_of(checks.text, "KEY=VALUE strings"), "`--set KEY=VALUE` overrides, applied last."
    )
    config_layers: tuple[Layer, ...] = _input(
        (),
        checks.sequence_of(_LAYER, "config layers"),
        "Config layers built in memory (`promptc.inputs.layers.layer_from`), applied after `config_paths`.",
        key=_layer_ids,
    )
    workspace: Path | None = _input(
        None, checks.optional(checks.path), "Where to read the workspace; none reads `agents.defaults.workspace`."
    )
    template_dirs: tuple[Path, ...] = _input(
        (), _PATHS, "`--templates` dirs, searched before `prompt.templateDirs` and the built-ins."
    )
    contribution_paths: tuple[Path, ...] = _input((), _PATHS, "`--contributions` files.")
    env: Mapping[str, str] | None = _input(
        None,
        checks.optional(checks.environment),
        "Environment for skill `requires.env` and PATH checks; none means os.environ (read live).",
        key=_environment_key,
    )
    plugins: bool = _input(
        True, checks.flag, "Use installed `promptc.providers` / `promptc.hooks` entry points (snapshots turn this off)."
    )
    platform: str | None = _input(
        None, checks.optional(checks.name_text), "Operating system for skill `metadata.os` checks; none: sys.platform."
    )

    def __post_init__(self) -> None:
        _check_inputs(self, type(self).__name__)

    def fixed(self) -> FixedInputs:
        """The fixed inputs alone (a Request's, without its turn)."""
        if type(self) is FixedInputs:
            return self
        return FixedInputs(**{name: getattr(self, name) for name in FIXED_NAMES})

    def key(self) -> Hashable:
        """The fixed inputs as a cache key (relative paths mean the same only in the same directory:
        a caller keying across directories adds the working directory)."""
        return tuple((_KEYS[name] or _same)(getattr(self, name)) for name in FIXED_NAMES)


@dataclass(frozen=True, slots=True, kw_only=True)
class Request(FixedInputs):
    """Everything one compile needs: the fixed inputs and this turn."""

    run: RunFacts = dataclasses.field(default_factory=RunFacts)
    """This turn's facts."""
    session_state: Path | None = _input(
        None, checks.optional(checks.path), "Session state file for the `once` truncation-warning mode."
    )
    now: str | None = _input(
        None,
        checks.optional(checks.timestamp),
        "Timestamp for the workspace state file, in UTC as promptc writes it (`2026-01-31T09:30:00Z`); none: "
        "the current time. Never rendered.",
    )

    def __post_init__(self) -> None:
        if not isinstance(self.run, RunFacts):
            raise RunFactsError(f"Request.run: expected RunFacts, got {type(self.run).__name__}")
        _check_inputs(self, "Request")


def _same(value: Any) -> Hashable:
    return value


def _declared(cls: type) -> dict[str, Input]:
    return {f.name: f.metadata["input"] for f in dataclasses.fields(cls) if "input" in f.metadata}


FIXED: dict[str, Input] = _declared(FixedInputs)
"""Every fixed input's declaration, in field order."""
FIXED_NAMES: tuple[str, ...] = tuple(FIXED)
_KEYS = {name: declaration.key for name, declaration in FIXED.items()}
_CHECKS: dict[type, dict[str, Input]] = {FixedInputs: FIXED, Request: _declared(Request)}


def fixed_inputs(owner: str, given: Mapping[str, Any]) -> FixedInputs:
    """FixedInputs from keyword arguments given to `owner`; an unknown name or a bad value is one
    UsageError naming `owner.field`."""
    for name in given:
        if name not in FIXED:
            raise UsageError(f"{owner}: unknown argument {name!r}{did_you_mean(name, FIXED_NAMES)}")
    try:
        return FixedInputs(**given)
    except UsageError as exc:
        raise UsageError(exc.message.replace("FixedInputs.", f"{owner}.", 1)) from exc


def _check_inputs(instance: FixedInputs, owner: str) -> None:
    """Each input checked by its declaration and the checked value stored; the first failure is one
    UsageError naming `owner.field` and what it got."""
    declared = _CHECKS.get(type(instance))
    if declared is None:
        declared = _CHECKS[type(instance)] = _declared(type(instance))
    for name, declaration in declared.items():
        value = getattr(instance, name)
        try:
            checked = declaration.check(value)
        except ValueError as exc:
            raise UsageError(f"{owner}.{name}{'' if str(exc).startswith('[') else ': '}{exc}") from exc
        if checked is not value:
            object.__setattr__(instance, name, checked)
