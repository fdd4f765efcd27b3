"""On-disk stand-ins for tool results the runtime never wrote, where replay would have to invent them.

Two kinds of call are known to end up without a result on disk: a code-mode call (an OpenAI
`openai-chatgpt-responses` turn whose tools ran outside the session), and a `message`-tool call of
a Responses-API turn whose reply went out through a channel (the next message entry is then the
runtime's delivery mirror). For each such call with no result anywhere in the file, repair writes
a result entry right after the turn: `aborted` (what Responses APIs expect for an unfinished call),
flagged in `details` as a stand-in, so a real result that turns up later replaces it on replay.

The file is read once to find results and candidate calls, so the inserts are planned after that
read (`ResultScan.inserts`) and written during the second.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import jsonline
from .answers import EMBEDDED_RESULT_ID_KEYS
from .model import CALL_ID_FALLBACKS, FAILED_STOP_REASONS, is_one_of, is_usable_string
from .normalize import TRANSCRIPT_ONLY_MODELS, TRANSCRIPT_ONLY_PROVIDER
from .pairing import RESPONSES_MISSING_RESULT
from .synthetic import INSERTED_RESULT_DETAILS

CODE_MODE_API = "openai-chatgpt-responses"
CODE_MODE_PROVIDER = "openai"
MESSAGE_TOOL_APIS = frozenset({"openai-responses", "azure-openai-responses", "openai-codex-responses"})
MESSAGE_TOOL = "message"
CALL_TYPES = frozenset({"toolCall", "toolUse", "functionCall"})
INSERTED_ID_PREFIX = "repair-"


@dataclass(frozen=True, slots=True)
class Candidate:
    """An assistant entry whose calls may need a stand-in result."""

    line: int
    """Its line number in the file."""
    entry: Mapping[str, Any]
    """The entry, as parsed."""
    calls: tuple[tuple[str, Any], ...]
    """(call id, tool name) of the calls concerned, in turn order."""


@dataclass(frozen=True, slots=True)
class Insert:
    """Result entries to write after one line, and the id its children should name as parent now."""

    lines: tuple[str, ...]
    """The new entries' JSON text (ASCII), in order; each names the previous one (or the turn) as parent."""
    last_id: str
    """The id of the last new entry."""


class ResultScan:
    """Working state while the file is read: every result id seen, and the candidate calls (local to a repair)."""

    def __init__(self) -> None:
        self.result_ids: set[str] = set()
        self.candidates: list[Candidate] = []
        self.waiting: Candidate | None = None
        """A Responses turn with `message` calls, until the next message entry shows whether it is a mirror."""

    def see(self, line: int, entry: Mapping[str, Any]) -> None:
        """Take in one kept entry, in file order."""
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            return
        if self.waiting is not None and _delivery_mirror(message):
            self.candidates.append(self.waiting)
        self.waiting = None
        if message.get("role") == "toolResult":
            ids = (message.get(key) for key in EMBEDDED_RESULT_ID_KEYS)
            self.result_ids.update(v.strip() for v in ids if is_usable_string(v))
        elif message.get("role") == "assistant" and not is_one_of(message.get("stopReason"), FAILED_STOP_REASONS):
            self._see_assistant(line, entry, message)

    def see_unreadable(self) -> None:
        """A line that was not read (over the line cap): it may be anything, so the lookahead stops."""
        self.waiting = None

    def _see_assistant(self, line: int, entry: Mapping[str, Any], message: dict) -> None:
        calls = _calls(message)
        if message.get("api") == CODE_MODE_API and message.get("provider") == CODE_MODE_PROVIDER and calls:
            self.candidates.append(Candidate(line, entry, calls))
        elif _trimmed(message.get("api")) in MESSAGE_TOOL_APIS:
            tool_calls = tuple(c for c in calls if _trimmed(c[1]).lower() == MESSAGE_TOOL)
            self.waiting = Candidate(line, entry, tool_calls) if tool_calls else None

    def inserts(self) -> tuple[dict[int, Insert], int]:
        """The result entries to write, by the line they follow, and how many calls were left without one
        because a value of theirs cannot be written back exactly."""
        answered = set(self.result_ids)
        planned: dict[int, Insert] = {}
        skipped = 0
        for candidate in self.candidates:
            parent: Any = candidate.entry.get("id")
            lines: list[str] = []
            for call_id, name in candidate.calls:
                if call_id in answered:
                    continue
                entry_id = _inserted_id(candidate.entry.get("id"), call_id)
                text = jsonline.exact_json(_result_entry(candidate, entry_id, parent, call_id, name))
                if text is None:
                    skipped += 1
                    continue
                answered.add(call_id)
                lines.append(text)
                parent = entry_id
            if lines:
                planned[candidate.line] = Insert(tuple(lines), parent)
        return planned, skipped


def _calls(message: dict) -> tuple[tuple[str, Any], ...]:
    content = message.get("content")
    blocks = content if isinstance(content, list) else ()
    found = []
    for block in blocks:
        if isinstance(block, dict) and is_one_of(block.get("type"), CALL_TYPES):
            keys = ("id", *CALL_ID_FALLBACKS)
            call_id = next((block[k] for k in keys if is_usable_string(block.get(k))), None)
            if call_id is not None:
                found.append((call_id, block.get("name")))
    return tuple(found)


def _delivery_mirror(message: dict) -> bool:
    """The runtime's transcript-only copy of a reply it delivered through a channel."""
    return (
        message.get("role") == "assistant"
        and _trimmed(message.get("provider")) == TRANSCRIPT_ONLY_PROVIDER
        and _trimmed(message.get("model")) in TRANSCRIPT_ONLY_MODELS
    )


def _result_entry(candidate: Candidate, entry_id: str, parent: Any, call_id: str, name: Any) -> dict:
    """The stand-in: an `aborted` error result, dated like its turn so repair stays deterministic."""
    message = candidate.entry["message"]
    result: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name if is_usable_string(name) else "unknown",
        "content": [{"type": "text", "text": RESPONSES_MISSING_RESULT}],
        "details": dict(INSERTED_RESULT_DETAILS),
        "isError": True,
    }
    if "timestamp" in message:
        result["timestamp"] = message["timestamp"]
    entry = {"type": "message", "id": entry_id, "parentId": parent if isinstance(parent, str) else None}
    if "timestamp" in candidate.entry:
        entry["timestamp"] = candidate.entry["timestamp"]
    return {**entry, "message": result}


def _inserted_id(turn_id: Any, call_id: str) -> str:
    """A new entry id derived from the turn and the call, so a rerun of the same repair writes the same id."""
    seed = f"{jsonline.dumps(turn_id, ascii_only=True)}\n{call_id}".encode("utf-8", "surrogatepass")
    return INSERTED_ID_PREFIX + hashlib.sha256(seed).hexdigest()[:12]


def _trimmed(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
