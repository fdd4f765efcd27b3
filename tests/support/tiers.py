"""A workspace and the config settings the cache-tier tests share (the tiers, the cache simulator,
the cache diff)."""

from __future__ import annotations

FILES = {
    "AGENTS.md": "# Rules\n\nAsk before deleting anything.\n",
    "SOUL.md": "# Persona\n\nYou are Wren, calm and brief.\n",
    "TOOLS.md": "# Tools\n\nThe printer is called Ink.\n",
    "IDENTITY.md": "# Identity\n\nName: Wren\n",
    "USER.md": "# User\n\nSam, who likes short answers.\n",
    "MEMORY.md": "# Memory\n\n- Sam's sister is Alex.\n",
}
"""Six small bootstrap files: each default tier holds at least one of them."""
HEARTBEAT_FILES = {**FILES, "HEARTBEAT.md": "# Heartbeat\n\n- Check the plant sensor and report if it is dry.\n"}
"""The same workspace with a task in HEARTBEAT.md, whose section sits in the dynamic context."""
REACH_TIERS = "prompt.cache.tiers=[[sections, AGENTS.md, TOOLS.md, IDENTITY.md], [SOUL.md, USER.md], [MEMORY.md, dynamic_context]]"
"""A last tier reaching past the boundary into the dynamic project context."""
HEARTBEATS_ON = "agents.defaults.heartbeat.enabled=true"
"""The `--set` that turns heartbeats on (HEARTBEAT.md then reaches the prompt)."""
