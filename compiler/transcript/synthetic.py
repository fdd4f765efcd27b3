"""Synthetic tool results: the stand-ins written for calls that never got a result, and how to spot a stored one.

A stand-in only keeps a history well formed; when the real result turns up after all (a late
write, a retried run), the real one must win. So every writer's stand-ins are recognised: ours
(replay text or on-disk mark) and OpenClaw's (its `details` flag, or its text, matched by digest).
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import TextBlock, ToolResultMessage
from .queries import blocks_of
from .texts import OPENCLAW_SPELLINGS, Texts, sha256_matches

PROMPTC_MARK = "promptcSyntheticToolResult"
"""`details` key on a result our on-disk repair inserted (value: true)."""
OPENCLAW_MARK = "openclawSyntheticMissingToolResult"
"""`details` key OpenClaw sets on the results it inserts (an identifier, not prose). Our repair sets it
too, so OpenClaw lets a late real result replace ours exactly as it would replace its own."""
INSERTED_RESULT_DETAILS = {PROMPTC_MARK: True, OPENCLAW_MARK: True}
"""The `details` of a result inserted on disk: marked as ours, and flagged the way OpenClaw flags its own."""


def is_stand_in(result: ToolResultMessage, texts: Texts) -> bool:
    """A stored error result that only stands in for a missing one: flagged so, or carrying a stand-in text.

    A bare `aborted` text is not enough: a real tool can fail with that word.
    """
    if result.is_error is not True:
        return False
    details = result.raw.get("details")
    if isinstance(details, Mapping) and (details.get(PROMPTC_MARK) is True or details.get(OPENCLAW_MARK) is True):
        return True
    return any(_stand_in_text(b.text, texts) for b in blocks_of(result) if isinstance(b, TextBlock))


def _stand_in_text(text: str, texts: Texts) -> bool:
    return text == texts.missing_tool_result or sha256_matches(text, OPENCLAW_SPELLINGS.missing_result_sha256)
