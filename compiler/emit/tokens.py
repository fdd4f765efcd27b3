"""Token counts for reports: exact o200k_base counts with the `tokens` extra, else an estimate.

The encoding is built offline from the ranks file that `bpe-openai` ships; no network is used.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

ENCODING_NAME = "o200k_base"
BYTES_PER_TOKEN = 4


def count(text: str) -> int | None:
    """The exact o200k_base token count, or None when the `tokens` extra is not installed.

    Special-token text such as `<|endoftext|>` is counted as ordinary text.
    """
    encoding = _encoding()
    if encoding is None:
        return None
    return len(encoding.encode_ordinary(text))


def estimate(text: str) -> int:
    """A rough count: UTF-8 bytes divided by four, rounded up."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def describe() -> str:
    """Which counting method is active, for labelling reports."""
    if _encoding() is None:
        return "estimate (UTF-8 bytes / 4; install promptc[tokens] for exact counts)"
    return f"exact ({ENCODING_NAME} via tiktoken)"


@functools.cache
def _encoding() -> Any:
    """The o200k_base encoding built from local files, or None when unavailable."""
    # bpe-openai loads its bundled ranks at import time through an importlib.resources call
    # that some Pythons flag as deprecated; that warning is not the user's concern.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import tiktoken
            from bpe_openai import registry
        except ImportError:
            return None
        try:
            # tiktoken's constructor arguments (name, pattern, ranks, special tokens), read
            # from the gzipped o200k_base ranks shipped inside the bpe-openai wheel.
            return tiktoken.Encoding(**registry.o200k_base())
        except (AttributeError, OSError, TypeError, ValueError):
            return None
