"""Transcript hygiene: repair session files on disk, and sanitise a history for replay to one provider."""

from .encode import to_json
from .model import (
    AssistantMessage,
    CompactionSummary,
    Entry,
    ImageBlock,
    Message,
    OpaqueBlock,
    OpaqueMessage,
    SessionHeader,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Transcript,
    UserMessage,
    parse_message,
)
from .policy import POLICY_TABLE, Policy, explain, resolve
from .repair import RepairReport, repair_file
from .sanitize import SanitizeOptions, sanitize
from .session import Session, read_session, replay_messages
from .texts import DEFAULT_TEXTS, Texts

__all__ = [
    "DEFAULT_TEXTS",
    "POLICY_TABLE",
    "AssistantMessage",
    "CompactionSummary",
    "Entry",
    "ImageBlock",
    "Message",
    "OpaqueBlock",
    "OpaqueMessage",
    "Policy",
    "RepairReport",
    "SanitizeOptions",
    "Session",
    "SessionHeader",
    "TextBlock",
    "Texts",
    "ThinkingBlock",
    "ToolCallBlock",
    "ToolResultMessage",
    "Transcript",
    "UserMessage",
    "explain",
    "parse_message",
    "read_session",
    "repair_file",
    "replay_messages",
    "resolve",
    "sanitize",
    "to_json",
]
