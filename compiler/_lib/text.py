"""Text rules shared by every stage that emits text: normalisation, the marker, the characters
that must never reach the output, and counted nouns in messages."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Join surrogate pairs into their character and turn each lone surrogate into U+FFFD.

    A lone surrogate (from a `"\\ud800"` escape in YAML or JSON, or an undecodable file name)
    cannot be encoded as UTF-8, so it would make writing the output fail.
    """
    if text.isascii() or _SURROGATE.search(text) is None:  # the first test is the cheap one
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def normalise(text: str) -> str:
    """CRLF/CR to LF, trailing whitespace stripped per line, whole text trimmed;
    lone surrogates replaced, so every section encodes as UTF-8."""
    lines = replace_surrogates(text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def neutralise(text: str, marker: str) -> str:
    """Defuse every copy of the boundary marker, overlapping ones included, so the prompt holds
    it exactly once: a backslash goes after the first character of each occurrence."""
    if marker not in text:
        return text
    starts = re.escape(marker[0]) + "(?=" + re.escape(marker[1:]) + ")"
    return re.sub(starts, lambda m: marker[0] + "\\", text)


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`1 file`, `2 files`, `1,200 files` (`nouns`: the plural when it is not `noun` + s)."""
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"
