"""What the package ships: the built-in templates (installed or in a source checkout), the data files
beside them, and its version."""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""LibYAML's safe loader where PyYAML was built with it: the shipped tables parse on every cold start."""


@cache
def templates_root() -> Path:
    """The built-in `templates/` directory (shipped in the wheel as package `promptc_templates`)."""
    try:
        package = importlib.import_module("promptc_templates")
    except ImportError:
        return Path(__file__).resolve().parents[2] / "templates"  # a checkout: compiler/_lib/ -> templates/
    return Path(str(package.__file__)).resolve().parent


def shipped_yaml(name: str) -> Any:
    """A YAML data file shipped in `templates/` (`pricing.yaml`, `tools.yaml`, `defaults.yaml`), parsed."""
    return yaml.load((templates_root() / name).read_text(encoding="utf-8"), Loader=_LOADER)


def version() -> str:
    """The installed distribution's version (read from its metadata on first use)."""
    from importlib import metadata

    try:
        return metadata.version("promptc")
    except metadata.PackageNotFoundError:  # imported from a checkout that was never installed
        return "0+unknown"
