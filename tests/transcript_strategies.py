"""Shared builders and Hypothesis strategies for the transcript tests (messages as session-file JSON)."""

from __future__ import annotations

from itertools import count
from typing import Any

from hypothesis import strategies as st

from compiler.transcript.model import Transcript, parse_message, to_json

# A 1x1 PNG, so strategies need no Pillow.
TINY_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


# ---------------------------------------------------------------------------------------------
# Builders, in the notation of the reference's test vectors: U(x), A[...], tc(id, name), R(id, text)


def text(value: str, **extra: Any) -> dict:
    return {"type": "text", "text": value, **extra}


def tc(call_id: Any, name: Any = "read", *, kind: str = "toolCall", args: Any = None, **extra: Any) -> dict:
    block = {"type": kind, "id": call_id, "name": name}
    if kind in ("toolUse", "tool_use"):
        block["input"] = {} if args is None else args
    else:
        block["arguments"] = {} if args is None else args
    return {**block, **extra}


def thinking(value: str = "hmm", signature: str | None = "sig", **extra: Any) -> dict:
    block = {"type": "thinking", "thinking": value}
    if signature is not None:
        block["thinkingSignature"] = signature
    return {**block, **extra}


def image(data: Any, mime_type: str = "image/png") -> dict:
    return {"type": "image", "data": data, "mimeType": mime_type}


def U(content: Any, **extra: Any) -> dict:
    return {"role": "user", "content": content, **extra}


def A(*blocks: dict, sr: Any = "stop", **extra: Any) -> dict:
    return {"role": "assistant", "content": list(blocks), "stopReason": sr, **extra}


def R(call_id: Any, body: str = "ok", name: Any = "read", **extra: Any) -> dict:
    result = {"role": "toolResult", "toolCallId": call_id, "toolName": name, "content": [text(body)], "isError": False}
    return {**result, **extra}


def png_base64(width: int, height: int) -> str:
    """A smooth-gradient PNG of the given size (compresses well, so big sizes stay small)."""
    import base64
    import io

    from PIL import Image

    picture = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def typed(*messages: dict) -> Transcript:
    return tuple(parse_message(m) for m in messages)


def plain(messages: Transcript) -> list:
    return [to_json(m) for m in messages]


# ---------------------------------------------------------------------------------------------
# Strategies

RAW_IDS = ["call_1", "call_2", "call1", "call|fc_1", "call_a|b", "call_a:b", "toolu_01A", "|||", "c" * 45]
NAMES = ["read", "read", "read", "exec", "exec", " read ", "bad name", ""]
WORDS = ["", "  ", "hi", "go on", "ok", "[x]"]
STOP_REASONS = ["stop", "stop", "toolUse", "toolUse", "toolUse", "error", "aborted", "length", None]


@st.composite
def transcripts(draw: st.DrawFn, max_size: int = 8) -> list[dict]:
    """Random histories as session-file message dicts: every role, broken shapes included.

    Tool results and user texts carry unique words (`result-N`, `user-N`) so tests can trace them.
    """
    serial = count()
    call_ids: list[str] = []
    messages = []
    for _ in range(draw(st.integers(0, max_size))):
        role = draw(st.sampled_from(["user", "assistant", "assistant", "toolResult", "toolResult", "compaction"]))
        stamp = 1000 + 10 * len(messages)
        if role == "user":
            messages.append(draw(_user(serial, stamp)))
        elif role == "assistant":
            messages.append(draw(_assistant(serial, stamp, call_ids)))
        elif role == "toolResult":
            messages.append(draw(_tool_result(serial, stamp, call_ids)))
        else:
            messages.append({"role": "compactionSummary", "summary": "earlier", "timestamp": stamp})
    return messages


@st.composite
def _user(draw: st.DrawFn, serial: count, stamp: int) -> dict:
    words = st.sampled_from(WORDS) | st.just(f"user-{next(serial)}")
    blocks = st.lists(words.map(text) | st.sampled_from([image("abc"), image(TINY_PNG_BASE64)]), max_size=3)
    message = U(draw(words | blocks), timestamp=stamp)
    if draw(st.booleans()):
        source = draw(st.sampled_from(["agent:main:x", " ", "agent:ops"]))
        message["provenance"] = {"kind": "inter_session", "sourceSessionKey": source, "sourceTool": "sessions_send"}
    return message


@st.composite
def _assistant(draw: st.DrawFn, serial: count, stamp: int, call_ids: list[str]) -> dict:
    blocks = draw(st.lists(_assistant_block(serial, call_ids), max_size=3))
    message = A(*blocks, sr=draw(st.sampled_from(STOP_REASONS)), timestamp=stamp)
    extras = draw(st.sampled_from(["none", "zero-usage", "usage", "mirror"]))
    if extras == "zero-usage":
        message["usage"] = {"input": 0, "output": 0}
    elif extras == "usage":
        message["usage"] = {"input": 12, "output": 3}
    elif extras == "mirror":
        message.update(provider="openclaw", model="delivery-mirror")
    return message


@st.composite
def _assistant_block(draw: st.DrawFn, serial: count, call_ids: list[str]) -> dict:
    kind = draw(st.sampled_from(["text", "thinking", "call", "call", "image"]))
    if kind == "text":
        return text(draw(st.sampled_from(WORDS)))
    if kind == "thinking":
        signature = draw(st.sampled_from([None, "", "sig", "c2lnbmF0dXJl"]))
        return thinking(signature=signature, thought_signature=draw(st.sampled_from(["msg_abc", "c2lnbmF0dXJl"])))
    if kind == "image":
        return image(draw(st.sampled_from(["abc", TINY_PNG_BASE64, ""])))
    call_id = draw(st.sampled_from(RAW_IDS) | st.just(f"fresh-{next(serial)}"))
    call_ids.append(call_id)
    block = tc(call_id, draw(st.sampled_from(NAMES)), kind=draw(st.sampled_from(["toolCall", "toolUse"])))
    if draw(st.integers(0, 5)) == 0:
        del block["arguments" if "arguments" in block else "input"]
    return block


@st.composite
def _tool_result(draw: st.DrawFn, serial: count, stamp: int, call_ids: list[str]) -> dict:
    call_id = draw(st.sampled_from(call_ids[-3:] + [None, "stray"]) if call_ids else st.sampled_from([None, "stray"]))
    body = draw(st.sampled_from(["", " "]) | st.just(f"result-{next(serial)}"))
    return R(call_id, body, name=draw(st.sampled_from(["read", "exec", ""])), timestamp=stamp)
