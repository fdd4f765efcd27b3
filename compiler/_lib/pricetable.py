"""The shipped price table `templates/pricing.yaml`, read once: per provider and model, the
minimum cacheable prefix and the prices (the cache simulator builds its rule sets from it)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import yaml

from .resources import templates_root

DEFAULT_PROVIDER = "anthropic"
"""Whose rows a model with no known provider is looked up in (breakpoints are an Anthropic and
Bedrock feature; both publish the same minimums for Claude models)."""


@cache
def load() -> dict[str, Any]:
    """The table as data."""
    return yaml.safe_load((templates_root() / "pricing.yaml").read_text(encoding="utf-8"))


def row(provider: str | None, model: str | None) -> dict[str, Any]:
    """The model's row: the first of its provider's rows whose `match` occurs in the model id,
    else the provider's `default` (an unknown provider: DEFAULT_PROVIDER's rows)."""
    providers = load()["providers"]
    table = providers.get(provider or "", providers[DEFAULT_PROVIDER])
    for entry in table["models"]:
        if model and re.search(entry["match"], model, re.IGNORECASE):
            return entry
    return table["default"]
