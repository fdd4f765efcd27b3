"""`@frozen`: frozen dataclasses whose methods are shared closures, not generated source.

Why it exists: on Python 3.11 `@dataclass(frozen=True)` writes the source of `__init__`,
`__repr__`, `__eq__`, `__hash__`, `__setattr__` and `__delattr__` for every class and `exec`s
it, about 0.70 ms a class on the development machine; the bookkeeping alone
(`dataclass(cls, init=False, repr=False, eq=False)`: the Fields, defaults, `__match_args__`)
costs about 0.045 ms. `promptc render` creates some 66 of these classes before it does any
work, so compiling them was ~45 ms of a ~185 ms cold render (issue 12: a cold render within 2x
bare `import jinja2, yaml`). Do not turn it back into `@dataclass(frozen=True)` without
re-running `python bench/run.py`'s cold rows.

A decorated class is a real dataclass (`is_dataclass`, `fields`, `replace`, `asdict`, field
metadata, pickling all work) and behaves as `@dataclass(frozen=True)` would: the same argument
binding and TypeError messages, repr, equality, hash, FrozenInstanceError, `__signature__`.
Its `__dataclass_params__` records the bookkeeping call (`frozen=False`), so the stdlib refuses
to mix it with stdlib frozen dataclasses in one class hierarchy (tests/test_records.py compares
it with the stdlib).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T")


class _Factory:
    """Stands for "call this field's default_factory" until __init__ knows the field was not given."""

    def __repr__(self) -> str:
        return "<factory>"  # what the stdlib's __init__ signature shows for such a default


FACTORY = _Factory()


@overload
def frozen(cls: type[T], /) -> type[T]: ...


@overload
def frozen(*, kw_only: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[Any] | None = None, /, *, kw_only: bool = False) -> Any:
    """`@dataclass(frozen=True)` (or `(frozen=True, kw_only=True)`) without compiling source."""
    if cls is None:
        return lambda cls: _build(cls, kw_only)
    return _build(cls, kw_only)


def _build(cls: type[Any], kw_only: bool) -> type[Any]:
    documented = bool(cls.__doc__)
    class_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    if not documented:
        # The stdlib would document the class by the signature of object.__init__ (it has no
        # __init__ yet): parsing a builtin's text signature compiles tokenize's pattern, ~3.5 ms
        # of a cold start. The real one is written below, once __init__ exists.
        cls.__doc__ = cls.__name__
    dataclasses.dataclass(cls, init=False, repr=False, eq=False, kw_only=kw_only)
    fields = dataclasses.fields(cls)
    if not _attach(cls, "__init__", _init(cls)):
        cls.__signature__ = _Signature()
    _attach(cls, "__repr__", _repr([f.name for f in fields if f.repr]))
    _attach(cls, "__eq__", _eq([f.name for f in fields if f.compare]))
    for method in _frozen_attributes(cls, frozenset(f.name for f in fields)):
        if _attach(cls, method.__name__, method):
            raise TypeError(f"Cannot overwrite attribute {method.__name__} in class {cls.__name__}")
    if not explicit_hash:
        setattr(cls, "__hash__", _hash([f.name for f in fields if (f.compare if f.hash is None else f.hash)]))
    if not documented:  # the stdlib documents an undocumented class by its signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    return cls


def _attach(cls: type[Any], name: str, method: Any) -> bool:
    """Set `method` unless the class defines `name` itself (True then), as the stdlib does."""
    if name in cls.__dict__:
        return True
    method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    setattr(cls, name, method)
    return False


def _init_fields(cls: type[Any]) -> list[dataclasses.Field[Any]]:
    """Fields and InitVar pseudo-fields in declaration order (ClassVars left out). `fields()`
    leaves InitVars out, so this reads the stdlib's own (private, stable since 3.7) markers."""
    kept = (dataclasses._FIELD, dataclasses._FIELD_INITVAR)  # type: ignore[attr-defined]
    return [f for f in cls.__dataclass_fields__.values() if f._field_type in kept]


def _init(cls: type[Any]) -> Callable[..., None]:
    spec = _Parameters(cls)
    positional, names, template = spec.positional, spec.names, spec.template
    # The fields a call may leave to __init__ (required: an error; a factory: a call); a call
    # by keyword that names them all skips both loops, the common case of a hot constructor.
    required, factories, unfilled = spec.required, spec.factories, spec.required_or_factory
    initvars, post_init = spec.initvars, hasattr(cls, "__post_init__")
    # Every field given by position, and nothing else to fill in: the common small record
    # (`Location(path, line, column)`) stores the arguments as they come.
    every = len(positional) if tuple(template) == positional and not initvars else -1

    def __init__(self: Any, /, *args: Any, **kwargs: Any) -> None:  # `self=` is a keyword like any other
        if len(args) == every and not kwargs:
            self.__dict__.update(zip(positional, args))
            if post_init:
                self.__post_init__()
            return
        values = {**template, **kwargs}  # field order: a key given stays where the template has it
        if args:
            if len(args) > len(positional) or (kwargs and not kwargs.keys().isdisjoint(positional[: len(args)])):
                raise spec.binding_error(args, kwargs)
            values.update(zip(positional, args))
        if not names.issuperset(kwargs):
            raise spec.binding_error(args, kwargs)
        if not unfilled.issubset(kwargs):
            for name in required:
                if values[name] is MISSING:
                    raise spec.binding_error(args, kwargs)
            for name, factory in factories:
                if values[name] is FACTORY:
                    values[name] = factory()
        extra = [values.pop(name) for name in initvars] if initvars else ()
        self.__dict__.update(values)  # into the instance dict: the frozen __setattr__ refuses
        if post_init:
            self.__post_init__(*extra)

    return __init__


class _Parameters:
    """What `__init__` takes, and CPython's TypeError for a call that does not fit."""

    def __init__(self, cls: type[Any]) -> None:
        fields = _init_fields(cls)
        taken = [f for f in fields if f.init]
        self.qualname = f"{cls.__qualname__}.__init__"
        self.self_name = "__dataclass_self__" if "self" in cls.__dataclass_fields__ else "self"
        self.positional = tuple(f.name for f in taken if not f.kw_only)
        self.keyword_only = tuple(f.name for f in taken if f.kw_only)
        self.names = frozenset(f.name for f in taken)
        self.required = tuple(f.name for f in taken if _default(f) is MISSING)
        self.defaulted = len([f for f in taken if not f.kw_only and _default(f) is not MISSING])
        # What __init__ stores, in field order; a plain default of a field that __init__ does
        # not take stays a class attribute, as in the stdlib.
        self.template = {f.name: _default(f) for f in fields if f.init or f.default_factory is not MISSING}
        self.factories = tuple((f.name, f.default_factory) for f in fields if f.default_factory is not MISSING)
        self.required_or_factory = frozenset(self.required) | {name for name, _ in self.factories}
        self.initvars = tuple(f.name for f in fields if f._field_type is dataclasses._FIELD_INITVAR)  # type: ignore[attr-defined]
        _check_default_order([f for f in taken if not f.kw_only])

    def binding_error(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
        """The TypeError CPython raises for this call of the stdlib's generated `__init__`, in
        CPython's order: a bad keyword, too many positional arguments, missing ones."""
        parameters = (self.self_name, *self.positional)
        for key in kwargs:
            if key not in parameters and key not in self.keyword_only:
                return TypeError(f"{self.qualname}() got an unexpected keyword argument '{key}'")
            if key in parameters[: len(args) + 1]:
                return TypeError(f"{self.qualname}() got multiple values for argument '{key}'")
        if len(args) > len(self.positional):
            return self._too_many(len(args) + 1, len([k for k in kwargs if k in self.keyword_only]))
        given = set(self.positional[: len(args)]) | kwargs.keys()
        for kind, names in (("positional", self.positional), ("keyword-only", self.keyword_only)):
            missing = [repr(name) for name in names if name in self.required and name not in given]
            if missing:
                return TypeError(f"{self.qualname}() missing {len(missing)} required {kind} argument"
                                 f"{'' if len(missing) == 1 else 's'}: {_names(missing)}")  # fmt: skip
        raise AssertionError("binding_error called for a call that binds")

    def _too_many(self, given: int, keyword_only: int) -> TypeError:
        """CPython's wording, for a call that passed `given` (self included, so at least 2)."""
        count = len(self.positional) + 1
        allowed = f"from {count - self.defaulted} to {count}" if self.defaulted else f"{count}"
        plural = "s" if self.defaulted or count != 1 else ""
        extra = ""
        if keyword_only:
            extra = f" positional arguments (and {keyword_only} keyword-only argument{'s' if keyword_only != 1 else ''})"
        return TypeError(f"{self.qualname}() takes {allowed} positional argument{plural} but {given}{extra} were given")


def _default(field: dataclasses.Field[Any]) -> Any:
    return FACTORY if field.default_factory is not MISSING else field.default


def _names(quoted: list[str]) -> str:
    """CPython's list of missing argument names: `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`."""
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _check_default_order(positional: list[dataclasses.Field[Any]]) -> None:
    seen_default = False
    for field in positional:
        if _default(field) is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument {field.name!r} follows default argument")


def _tuple_of(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The named attributes as a tuple, always (attrgetter of one name gives the bare value)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr(names: list[str]) -> Callable[[Any], str]:
    values, shape = _tuple_of(names), "(" + ", ".join(f"{name}={{!r}}" for name in names) + ")"

    @recursive_repr()
    def __repr__(self: Any) -> str:
        return self.__class__.__qualname__ + shape.format(*values(self))

    return __repr__


def _eq(names: list[str]) -> Callable[[Any, Any], Any]:
    values = _tuple_of(names)

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(names: list[str]) -> Callable[[Any], int]:
    values = _tuple_of(names)

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen_attributes(cls: type[Any], fields: frozenset[str]) -> tuple[Callable[..., None], ...]:
    """`__setattr__` and `__delattr__` refusing, as a frozen dataclass's do: any attribute of the
    class itself, a field's of a subclass."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in fields:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in fields:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


class _Signature:
    """`inspect.signature(cls)` as the stdlib's generated `__init__` gives it, built when asked
    for (`help()`, `inspect`): building one for every class would cost much of what `frozen` saves."""

    def __get__(self, instance: Any, owner: type[Any]) -> inspect.Signature:
        parameters = [_parameter(f) for f in _init_fields(owner) if f.init]
        parameters.sort(key=lambda p: p.kind)  # kw_only fields come after the positional ones
        return inspect.Signature(parameters, return_annotation=None)


def _parameter(field: dataclasses.Field[Any]) -> inspect.Parameter:
    kind = inspect.Parameter.KEYWORD_ONLY if field.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
    default = _default(field)
    return inspect.Parameter(field.name, kind, default=inspect.Parameter.empty if default is MISSING else default,
                             annotation=field.type)  # fmt: skip
