"""Where the built-in templates live, installed or in a source checkout."""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path


@cache
def templates_root() -> Path:
    """The built-in `templates/` directory (shipped in the wheel as package `promptc_templates`)."""
    try:
        package = importlib.import_module("promptc_templates")
    except ImportError:
        return Path(__file__).resolve().parents[1] / "templates"
    return Path(str(package.__file__)).resolve().parent
