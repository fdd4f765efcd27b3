"""Remove the legacy heartbeat-prompt block that older workspace templates carry in their files.

Older AGENTS.md templates quoted the runtime's default heartbeat prompt under a
`Default heartbeat prompt:` line. The runtime sends its real heartbeat prompt as the heartbeat
turn's own message, so a stale copy in a file only contradicts it: the block is removed before
injection, and nothing else in the file changes.
"""

from __future__ import annotations

import re

LABEL = "Default heartbeat prompt:"
LEGACY_HEARTBEAT_BLOCK = re.compile(
    r"\n*^[ \t]*" + re.escape(LABEL) + r"[ \t]*\n[ \t]*`[^`\n]*HEARTBEAT_OK[^`\n]*`[ \t]*$\n*", re.MULTILINE
)
"""The label line, the one backticked prompt line after it (it always ends in HEARTBEAT_OK), and
the blank lines around them."""


def strip_legacy_heartbeat(text: str) -> str:
    """`text` without any legacy heartbeat block; the lines around it are joined by one blank line."""
    if LABEL not in text:
        return text
    return LEGACY_HEARTBEAT_BLOCK.sub(_join, text)


def _join(match: re.Match[str]) -> str:
    at_start, at_end = match.start() == 0, match.end() == len(match.string)
    return "" if at_start or at_end else "\n\n"
