"""A typed transcript object back to JSON: its raw object, with only the modelled fields that changed
written back, so reading and writing gives back exactly what was read."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from . import jsonline
from .model import OpaqueBlock, OpaqueMessage, read_field


def to_json(obj: Any) -> Any:
    """The JSON value for a typed object: its raw object with the modelled fields that changed written back.

    A field still holding what was read from `raw` is left as `raw` has it, so reading and writing
    an object gives back exactly what was read.
    """
    if isinstance(obj, (OpaqueBlock, OpaqueMessage)):
        return obj.raw
    out = dict(obj.raw)
    for f in fields(obj):
        key = f.metadata.get("json")
        if key is None:
            continue
        value = getattr(obj, f.name)
        if value is not None:
            if isinstance(value, tuple) or value != read_field(obj.raw, f):
                out[key] = _encode(value)
        elif out.get(key) is not None:
            del out[key]
    return out


def _encode(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_encode(item) for item in value]
    if is_dataclass(value):
        return to_json(value)
    return value


def loads(text: str) -> Any:
    """Parse one JSON line strictly (NaN and Infinity are not JSON); numbers Python cannot write back
    as read (`1e400`, `-0`, 5,000 digits) are kept as `RawNumber`s."""
    return jsonline.loads(text)
