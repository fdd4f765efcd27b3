"""Typed session-file messages, blocks and entries (no I/O).

Every object keeps the JSON object it was read from (`raw`); writing starts from that object, so
fields we do not model, and the key order, survive a read/write round trip exactly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, ClassVar, Protocol, TypeGuard, TypeVar

TOOL_CALL_TYPES = frozenset({"toolCall", "toolUse", "functionCall", "tool_call", "tool_use", "function_call"})
THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
FAILED_STOP_REASONS = frozenset({"error", "aborted"})
USAGE_COUNTERS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
CALL_ID_FALLBACKS = ("tool_call_id", "call_id")
"""Keys some writers use for a tool call's id instead of `id`."""


def _json(name: str, default: Any = None, fallbacks: tuple[str, ...] = ()) -> Any:
    """A modelled field stored under JSON key `name`; None means absent (or null, if it was null).

    When `name` holds no usable string, the first of `fallbacks` that does gives the value.
    """
    return field(default=default, metadata={"json": name, "fallbacks": fallbacks})


def _raw() -> Any:
    return field(default_factory=dict, repr=False)


# ---------------------------------------------------------------------------------------------
# Content blocks


@dataclass(frozen=True, slots=True, kw_only=True)
class TextBlock:
    """Visible text."""

    type: str = _json("type", "text")
    """Always `text`."""
    text: str = _json("text", "")
    """The text itself."""
    raw: Mapping[str, Any] = _raw()
    """The block as read, modelled fields included; unknown fields (e.g. `textSignature`) live here."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkingBlock:
    """Model reasoning, plain (`thinking`) or provider-encrypted (`redacted_thinking`)."""

    type: str = _json("type", "thinking")
    """`thinking` or `redacted_thinking`."""
    thinking: str | None = _json("thinking")
    """The reasoning text, when the provider returned it."""
    thinking_signature: str | None = _json("thinkingSignature")
    """Provider signature that makes the block replayable (Anthropic; OpenAI Responses reasoning JSON)."""
    signature: str | None = _json("signature")
    """Alternative signature field seen in older rows."""
    thought_signature: str | None = _json("thought_signature")
    """Gemini-style signature field."""
    data: str | None = _json("data")
    """Encrypted payload of a `redacted_thinking` block."""
    raw: Mapping[str, Any] = _raw()
    """The block as read, modelled fields included (e.g. `redacted`)."""

    @property
    def signed(self) -> bool:
        """True when any signature field (or a redacted block's payload) is a non-blank string."""
        values = [self.thinking_signature, self.signature, self.thought_signature]
        if self.type == "redacted_thinking" or self.raw.get("redacted") is True:
            values.append(self.data)
        return any(isinstance(v, str) and v.strip() for v in values)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallBlock:
    """A tool call the assistant made; several historical spellings share this shape."""

    type: str = _json("type", "toolCall")
    """One of TOOL_CALL_TYPES (`toolCall` in current files, `toolUse`/`tool_use`… in older ones)."""
    id: Any = _json("id", fallbacks=CALL_ID_FALLBACKS)
    """Call id that the matching tool result quotes: `id`, else `tool_call_id`, else `call_id`."""
    name: Any = _json("name")
    """Tool name; usually a string."""
    arguments: Any = _json("arguments")
    """Call arguments (pi/OpenClaw shape)."""
    input: Any = _json("input")
    """Call arguments (Anthropic shape)."""
    partial_json: Any = _json("partialJson")
    """Streaming scratch text persisted by an interrupted call."""
    raw: Mapping[str, Any] = _raw()
    """The block as read, modelled fields included (e.g. `thoughtSignature`)."""

    def with_id(self, new: str) -> ToolCallBlock:
        """A copy whose id is `new`, written under `id` and under each fallback key that held the old id."""
        raw = {k: (new if k in CALL_ID_FALLBACKS and v == self.id else v) for k, v in self.raw.items()}
        return replace(self, id=new, raw={**raw, "id": new})


@dataclass(frozen=True, slots=True, kw_only=True)
class ImageBlock:
    """An inline base64 image."""

    type: str = _json("type", "image")
    """Always `image`."""
    data: Any = _json("data")
    """Base64 payload; usually a string."""
    mime_type: Any = _json("mimeType")
    """Declared media type, e.g. `image/png`."""
    raw: Mapping[str, Any] = _raw()
    """The block as read, modelled fields included."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpaqueBlock:
    """A content item we do not model (e.g. an embedded tool result); passed through untouched."""

    raw: Any = None
    """The item exactly as read (any JSON value)."""


Block = TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock | OpaqueBlock
Content = str | tuple[Block, ...]


# ---------------------------------------------------------------------------------------------
# Messages


@dataclass(frozen=True, slots=True, kw_only=True)
class UserMessage:
    """A user turn."""

    role: str = _json("role", "user")
    """Always `user`."""
    content: Content = _json("content", ())
    """A plain string or text/image blocks."""
    timestamp: Any = _json("timestamp")
    """Unix milliseconds (sometimes an ISO string)."""
    provenance: Mapping[str, Any] | None = _json("provenance")
    """Where the turn came from (`kind`, `sourceSessionKey`, `sourceChannel`, `sourceTool`, …)."""
    raw: Mapping[str, Any] = _raw()
    """The message as read, modelled fields included."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantMessage:
    """An assistant turn."""

    role: str = _json("role", "assistant")
    """Always `assistant`."""
    content: Content = _json("content", ())
    """Text, thinking and tool-call blocks (a plain string in legacy rows)."""
    stop_reason: Any = _json("stopReason")
    """`stop`, `length`, `toolUse`, `error` or `aborted` (other values pass through)."""
    timestamp: Any = _json("timestamp")
    """Unix milliseconds (sometimes an ISO string)."""
    usage: Mapping[str, Any] | None = _json("usage")
    """Token counters (`input`, `output`, `cacheRead`, `cacheWrite`, `totalTokens`, `cost`)."""
    provider: Any = _json("provider")
    """Provider that produced the turn (`openclaw` marks transcript-only rows)."""
    model: Any = _json("model")
    """Model id that produced the turn."""
    error_message: Any = _json("errorMessage")
    """Provider error text of a failed turn."""
    raw: Mapping[str, Any] = _raw()
    """The message as read, modelled fields included (e.g. `api`, `responseId`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultMessage:
    """The output of one tool call."""

    role: str = _json("role", "toolResult")
    """Always `toolResult`."""
    tool_call_id: Any = _json("toolCallId")
    """Id of the call this answers."""
    tool_use_id: Any = _json("toolUseId")
    """Legacy spelling of `toolCallId`."""
    tool_name: Any = _json("toolName")
    """Name of the tool that ran."""
    content: Content = _json("content", ())
    """Text and image blocks (a plain string in legacy rows)."""
    is_error: Any = _json("isError")
    """True when the tool failed."""
    timestamp: Any = _json("timestamp")
    """Unix milliseconds."""
    raw: Mapping[str, Any] = _raw()
    """The message as read, modelled fields included (e.g. `details`)."""

    @property
    def answers(self) -> Any:
        """The call id this result quotes, whichever field holds it."""
        return self.tool_call_id if self.tool_call_id is not None else self.tool_use_id

    def answering(self, call_id: str) -> ToolResultMessage:
        """A copy quoting `call_id` in whichever id fields this result uses."""
        return replace(
            self,
            tool_call_id=call_id if self.tool_call_id is not None or self.tool_use_id is None else None,
            tool_use_id=call_id if self.tool_use_id is not None else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionSummary:
    """The summary that stands in for history removed by compaction."""

    role: str = _json("role", "compactionSummary")
    """Always `compactionSummary`."""
    summary: Any = _json("summary")
    """The summary text."""
    timestamp: Any = _json("timestamp")
    """When compaction ran (Unix milliseconds or ISO string)."""
    raw: Mapping[str, Any] = _raw()
    """The message as read, modelled fields included (e.g. `tokensBefore`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpaqueMessage:
    """A message of a role or shape we do not model; passed through untouched."""

    raw: Any = None
    """The message exactly as read (any JSON value)."""


Message = UserMessage | AssistantMessage | ToolResultMessage | CompactionSummary | OpaqueMessage
Transcript = tuple[Message, ...]
ContentMessage = UserMessage | AssistantMessage | ToolResultMessage
"""The messages that hold content; every content step passes the others through as they are."""


# ---------------------------------------------------------------------------------------------
# Session file lines


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionHeader:
    """Line 1 of a session file."""

    type: Any = _json("type", "session")
    """Must be `session`."""
    version: Any = _json("version")
    """Format version (OpenClaw writes 2, pi writes 3)."""
    id: Any = _json("id")
    """Session id; must be a non-empty string."""
    timestamp: Any = _json("timestamp")
    """ISO creation time."""
    cwd: Any = _json("cwd")
    """Working directory of the session."""
    raw: Mapping[str, Any] = _raw()
    """The header as read, modelled fields included (e.g. `parentSession`)."""

    @property
    def valid(self) -> bool:
        """True for a `session` line with a non-empty string id."""
        return self.type == "session" and isinstance(self.id, str) and bool(self.id.strip())


@dataclass(frozen=True, slots=True, kw_only=True)
class Entry:
    """One line after the header: a node of the session tree."""

    type: Any = _json("type")
    """`message`, `compaction`, `custom`, `model_change`, …"""
    id: Any = _json("id")
    """Entry id (8 hex digits in OpenClaw files)."""
    parent_id: Any = _json("parentId")
    """Id of the previous entry on this branch (null for the first)."""
    timestamp: Any = _json("timestamp")
    """ISO time the entry was written."""
    message: Message | None = _json("message")
    """The entry's `message` field, typed (only `message` entries are replayed)."""
    raw: Mapping[str, Any] = _raw()
    """The entry as read, modelled fields included (e.g. `summary`, `firstKeptEntryId`)."""


# ---------------------------------------------------------------------------------------------
# Parsing


class Modelled(Protocol):
    """Any typed object above but the opaque ones: a dataclass built by keyword from its fields and `raw`."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    def __init__(self, *, raw: Mapping[str, Any], **values: Any) -> None: ...

    @property
    def raw(self) -> Mapping[str, Any]:
        """The JSON object it was read from."""
        ...


M = TypeVar("M", bound=Modelled)

_KINDS_BY_ROLE: dict[str, type[UserMessage] | type[AssistantMessage] | type[ToolResultMessage]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "toolResult": ToolResultMessage,
}


def parse_block(value: Any) -> Block:
    """Type one content item; anything we cannot type becomes an OpaqueBlock."""
    kind = value.get("type") if isinstance(value, dict) else None
    if not isinstance(kind, str):
        return OpaqueBlock(raw=value)
    if kind == "text" and isinstance(value.get("text"), str):
        return _from_raw(TextBlock, value)
    if kind in THINKING_TYPES:
        return _from_raw(ThinkingBlock, value)
    if kind in TOOL_CALL_TYPES:
        return _from_raw(ToolCallBlock, value)
    if kind == "image":
        return _from_raw(ImageBlock, value)
    return OpaqueBlock(raw=value)


def parse_message(value: Any) -> Message:
    """Type one message; an unknown role or an unusable content shape gives an OpaqueMessage."""
    role = value.get("role") if isinstance(value, dict) else None
    if role == "compactionSummary":
        return _from_raw(CompactionSummary, value)
    kind = _KINDS_BY_ROLE.get(role) if isinstance(role, str) else None
    content = _parse_content(value.get("content")) if kind is not None else None
    if kind is None or content is None:
        return OpaqueMessage(raw=value)
    return _from_raw(kind, value, content=content)


def parse_entry(value: Mapping[str, Any]) -> Entry:
    """Type one entry line (already known to be a JSON object)."""
    message = parse_message(value["message"]) if "message" in value else None
    return _from_raw(Entry, value, message=message)


def parse_header(value: Mapping[str, Any]) -> SessionHeader:
    """Type the header line (validity is checked by the caller via `.valid`)."""
    return _from_raw(SessionHeader, value)


def _parse_content(value: Any) -> Content | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return tuple(parse_block(item) for item in value)
    return None


def _from_raw(cls: type[M], raw: Mapping[str, Any], **typed: Any) -> M:
    values = {f.name: read_field(raw, f) for f in fields(cls) if "json" in f.metadata}
    return cls(**{**values, **typed}, raw=raw)


def read_field(raw: Mapping[str, Any], spec: Field[Any]) -> Any:
    """A modelled field's value in `raw`: its own key, else a fallback key holding a usable string."""
    value = raw.get(spec.metadata["json"])
    if is_usable_string(value):
        return value
    return next((raw[k] for k in spec.metadata["fallbacks"] if is_usable_string(raw.get(k))), value)


def is_one_of(value: Any, names: frozenset[str]) -> bool:
    """A string among `names`; any other JSON value is not (a list or an object cannot even be looked up)."""
    return isinstance(value, str) and value in names


def is_usable_string(value: object) -> TypeGuard[str]:
    """A string with something besides whitespace in it (what an id or a name must be)."""
    return isinstance(value, str) and bool(value.strip())
