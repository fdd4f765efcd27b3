"""Matrices, arguments and readers shared by the bundle tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .paths import EXAMPLES

AGENTS = ["main", "helper", "scout", "scribe"]
SESSIONS = ["main", "subagent", "cron", "heartbeat"]
PROVIDERS = ["anthropic", "openai"]
CHANNELS = ["telegram", "discord", "webchat"]

CONFIG = f"""
agents:
  defaults:
    workspace: {EXAMPLES / "workspace"}
    heartbeat: {{enabled: true}}
  list:
    - id: main
    - id: helper
    - id: scout
      subagents: {{delegationMode: prefer}}
    - id: scribe
      userTimezone: Europe/Lisbon
"""

MATRIX = """
agents: [main, helper, scout, scribe]
sessions: [main, subagent, cron, heartbeat]
providers:
  - {provider: anthropic, model: anthropic/claude-sonnet-4-5}
  - {provider: openai, model: openai/gpt-5.5}
channels:
  - {channel: telegram, chat_type: direct}
  - {channel: discord, chat_type: group}
  - webchat
"""


TIER_FILES = {
    "AGENTS.md": "# Rules\n",
    "SOUL.md": "# Persona\n\nYou are Wren, calm and brief.\n",
    "USER.md": "# User\n",
    "MEMORY.md": "# Memory\n\n- A note.\n",
}


def matrix_args(write_yaml: Callable[[str, str], Path], out: Path) -> list:
    """`promptc bundle` arguments for the 96-variant matrix over the example workspace."""
    config, matrix = write_yaml("config.yaml", CONFIG), write_yaml("matrix.yaml", MATRIX)
    return ["bundle", "--matrix", matrix, "--config", config, "--run", EXAMPLES / "run.yaml", "--out", out]


def small_matrix_args(write_yaml: Callable[[str, str], Path]) -> list:
    """`promptc bundle` arguments for a two-variant matrix, without --out."""
    return [
        "bundle",
        "--matrix",
        write_yaml("matrix.yaml", "sessions: [main, cron]\n"),
        "--workspace",
        EXAMPLES / "workspace",
    ]


def read_manifest(out: Path) -> dict:
    """The parsed `manifest.json` of the bundle in `out`."""
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def bundle_files(out: Path) -> dict[str, bytes]:
    """Every file under `out` (path inside it -> bytes)."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
