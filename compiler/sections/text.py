"""Text rules shared by every stage that emits prompt text: normalisation and the marker."""

from __future__ import annotations

import re


def normalise(text: str) -> str:
    """CRLF/CR to LF, trailing whitespace stripped per line, whole text trimmed (SPEC 4.1)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def neutralise(text: str, marker: str) -> str:
    """Defuse every copy of the boundary marker, overlapping ones included, so the prompt holds
    it exactly once: a backslash goes after the first character of each occurrence."""
    if marker not in text:
        return text
    starts = re.escape(marker[0]) + "(?=" + re.escape(marker[1:]) + ")"
    return re.sub(starts, lambda m: marker[0] + "\\", text)
