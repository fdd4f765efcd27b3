"""User variables as a template reads them: `vars.<name>`, split by side like every variable.

Each declared variable gets its value from, highest first: `--var NAME=VALUE`, the run facts'
`vars`, the agent's `promptValues`, `prompt.values`, the declaration's `default`. Stable sections
see a `vars` holding only the stable variables, so reading a volatile one above the boundary
fails naming the variable, as reading `channel` there does.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._lib.errors import Location, RunFactsError, TemplateError, did_you_mean
from .._lib.frozen import EMPTY, identity
from ..inputs.variables import undeclared_message
from ..model.config import ResolvedConfig, UserVariable
from ..model.runfacts import RunFacts


class UserVariableError(Exception):
    """A template read `vars.<name>` for a name it may not read (the renderer adds where)."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(problem)
        self.name = name
        self.problem = problem


class UserVars(Mapping[str, Any]):
    """`vars` in one side's context: the values it may read, in declaration order. A name that
    is not declared, or is volatile above the boundary, raises UserVariableError when read."""

    def __init__(self, values: Mapping[str, Any], sides: Mapping[str, str], side: str) -> None:
        self._values = dict(values)
        self._sides = dict(sides)
        self._side = side

    def __getitem__(self, name: str) -> Any:
        if name in self._values:
            return self._values[name]
        if self._sides.get(name) == "volatile":
            raise UserVariableError(
                name,
                f"reads volatile user variable 'vars.{name}' (move the section below the boundary, or declare the variable side: stable)",
            )
        hint = did_you_mean(str(name), self._sides, prefix="vars.")
        raise UserVariableError(name, f"undefined user variable 'vars.{name}': not declared in prompt.variables{hint}")

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def get(self, name: str, default: Any = None) -> Any:
        """The value, or `default` for a name nobody declared; a volatile variable read above
        the boundary fails as `vars.<name>` does (a default there would hide the mistake)."""
        if name not in self._values and self._sides.get(name) == "volatile":
            return self[name]
        return self._values.get(name, default)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UserVars) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return repr(self._values)  # `{{ vars }}` prints the values, never an object address

    def _key(self) -> tuple:
        return (
            self._side,
            tuple((name, identity(value)) for name, value in self._values.items()),
            tuple(self._sides.items()),
        )


def resolve(cfg: ResolvedConfig, run: RunFacts) -> tuple[UserVariable, ...]:
    """Every declared variable with its value and where that came from; an undeclared name in
    the run facts, or a declared one with no value anywhere, is an error."""
    names = [decl.name for decl in cfg.variables]
    stray = [name for name in run.vars if name not in names]
    if stray:
        raise RunFactsError.gathered(
            [RunFactsError(f"vars.{name}: {undeclared_message(name, names)}", _run_place(run, name)) for name in stray]
        )
    configured = {value.name: value for value in cfg.values}
    found, missing = [], []
    for decl in cfg.variables:
        if decl.name in run.vars:
            value, origin = run.vars[decl.name], run.var_origins.get(decl.name, "run facts")
        elif decl.name in configured:
            value, origin = configured[decl.name].value, configured[decl.name].origin
        elif decl.has_default:
            value, origin = (
                decl.default,
                f"the default in prompt.variables.{decl.name}" + (f" ({decl.where})" if decl.where else ""),
            )
        else:
            missing.append(TemplateError(_no_value(decl.name), decl.where))
            continue
        found.append(UserVariable(decl.name, decl.side, value, origin, decl.description))
    if missing:
        raise TemplateError.gathered(missing)
    return tuple(found)


def _run_place(run: RunFacts, name: str) -> Location | None:
    origin = run.var_origins.get(name)
    return Location(origin) if origin else None


def _no_value(name: str) -> str:
    return (
        f"prompt.variables.{name}: declared without a default and given no value"
        f" (set prompt.values.{name}, vars.{name} in the run facts, or --var {name}=...)"
    )


def template_vars(user: Sequence[UserVariable], side: str) -> UserVars:
    """`vars` for one side's context: stable sections see only the stable variables."""
    sides = {variable.name: variable.side for variable in user}
    shown = {v.name: v.value for v in user if side == "volatile" or v.side == "stable"}
    return UserVars(shown, sides, side) if user else UserVars(EMPTY, {}, side)


def declared(mapping: object) -> tuple[str, ...]:
    """Every user variable declared, on either side, of a context's `vars` (none for anything else)."""
    return tuple(mapping._sides) if isinstance(mapping, UserVars) else ()
