"""JSON Schemas of promptc's input files, generated from the declarations their readers use: the
config keys and their checks, the run facts, section metadata, snapshot scenarios and bundle
matrices. An editor completes and checks a file with one; promptc still checks every value
itself, with its own located errors, and refuses what a schema cannot express (a time zone that
does not exist, a name in two cache tiers)."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._lib import checks, resources
from ..inputs import configdocs, configkeys, openclaw, valuechecks
from ..inputs.configkeys import Field, ListOf, MapOf, Node
from ..inputs.contributions import SLOTS
from ..model import facts
from ..model.config import CACHE_TTLS, MAX_CACHE_TIERS, SIDES
from ..model.runfacts import FACTS, PROMPT_MODES, SESSION_KINDS, RunFacts
from ..model.runparts import ExecSession, Sandbox, Tool
from ..sections import sectionfile
from ..sections.sectionfile import OPTIONAL_KEYS, REQUIRED_KEYS
from .bundle import schema as bundle_schema
from .bundle.matrix import AXES, LIMIT_KEY, MAX_VARIANTS
from .snapshot import scenario as snapshot_scenario

DRAFT = "http://json-schema.org/draft-07/schema#"
"""The JSON Schema version: the one editors' YAML and JSON support reads best."""

_LINE = r"[^\u0000-\u001f\u007f-\u009f\u2028\u2029]"
ONE_LINE = {"type": "string", "pattern": rf"^(?=.*\S){_LINE}*$"}
"""Text on one line, not blank."""
NOT_BLANK = {"type": "string", "pattern": r"\S"}
_TEXT_LIST = {"type": "array", "items": {"type": "string"}}
_TIER_FILE = "|".join(name.replace(".", r"\.") for name in valuechecks.TIER_FILES)
_TIER_ENTRY = rf"^([a-z][a-z0-9_]*|({_TIER_FILE})(#head)?)$"


@dataclass(frozen=True, slots=True)
class Shape:
    """What a check accepts, for an editor and for a person."""

    schema: dict[str, Any]
    """As JSON Schema: everything the check accepts, and as little more as JSON Schema can say."""
    words: str
    """As the reference page says it."""


CHECK_SHAPES: dict[Callable[[Any], Any], Shape] = {
    valuechecks.positive_int: Shape({"type": "integer", "minimum": 1}, "whole number, at least 1"),
    valuechecks.boolean: Shape({"type": "boolean"}, "true or false"),
    valuechecks.string: Shape({"type": "string"}, "text"),
    valuechecks.one_line: Shape(ONE_LINE, "text on one line, not blank"),
    valuechecks.boundary_marker: Shape(
        {"type": "string", "pattern": r"^<!--[^\\\u0000-\u001f\u007f]*-->$"},
        "an HTML comment on one line with a word in it, no backslash",
    ),
    valuechecks.string_list: Shape(_TEXT_LIST, "list of texts"),
    valuechecks.timezone: Shape(NOT_BLANK, "IANA time zone name"),
    valuechecks.model_ref: Shape(
        {
            "anyOf": [
                ONE_LINE,
                {
                    "type": "object",
                    "properties": {"primary": ONE_LINE, "fallbacks": _TEXT_LIST},
                    "additionalProperties": False,
                },
            ]
        },
        "a model id on one line, or `{primary, fallbacks}`",
    ),
    valuechecks.hook_specs: Shape(
        {"type": "array", "items": {"type": "string", "pattern": "^[^:]+:[^:]+$"}}, "list of `module:function`"
    ),
    valuechecks.plain_data: Shape({}, "plain data: text, number, boolean, list or mapping"),
    valuechecks.cache_tiers: Shape(
        {
            "type": "array",
            "maxItems": MAX_CACHE_TIERS,
            "items": {"type": "array", "items": {"type": "string", "pattern": _TIER_ENTRY}},
        },
        f"at most {MAX_CACHE_TIERS} lists of workspace file names (`NAME#head` too) and section ids, each once",
    ),
    valuechecks.cache_ttl: Shape(
        {
            "anyOf": [
                {"enum": list(CACHE_TTLS)},
                {"type": "array", "minItems": 1, "maxItems": MAX_CACHE_TIERS, "items": {"enum": list(CACHE_TTLS)}},
            ]
        },
        f"{' or '.join(f'`{ttl}`' for ttl in CACHE_TTLS)}, or a list of at most {MAX_CACHE_TIERS}, never growing",
    ),
    valuechecks.duration: Shape(
        {"type": "string", "pattern": f"^{valuechecks.DURATION.pattern}$"}, "whole minutes or hours: `55m`, `2h`"
    ),
    valuechecks.session_kinds: Shape(
        {"type": "array", "uniqueItems": True, "items": {"enum": list(SESSION_KINDS)}},
        f"list of session kinds ({', '.join(f'`{kind}`' for kind in SESSION_KINDS)}), each once",
    ),
}
"""What each config value check accepts."""

_VARIABLE_NAME = {"pattern": checks.VARIABLE_NAME.pattern}
KEY_SHAPES: dict[Callable[[Any], Any], Shape] = {
    valuechecks.one_line_key: Shape({"pattern": ONE_LINE["pattern"]}, "keys on one line"),
    valuechecks.variable_name: Shape(_VARIABLE_NAME, "keys are variable names"),
    valuechecks.declared_name: Shape(
        {**_VARIABLE_NAME, "not": {"enum": sorted(valuechecks.RESERVED_VARIABLE_NAMES)}},
        f"keys are variable names, not {', '.join(f'`{n}`' for n in sorted(valuechecks.RESERVED_VARIABLE_NAMES))}",
    ),
}
"""What each check of a mapping's keys accepts (JSON Schema `propertyNames`)."""

UNCHECKED = "An OpenClaw setting promptc does not use: accepted without checks."


# --------------------------------------------------------------------------- config


def config_schema() -> dict[str, Any]:
    """A config file (YAML, JSON or JSON5; also OpenClaw's openclaw.json)."""
    defaults = resources.shipped_yaml("defaults.yaml")
    return {"$schema": DRAFT, "title": "promptc config", **config_node(configkeys.SCHEMA, "", defaults)}


def config_node(node: Node, pattern: str, default: Any = None) -> dict[str, Any]:
    """One schema node, its description and default (from the built-in defaults) included."""
    shape = _config_shape(node, pattern, default)
    about = configdocs.description(pattern)
    if about is not None:
        shape = {"description": about, **shape}
    if isinstance(node, Field) and default is not None:
        shape["default"] = default
    return shape


def _config_shape(node: Node, pattern: str, default: Any) -> dict[str, Any]:
    if isinstance(node, Field):
        return field_shape(node)
    if isinstance(node, ListOf):
        return {"type": "array", "items": config_node(node.item, pattern + "[]")}
    if isinstance(node, MapOf):
        mapping: dict[str, Any] = {"type": "object", "additionalProperties": config_node(node.value, pattern + "{}")}
        return mapping | ({"propertyNames": KEY_SHAPES[node.key].schema} if node.key else {})
    given = default if isinstance(default, Mapping) else {}
    properties = {key: config_node(child, _join(pattern, key), given.get(key)) for key, child in node.fields.items()}
    for key in sorted(openclaw.KNOWN.get(pattern, frozenset()) - set(node.fields)):
        properties[key] = {"description": UNCHECKED}
    table: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    return table | ({"required": list(node.required)} if node.required else {})


def field_shape(field: Field) -> dict[str, Any]:
    """What a config field accepts: its check's shape, and null when the field may be unset."""
    check = field.check
    shape = choice_shape(check) if isinstance(check, valuechecks.Choice) else CHECK_SHAPES[check].schema
    if field.nullable and shape:
        return {"anyOf": [shape, {"type": "null"}]}
    return dict(shape)


def choice_shape(check: valuechecks.Choice) -> dict[str, Any]:
    """The words, and the YAML values read as them (`off` as a boolean, `12` as a number)."""
    extra: list[Any] = [word == "on" for word in check.choices if word in ("on", "off")]
    extra += [int(word) for word in check.choices if word.isdigit()]
    return {"enum": [*check.choices, *extra]}


def _join(pattern: str, key: str) -> str:
    return f"{pattern}.{key}" if pattern else key


# --------------------------------------------------------------------------- run facts


def run_schema() -> dict[str, Any]:
    """A run file (`--run`): one turn's facts."""
    return {"$schema": DRAFT, "title": "promptc run facts", **run_shape()}


def run_shape() -> dict[str, Any]:
    """Run facts as a mapping: every fact a run file may set."""
    hints = typing.get_type_hints(RunFacts)
    fields = {item.name: item for item in dataclasses.fields(RunFacts)}
    properties = {d.name: fact_shape(d, hints[d.name], fields[d.name]) for d in FACTS if d.fact.file}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def fact_shape(declared: facts.Declared, hint: Any, field: dataclasses.Field) -> dict[str, Any]:
    """What a run file may give one fact: from its type, as its reader converts it."""
    if declared.choices:
        shape: dict[str, Any] = {"enum": [*declared.choices, *([None] if declared.optional else [])]}
    else:
        shape = _type_shape(without_none(hint), declared.optional)
        if declared.fact.read is facts.read_level:
            shape["type"] = [*shape["type"], "boolean"]  # YAML's bare on / off
    shape = {"description": declared.fact.doc, **shape}
    if isinstance(field.default, (str, bool)):
        shape["default"] = field.default
    return shape


_TEXT_TYPES = ["string", "number"]
"""A run file's text may be written as a number (`python: 3.11`): it is read as text."""


def _type_shape(base: Any, optional: bool) -> dict[str, Any]:
    null = ["null"] if optional else []
    if base is bool:
        return {"type": ["boolean", *null]}
    if base is str:
        return {"type": [*_TEXT_TYPES, *null]}
    if base is int:
        return {"type": ["integer", *null]}
    if typing.get_origin(base) is tuple:
        return {"type": ["array", "null"], "items": _item_shape(typing.get_args(base)[0])}
    if base in RECORDS:
        return {"anyOf": [record_shape(base), {"type": "null"}]}
    if typing.get_origin(base) is Mapping:
        return {"type": "object", "propertyNames": _VARIABLE_NAME}
    raise TypeError(f"run facts of type {base!r} have no JSON Schema shape: declare one")


def _item_shape(item: Any) -> dict[str, Any]:
    if item is str:
        return {"type": _TEXT_TYPES}
    if item is Tool:
        return {"anyOf": [{"type": "string"}, record_shape(Tool)]}
    return record_shape(item)


RECORDS: tuple[type, ...] = (Tool, Sandbox, ExecSession)
"""The structured values inside run facts, each a mapping of its own fields."""


def record_shape(cls: type) -> dict[str, Any]:
    """A mapping of a record's fields: those without a default are required, and are text."""
    hints = typing.get_type_hints(cls)
    properties, required = {}, []
    for item in dataclasses.fields(cls):
        if item.default is dataclasses.MISSING:
            required.append(item.name)
            properties[item.name] = {"type": "string"}
        else:
            properties[item.name] = _type_shape(without_none(hints[item.name]), optional=True)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def without_none(hint: Any) -> Any:
    """A type hint without its `| None`."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        rest = [member for member in typing.get_args(hint) if member is not type(None)]
        return rest[0] if len(rest) == 1 else hint
    return hint


# --------------------------------------------------------------------------- section metadata

SECTION_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "id": ({"type": "string", "pattern": sectionfile.ID_PATTERN}, "Unique snake_case id; a built-in's id replaces it."),
    "order": ({"type": "integer"}, "Sort key, unique within the catalogue."),
    "side": ({"enum": list(SIDES)}, "`stable`: above the cache boundary; `volatile`: below it."),
    "modes": (
        {"type": "array", "minItems": 1, "items": {"enum": list(PROMPT_MODES)}},
        "The prompt modes that include the section.",
    ),
    "title": (NOT_BLANK, "Label in reports; without one, the id in title case."),
    "when": (NOT_BLANK, "A Jinja expression; the section is left out when it is false."),
    "slot": ({"enum": [*SLOTS, None]}, "The provider slot whose contribution replaces the section."),
}
"""Each section metadata key: what it accepts and what it means."""


def section_schema() -> dict[str, Any]:
    """The frontmatter of a section template (`*.md.j2`)."""
    keys = _declared(SECTION_KEYS, (*REQUIRED_KEYS, *OPTIONAL_KEYS), "section metadata")
    properties = {key: {"description": about, **shape} for key, (shape, about) in keys.items()}
    body = {"type": "object", "properties": properties, "required": list(REQUIRED_KEYS), "additionalProperties": False}
    return {"$schema": DRAFT, "title": "promptc section metadata", **body}


# --------------------------------------------------------------------------- scenario and matrix


def scenario_schema() -> dict[str, Any]:
    """A snapshot scenario (`snapshots/<name>/scenario.yaml`): the scenario reader's own key table
    (features/snapshot/scenario.py), with an inline config tree and the run facts checked in full."""
    schema = snapshot_scenario.json_schema()
    properties = schema["properties"]
    properties["config"] = _refined(properties["config"], {"$ref": "#/definitions/config"})
    properties["run"] = _refined(properties["run"], {"$ref": "#/definitions/run"})
    return {
        "$schema": DRAFT,
        "title": "promptc snapshot scenario",
        **schema,
        "definitions": {"config": _body(config_schema()), "run": run_shape()},
    }


def _refined(shape: dict[str, Any], full: dict[str, Any]) -> dict[str, Any]:
    """`shape` with every bare `{"type": "object"}` in it replaced by the full schema of that object."""
    if shape.get("type") == "object" and set(shape) <= {"type", "description"}:
        return {**({"description": shape["description"]} if "description" in shape else {}), "allOf": [full]}
    return {key: _refined_value(value, full) for key, value in shape.items()}


def _refined_value(value: Any, full: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        return _refined(value, full)
    if isinstance(value, list):
        return [_refined_value(item, full) for item in value]
    return value


def matrix_schema() -> dict[str, Any]:
    """A bundle matrix (`bundle --matrix`): each axis a list of values, or of run-fact mappings
    that set the axis' fact."""
    properties = {}
    for key, fact in AXES:
        entry = {
            "anyOf": [
                {"$ref": f"#/definitions/run/properties/{fact}"},
                {"allOf": [{"$ref": "#/definitions/run"}, {"type": "object", "required": [fact]}]},
            ]
        }
        about = f"Variants by {fact}: each entry a value, or run facts that set `{fact}`."
        properties[key] = {"description": about, "type": "array", "minItems": 1, "items": entry}
    properties[LIMIT_KEY] = {
        "description": f"The most variants the matrix may expand to (default {MAX_VARIANTS:,}).",
        "type": "integer",
        "minimum": 1,
    }
    return {
        "$schema": DRAFT,
        "title": "promptc bundle matrix",
        "type": ["object", "null"],
        "properties": properties,
        "additionalProperties": False,
        "definitions": {"run": run_shape()},
    }


def _declared(shapes: Mapping[str, Any], keys: tuple[str, ...], what: str) -> dict[str, Any]:
    """`shapes` in the order of the reader's own key list, which must name the same keys."""
    missing = [key for key in keys if key not in shapes]
    if missing or len(shapes) != len(keys):
        raise TypeError(
            f"{what} keys and their JSON Schema shapes differ: {missing or sorted(set(shapes) - set(keys))}"
        )
    return {key: shapes[key] for key in keys}


def _body(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key not in ("$schema", "title")}


# --------------------------------------------------------------------------- the registry


@dataclass(frozen=True, slots=True)
class Schema:
    """One schema `promptc schema` prints."""

    make: Callable[[], dict[str, Any]]
    """Its generator."""
    what: str
    """The files it is for, as `--help` names them."""


SCHEMAS: dict[str, Schema] = {
    "config": Schema(config_schema, "config files, openclaw.json too"),
    "run": Schema(run_schema, "--run files"),
    "section": Schema(section_schema, "section template frontmatter"),
    "scenario": Schema(scenario_schema, "snapshot scenario.yaml"),
    "matrix": Schema(matrix_schema, "bundle --matrix files"),
    "manifest": Schema(bundle_schema.manifest_schema, "a bundle's manifest.json, for runtimes that read bundles"),
}
"""Schema name (`promptc schema NAME`) -> its generator."""


def text(name: str) -> str:
    """One schema as JSON text, as `promptc schema` prints it and docs/schemas/ holds it."""
    return json.dumps(SCHEMAS[name].make(), indent=2, ensure_ascii=False) + "\n"
