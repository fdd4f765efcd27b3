"""`@frozen` behaves as `@dataclass(frozen=True)` does: every comparison is against the stdlib,
built from the same field layout on the fly."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import os
import pickle
import subprocess
import sys
import types
from dataclasses import FrozenInstanceError, InitVar, field
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from promptc.model import RunFacts, Tool
from promptc.records import frozen
from promptc.transcript.model import TextBlock

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "compiler"

# Both kinds of class are called `Record`, each in a module of its own (registered, so pickle finds
# them): reprs and TypeError messages, which name the class, can be compared as they are.
MODULES = {kind: types.ModuleType(f"_records_test_{kind}") for kind in ("stdlib", "frozen")}
sys.modules.update({module.__name__: module for module in MODULES.values()})

NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "self"]
VALUES = st.one_of(st.integers(-3, 3), st.text("ab", max_size=2), st.tuples(st.integers(0, 2)), st.none())
FACTORIES: list[Callable[[], Any]] = [tuple, str, int, lambda: ("made",)]


@st.composite
def layouts(draw: st.DrawFn) -> dict[str, Any]:
    """A class body: fields with any mix of defaults, factories, kw_only, init, repr, compare, hash."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=6))
    specs = [draw(_field_spec(name)) for name in names]
    return {"fields": specs, "kw_only": draw(st.booleans()), "post_init": draw(st.booleans()),
            "initvar": draw(st.booleans()), "doc": draw(st.booleans())}  # fmt: skip


@st.composite
def _field_spec(draw: st.DrawFn, name: str) -> dict[str, Any]:
    default = draw(st.sampled_from(["none", "value", "factory"]))
    spec: dict[str, Any] = {"name": name, "default": default}
    if default == "value":
        spec["value"] = draw(VALUES)
    if default == "factory":
        spec["factory"] = draw(st.sampled_from(FACTORIES))
    spec["options"] = draw(st.fixed_dictionaries({}, optional={
        "kw_only": st.booleans(), "init": st.booleans(), "repr": st.booleans(), "compare": st.booleans(),
        "hash": st.sampled_from([None, True, False]), "metadata": st.just({"json": name})}))  # fmt: skip
    return spec


def build(layout: dict[str, Any], kind: str) -> type:
    """The layout as a class, decorated by the stdlib (`stdlib`) or by `frozen`."""
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__module__": MODULES[kind].__name__, "__qualname__": "Record"}
    for spec in layout["fields"]:
        annotations[spec["name"]] = int
        options = dict(spec["options"])
        if spec["default"] == "value":
            options["default"] = spec["value"]
        if spec["default"] == "factory":
            options["default_factory"] = spec["factory"]
        namespace[spec["name"]] = field(**options)
    if layout["initvar"]:
        annotations["extra"] = InitVar[int]
        namespace["extra"] = 5
    if layout["post_init"]:
        namespace["__post_init__"] = _post_init
    if layout["doc"]:
        namespace["__doc__"] = "A record."
    namespace["__annotations__"] = annotations
    cls = type("Record", (), namespace)
    decorated = dataclasses.dataclass(frozen=True, kw_only=layout["kw_only"]) if kind == "stdlib" else frozen(kw_only=layout["kw_only"])
    made = decorated(cls)
    MODULES[kind].Record = made  # type: ignore[attr-defined]
    return made


def _post_init(self: Any, *extra: Any) -> None:
    object.__setattr__(self, "seen", (extra, sorted(vars(self))))


def outcome(action: Callable[[], Any]) -> tuple[str, Any]:
    """What an action gives: its value, or the type and text of the exception it raised."""
    try:
        return "value", action()
    except Exception as error:  # noqa: BLE001 - the exception is the result compared
        return "raised", (type(error).__name__, str(error))


def state(record: Any) -> list[tuple[str, Any]]:
    """The instance dict in its order (what pickle and vars() see)."""
    return list(vars(record).items())


calls = st.tuples(st.lists(VALUES, max_size=7), st.dictionaries(st.sampled_from([*NAMES, "extra", "bogus"]), VALUES, max_size=5))


def _layout(*fields: tuple[str, str, dict[str, Any]], kw_only: bool = False) -> dict[str, Any]:
    specs = [{"name": name, "default": default, "value": 0, "factory": tuple, "options": options} for name, default, options in fields]
    return {"fields": specs, "kw_only": kw_only, "post_init": False, "initvar": False, "doc": True}


REQUIRED = ("alpha", "none", {})
KW_ONLY = ("beta", "none", {"kw_only": True})
DEFAULTED = ("gamma", "value", {})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), calls)
@example(_layout(REQUIRED), ((), {"self": 1}))  # `self` given by keyword: "multiple values"
@example(_layout(REQUIRED, KW_ONLY), ((1, 2), {"beta": 3}))  # too many, with keyword-only ones given
@example(_layout(REQUIRED, DEFAULTED, KW_ONLY), ((1, 2, 3, 4), {}))  # "from 2 to 3"
@example(_layout(KW_ONLY, kw_only=True), ((1,), {}))  # "takes 1 positional argument"
@example(_layout(REQUIRED, ("beta", "none", {}), ("delta", "none", {}), KW_ONLY), ((), {}))  # "'a', 'b', and 'c'"
@example(_layout(REQUIRED, ("delta", "factory", {"init": False})), ((1,), {"delta": 2}))  # not an __init__ argument
def test_a_layout_defines_and_binds_as_the_stdlib_does(layout, call):
    made = {kind: outcome(lambda kind=kind: build(layout, kind)) for kind in MODULES}
    assert made["frozen"][0] == made["stdlib"][0]
    if made["stdlib"][0] == "raised":  # e.g. a required positional field after a defaulted one
        assert made["frozen"] == made["stdlib"]
        return
    classes = {kind: result[1] for kind, result in made.items()}
    args, kwargs = call
    built = {kind: outcome(lambda cls=cls: cls(*args, **kwargs)) for kind, cls in classes.items()}
    assert built["frozen"][0] == built["stdlib"][0], built
    if built["stdlib"][0] == "raised":
        assert built["frozen"] == built["stdlib"]
        return
    ours, theirs = built["frozen"][1], built["stdlib"][1]
    assert state(ours) == state(theirs)
    assert outcome(lambda: repr(ours)) == outcome(lambda: repr(theirs))
    assert outcome(lambda: hash(ours)) == outcome(lambda: hash(theirs))
    assert outcome(lambda: dataclasses.asdict(ours)) == outcome(lambda: dataclasses.asdict(theirs))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_a_class_introspects_as_the_stdlib_one(layout):
    try:
        theirs = build(layout, "stdlib")
    except TypeError:
        return  # refused alike: the test above compares that
    ours = build(layout, "frozen")
    assert dataclasses.is_dataclass(ours)
    described = [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash, f.kw_only, dict(f.metadata))
                 for f in dataclasses.fields(ours)]  # fmt: skip
    assert described == [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare, f.hash, f.kw_only, dict(f.metadata))
                         for f in dataclasses.fields(theirs)]  # fmt: skip
    assert ours.__match_args__ == theirs.__match_args__
    assert str(inspect.signature(ours)) == str(inspect.signature(theirs))
    assert ours.__doc__ == theirs.__doc__


def _filled(cls: type, layout: dict[str, Any], value: Any) -> Any:
    """An instance with every field __init__ takes given by keyword (and the InitVar)."""
    given = {s["name"]: value for s in layout["fields"] if s["options"].get("init", True)}
    if layout["initvar"]:
        given["extra"] = 1
    return cls(**given)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts(), VALUES, VALUES, st.dictionaries(st.sampled_from([*NAMES, "extra", "bogus"]), VALUES, max_size=3))
def test_equality_replace_pickling_and_freezing_match_the_stdlib(layout, first, second, changes):
    try:
        classes = {kind: build(layout, kind) for kind in ("stdlib", "frozen")}
    except TypeError:
        return
    pairs = {kind: (_filled(cls, layout, first), _filled(cls, layout, second)) for kind, cls in classes.items()}
    (ours, other), (theirs, their_other) = pairs["frozen"], pairs["stdlib"]
    assert outcome(lambda: (ours == other, ours != other)) == outcome(lambda: (theirs == their_other, theirs != their_other))
    assert ours.__eq__(theirs) is NotImplemented and ours != object()
    replaced = outcome(lambda: state(dataclasses.replace(ours, **changes)))
    assert replaced == outcome(lambda: state(dataclasses.replace(theirs, **changes)))
    for duplicate in (lambda record: pickle.loads(pickle.dumps(record)), copy.deepcopy, copy.copy):
        copied, their_copy = duplicate(ours), duplicate(theirs)
        assert type(copied) is classes["frozen"] and state(copied) == state(ours)
        assert outcome(lambda: copied == ours) == outcome(lambda: their_copy == theirs)
    for name in [*NAMES, "unrelated"]:
        assert outcome(lambda: setattr(ours, name, 1)) == outcome(lambda: setattr(theirs, name, 1))
        assert outcome(lambda: delattr(ours, name)) == outcome(lambda: delattr(theirs, name))
    assert state(ours) == state(theirs)


def _both(body: Callable[[Callable[[type], type]], Any]) -> tuple[Any, Any]:
    """What `body` gives with `frozen` and with the stdlib's frozen dataclass, as outcomes."""
    return outcome(lambda: body(frozen)), outcome(lambda: body(dataclasses.dataclass(frozen=True)))


def test_inheritance_merges_fields_and_a_plain_subclass_may_add_attributes_as_with_the_stdlib():
    def family(decorate: Callable[[type], type]) -> Any:
        @decorate
        class Base:
            a: int
            b: str = "b"

        @decorate
        class Child(Base):
            c: int = 3
            b: str = "overridden"

        class Plain(Child):
            pass

        plain = Plain(1)
        plain.note = "kept"  # not a field, not the decorated class itself: allowed
        return (repr(Child(1, c=4)), [f.name for f in dataclasses.fields(Child)], Child(1) == Base(1),
                vars(plain), outcome(lambda: setattr(plain, "a", 2)), outcome(lambda: setattr(Base(1), "note", 1)))  # fmt: skip

    ours, theirs = _both(family)
    assert ours == theirs and ours[0] == "value"
    assert ours[1][0].endswith(".family.<locals>.Child(a=1, b='overridden', c=4)")


def test_methods_a_class_defines_itself_are_kept_or_refused_as_with_the_stdlib():
    def own_methods(decorate: Callable[[type], type]) -> Any:
        @decorate
        class Custom:
            a: int

            def __repr__(self) -> str:
                return "custom"

            def __eq__(self, other: object) -> bool:
                return True

        return repr(Custom(1)), Custom(1) == 5, hash(Custom(1)) == hash(Custom(1)), Custom.__hash__ is not None

    def explicit_hash(decorate: Callable[[type], type]) -> Any:
        @decorate
        class Hashed:
            a: int

            def __hash__(self) -> int:
                return 42

        return hash(Hashed(1))

    def own_setattr(decorate: Callable[[type], type]) -> Any:
        @decorate
        class Mutable:
            a: int

            def __setattr__(self, name: str, value: Any) -> None:
                object.__setattr__(self, name, value)

        return Mutable

    for body in (own_methods, explicit_hash):
        ours, theirs = _both(body)
        assert ours == theirs and ours[0] == "value"
    ours, theirs = _both(own_setattr)
    assert ours == theirs == ("raised", ("TypeError", "Cannot overwrite attribute __setattr__ in class Mutable"))


def test_a_record_that_contains_itself_shows_an_ellipsis_as_with_the_stdlib():
    def loop(decorate: Callable[[type], type]) -> str:
        @decorate
        class Box:
            items: list

        box = Box([])
        box.items.append(box)
        return repr(box)

    ours, theirs = _both(loop)
    assert ours == theirs and ours[1].endswith(".loop.<locals>.Box(items=[...])")


def test_the_package_classes_are_frozen_dataclasses():
    tool = Tool("read", "Read a file")
    assert dataclasses.is_dataclass(RunFacts) and dataclasses.fields(Tool)[0].name == "name"
    assert dataclasses.replace(tool, summary="Reads") == Tool("read", "Reads")
    with pytest.raises(FrozenInstanceError):
        tool.name = "write"
    with pytest.raises(TypeError, match=r"^TextBlock.__init__\(\) takes 1 positional argument but 2 were given$"):
        TextBlock("hi")
    assert pickle.loads(pickle.dumps(RunFacts(tools=(tool,)))) == RunFacts(tools=(tool,))


def test_mypy_treats_a_decorated_class_as_a_frozen_dataclass(tmp_path):
    """An assignment to a field is a type error, and `dataclasses.replace` is checked."""
    (tmp_path / "path").mkdir()
    (tmp_path / "path" / "promptc").symlink_to(PACKAGE_DIR)
    (tmp_path / "user.py").write_text(
        "import dataclasses\n"
        "from promptc.model import Tool\n"
        "from promptc.transcript.model import TextBlock\n"
        "tool = Tool('read')\n"
        "tool.name = 'write'\n"
        "reveal_type(dataclasses.replace(tool, summary='s'))\n"
        "dataclasses.replace(tool, sumary='s')\n"
        "TextBlock('positional')\n"
        "Tool(name=3)\n"
    )
    env = {**os.environ, "MYPYPATH": str(tmp_path / "path")}
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "user.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)  # fmt: skip
    lines = [line.split("  [")[0] for line in done.stdout.splitlines() if ": error:" in line or "Revealed type" in line]
    assert lines == [
        'user.py:5: error: Property "name" defined in "Tool" is read-only',
        'user.py:6: note: Revealed type is "promptc.model.Tool"',
        'user.py:7: error: Unexpected keyword argument "sumary" for "replace" of "Tool"; did you mean "summary"?',
        'user.py:8: error: Too many positional arguments for "TextBlock"',
        'user.py:9: error: Argument "name" to "Tool" has incompatible type "int"; expected "str"',
    ], done.stdout
