"""Shared builders and Hypothesis strategies for the transcript tests (messages as session-file JSON)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from itertools import count
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from promptc.transcript.encode import to_json
from promptc.transcript.model import Transcript, parse_message
from promptc.transcript.texts import DEFAULT_TEXTS

HEADER = {"type": "session", "version": 2, "id": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
"""A valid session-file header line."""

# A 1x1 PNG, so strategies need no Pillow.
TINY_PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


# ---------------------------------------------------------------------------------------------
# Builders, short so a history reads on one line: U(x) a user turn, A(...) an assistant turn of
# blocks, tc(id, name) a tool call, R(id, text) its result


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


def embedded_result(call_id: Any, body: Any = "42", **extra: Any) -> dict:
    """A tool result carried as a block inside a user turn (Anthropic-shaped histories)."""
    return {"type": "toolResult", "toolUseId": call_id, "content": body, **extra}


def typed(*messages: dict) -> Transcript:
    return tuple(parse_message(m) for m in messages)


def plain(messages: Transcript) -> list:
    return [to_json(m) for m in messages]


# ---------------------------------------------------------------------------------------------
# Session files


def entry(message: dict, n: int = 1, parent: str | None = None, **extra: Any) -> dict:
    """A `message` entry line with id `e<n>`."""
    return {"type": "message", "id": f"e{n}", "parentId": parent, "timestamp": "t", "message": message, **extra}


def jsonl(*objects: Any, ending: str = "\n") -> bytes:
    """JSON lines as the runtime writes them (json.dumps spacing), each ending in `ending`."""
    return "".join(json.dumps(o) + ending for o in objects).encode()


def write_session(tmp_path: Path, *messages: dict, name: str = "s.jsonl", tail: bytes = b"") -> Path:
    """A session file: HEADER, then one chained entry per message, then `tail` as raw bytes."""
    entries = [entry(m, i, f"e{i - 1}" if i else None) for i, m in enumerate(messages)]
    path = tmp_path / name
    path.write_bytes(jsonl(HEADER, *entries) + tail)
    return path


def dead_pid() -> int:
    """The pid of a process that has just ended (not reused in the moment a test takes)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


def aged_file(path: Path, seconds: float) -> Path:
    """A small file at `path` last written `seconds` ago."""
    path.write_bytes(b"partial copy")
    moment = time.time() - seconds
    os.utime(path, (moment, moment))
    return path


# ---------------------------------------------------------------------------------------------
# Strategies

RAW_IDS = [
    "call_1",
    "call_2",
    "call1",
    "call|fc_1",
    "call_a|b",
    "call_a:b",
    "toolu_01A",
    "|||",
    "c" * 45,
    "functions.read:0",
]
NAMES = ["read", "read", "read", "exec", "exec", " read ", "bad name", ""]
WORDS = ["", "  ", "hi", "go on", "ok", "[x]"]
OPENCLAW_FAILED_TURN = "[assistant turn failed before producing content]"
"""The stand-in OpenClaw writes into an empty failed turn (reference notes, section 9)."""
ASSISTANT_WORDS = [*WORDS, "NO_REPLY", " NO_REPLY\n", DEFAULT_TEXTS.failed_turn, OPENCLAW_FAILED_TURN]
"""Assistant texts: the silent-reply token and both failed-turn stand-ins (ours and OpenClaw's) among them."""
CALL_ID_KEYS = ["id", "id", "id", "call_id", "tool_call_id"]
"""Where a tool call keeps its id; some writers use `call_id` or `tool_call_id`."""
STAND_IN_RESULTS = [
    {"content": [{"type": "text", "text": DEFAULT_TEXTS.missing_tool_result}], "isError": True},
    {
        "content": [{"type": "text", "text": "aborted"}],
        "isError": True,
        "details": {"openclawSyntheticMissingToolResult": True},
    },
]
"""Stored synthetic results (ours, and one flagged the way OpenClaw flags its own)."""
REASONING_SIGNATURE = '{"id":"rs_1","type":"reasoning"}'
"""An OpenAI Responses reasoning item's signature."""
STOP_REASONS = ["stop", "stop", "toolUse", "toolUse", "toolUse", "error", "error", "aborted", "length", None]
SIGNATURE = "c2lnbmF0dXJl"
"""A thinking or thought signature in valid base64."""
THOUGHT_SIGNATURES = ["msg_01!", "msg_abc", SIGNATURE]
"""A Claude id that is not base64 (removed), one that is valid base64url (kept), a plain base64."""
CALL_KINDS = ("toolCall", "toolUse")
ROLES = ["user", "assistant", "assistant", "toolResult", "toolResult", "compaction", "again", "again"]
ROLES_AFTER_CALLS = ["toolResult", "toolResult", "answers", "answers", "user", "assistant", "compaction"]
"""After a turn with tool calls, results (as messages or inside a user turn) are the likely next rows."""

_HEADER, _NOTICE = DEFAULT_TEXTS.inter_session_header, DEFAULT_TEXTS.inter_session_notice
OLD_MARKERS = [
    f"{_HEADER}\n",
    f"{_HEADER} sourceSession=agent:old\n",
    f"{_HEADER} sourceSession=agent:old sourceTool=sessions_send isUser=false\n{_NOTICE}\n",
]
"""Complete markers an earlier run (or another build) may have left on a relayed user text."""
HEADER_LOOKALIKES = [
    f"{_HEADER} please water the plants",
    f"{_HEADER} urgent: call mom\nthanks",
    f"{_HEADER} sourceSession=a mood=grumpy\nhi",
    _HEADER,
    f"{_HEADER} isUser=false\n{_NOTICE}\n",
]
"""User texts that start like a marker but are not a marker with text under it: all of it is the user's."""


# Strategies that do not depend on the history drawn so far are built once: hypothesis checks every
# new strategy object, so building them per draw would cost these tests much of their time.
# `_MINE` stands for the turn's own unique word and is replaced after the draw.
_MINE = "\x00mine\x00"
_PICK_ROLE = st.sampled_from(ROLES)
_PICK_ROLE_AFTER_CALLS = st.sampled_from(ROLES_AFTER_CALLS)
_PICK_SUMMARY_STAMP = st.sampled_from(["turn", "turn", "first", "later"])
_USER_WORDS = (
    st.sampled_from(WORDS)
    | st.just(_MINE)
    | st.sampled_from(HEADER_LOOKALIKES)
    | st.sampled_from(OLD_MARKERS).map(lambda marker: marker + _MINE)
    | st.sampled_from(OLD_MARKERS).map(lambda marker: "forwarded:\n" + marker + _MINE)
)
_USER_CONTENT = _USER_WORDS | st.lists(
    _USER_WORDS.map(text) | st.sampled_from([image("abc"), image(TINY_PNG_BASE64)]), max_size=3
)
_PICK_SOURCE = st.sampled_from(["agent:main:x", " ", "agent:ops"])
_PICK_STOP_REASON = st.sampled_from(STOP_REASONS)
_PICK_EXTRAS = st.sampled_from(["none", "zero-usage", "usage", "mirror"])
_PICK_BLOCK_KIND = st.sampled_from(["text", "thinking", "call", "call", "image"])
_PICK_ASSISTANT_WORDS = st.sampled_from(ASSISTANT_WORDS)
_PICK_THOUGHT_SIGNATURE = st.sampled_from(THOUGHT_SIGNATURES)
_PICK_THINKING_SIGNATURE = st.sampled_from([None, "", "sig", SIGNATURE, REASONING_SIGNATURE])
_PICK_IMAGE_DATA = st.sampled_from(["abc", TINY_PNG_BASE64, ""])
_PICK_NAME = st.sampled_from(NAMES)
_PICK_CALL_KIND = st.sampled_from(CALL_KINDS)
_PICK_CALL_ID_KEY = st.sampled_from(CALL_ID_KEYS)
_CALL_ID = st.sampled_from(RAW_IDS) | st.just(_MINE)
_RESULT_BODY = st.sampled_from(["", " "]) | st.just(_MINE)
_PICK_RESULT_NAME = st.sampled_from(["read", "exec", ""])
_PICK_STAND_IN = st.sampled_from(STAND_IN_RESULTS)
_ONE_IN_4 = st.integers(0, 3)
_ONE_IN_5 = st.integers(0, 4)
_ONE_IN_6 = st.integers(0, 5)


def _as_mine(value: Any, mine: str) -> Any:
    """A drawn text, or list of blocks, with the `_MINE` placeholder replaced by the turn's word."""
    if isinstance(value, str):
        return value.replace(_MINE, mine)
    return [{**b, "text": _as_mine(b["text"], mine)} if "text" in b else b for b in value]


@st.composite
def transcripts(draw: st.DrawFn, max_size: int = 8) -> list[dict]:
    """Random histories as session-file message dicts: every role, broken shapes included.

    Tool results and user texts carry unique words (`result-N`, `user-N`) so tests can trace them;
    some user texts start with a complete old marker (OLD_MARKERS) or only look like one
    (HEADER_LOOKALIKES), some user turns carry a tool result block (`embedded_result`), and some
    assistant turns are shaped as Anthropic's are (signed thinking first, a call last).
    """
    serial = count()
    call_ids: list[str] = []
    messages = []
    role = "user"
    for _ in range(draw(st.integers(0, max_size))):
        made_calls = bool(messages) and any(b.get("type") in CALL_KINDS for b in _blocks(messages[-1]))
        # "again" repeats the previous role: retries and relays leave runs of same-role turns to merge.
        role = draw(_PICK_ROLE_AFTER_CALLS if made_calls else _PICK_ROLE).replace("again", role)
        stamp = 1000 + 10 * len(messages)
        if role in ("user", "answers"):
            messages.append(_user(draw, serial, stamp, call_ids, answering=role == "answers"))
        elif role == "assistant":
            messages.append(_assistant(draw, serial, stamp, call_ids))
        elif role == "toolResult":
            messages.append(_tool_result(draw, serial, stamp, call_ids))
        else:
            # Summaries may come out of time order (histories put together from several files).
            summary_stamp = {"turn": stamp, "first": 1000, "later": stamp + 1000}[draw(_PICK_SUMMARY_STAMP)]
            messages.append({"role": "compactionSummary", "summary": "earlier", "timestamp": summary_stamp})
    return messages


def _user(draw: st.DrawFn, serial: count, stamp: int, call_ids: list[str], answering: bool) -> dict:
    mine = f"user-{next(serial)}"
    if not answering or not call_ids:
        content = _as_mine(draw(_USER_CONTENT), mine)
    else:
        # Results carried in the user turn (Anthropic-shaped history), maybe with a line of text.
        answered = draw(st.lists(st.sampled_from(call_ids[-3:]), min_size=1, max_size=2))
        content = [embedded_result(i, f"inline-{next(serial)}") for i in answered]
        content += [text(_as_mine(draw(_USER_WORDS), mine))] if draw(st.booleans()) else []
    message = U(content, timestamp=stamp)
    if draw(st.booleans()):
        source = draw(_PICK_SOURCE)
        message["provenance"] = {"kind": "inter_session", "sourceSessionKey": source, "sourceTool": "sessions_send"}
    return message


def _blocks(message: dict) -> list:
    """The block dicts of a message dict (none for string content)."""
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _assistant(draw: st.DrawFn, serial: count, stamp: int, call_ids: list[str]) -> dict:
    blocks = [_assistant_block(draw, serial, call_ids) for _ in range(draw(st.integers(0, 3)))]
    if draw(_ONE_IN_4) == 0:
        # Anthropic-shaped: a model that signs its thinking writes it first, then its text and a call.
        call = tc(_call_id(draw, serial, call_ids), kind="toolUse", args={"path": "a"})
        blocks = [thinking(signature=SIGNATURE), *blocks, call]
    message = A(*blocks, sr=draw(_PICK_STOP_REASON), timestamp=stamp)
    extras = draw(_PICK_EXTRAS)
    if extras == "zero-usage":
        message["usage"] = {"input": 0, "output": 0}
    elif extras == "usage":
        message["usage"] = {"input": 12, "output": 3}
    elif extras == "mirror":
        message.update(provider="openclaw", model="delivery-mirror")
    return message


def _assistant_block(draw: st.DrawFn, serial: count, call_ids: list[str]) -> dict:
    kind = draw(_PICK_BLOCK_KIND)
    if kind == "text":
        block = text(draw(_PICK_ASSISTANT_WORDS))
        if draw(st.booleans()):
            block["thoughtSignature"] = draw(_PICK_THOUGHT_SIGNATURE)
        return block
    if kind == "thinking":
        return thinking(signature=draw(_PICK_THINKING_SIGNATURE), thought_signature=draw(_PICK_THOUGHT_SIGNATURE))
    if kind == "image":
        return image(draw(_PICK_IMAGE_DATA))
    call_id = _call_id(draw, serial, call_ids)
    block = tc(call_id, draw(_PICK_NAME), kind=draw(_PICK_CALL_KIND))
    id_key = draw(_PICK_CALL_ID_KEY)
    if id_key != "id":
        block = {(id_key if k == "id" else k): v for k, v in block.items()}
    if draw(st.booleans()):
        block["thoughtSignature"] = draw(_PICK_THOUGHT_SIGNATURE)
    if draw(_ONE_IN_6) == 0:
        del block["arguments" if "arguments" in block else "input"]
    return block


def _call_id(draw: st.DrawFn, serial: count, call_ids: list[str]) -> str:
    """A call id from a small shared set (so ids repeat across turns) or a fresh one, noted in `call_ids`
    for the results drawn later."""
    call_id = _as_mine(draw(_CALL_ID), f"fresh-{next(serial)}")
    call_ids.append(call_id)
    return call_id


def _tool_result(draw: st.DrawFn, serial: count, stamp: int, call_ids: list[str]) -> dict:
    call_id = draw(st.sampled_from(call_ids[-3:] + [None, "stray"]) if call_ids else st.sampled_from([None, "stray"]))
    body = _as_mine(draw(_RESULT_BODY), f"result-{next(serial)}")
    result = R(call_id, body, name=draw(_PICK_RESULT_NAME), timestamp=stamp)
    if draw(_ONE_IN_5) == 0:
        result.update(draw(_PICK_STAND_IN))  # a stand-in an earlier repair stored
    return result


# ---------------------------------------------------------------------------------------------
# Session files as bytes, for the on-disk repair

ODD_VALUES = [
    b"1e400",
    b"-0",
    b"1e-400",
    b"0.1000000000000000055511151231257827",
    b"7" * 5000,
    b'"caf\xc3\xa9"',
    b'"not utf-8 \xff\xfe"',
    b'"\\ud83d half"',
    b"[1.50, 2E+3]",
]
"""JSON values Python's own reader and writer would change or refuse (and bytes that are not UTF-8)."""
ODD_LINES = [
    b'{"type":"message"',
    b"not json",
    b"[1, 2]",
    b'{"x": NaN}',
    b"",
    b"   ",
    b'{"type":"message","id":"bad1","parentId":null,"message":{"role":null}}',
    b'{"type":"message","id":"bad2","message":"text"}',
]
"""Lines repair drops (or, blank ones, keeps)."""
REPAIR_MESSAGES = [
    A(tc("cm_1", "exec"), sr="toolUse", api="openai-chatgpt-responses", provider="openai"),
    A(tc("mt_1", "message"), sr="toolUse", api="openai-responses"),
    A(text("sent"), provider="openclaw", model="delivery-mirror"),
    U([text("see"), image("bm90IGFuIGltYWdl", "image/png")]),
    A(sr="error"),
]
"""Rows that need an on-disk fix: calls without results, a mirror, an image that is not one, an empty failed turn."""


@st.composite
def session_files(draw: st.DrawFn, wrong_types: bool = False) -> list[bytes]:
    """A session file as lines of bytes (no endings): the header, then entries chained by `parentId`,
    each maybe carrying an odd value, with odd lines in between; with `wrong_types`, a few message and
    block keys hold values of any JSON type (see `misshapen`)."""
    messages = draw(transcripts(max_size=6)) + draw(st.lists(st.sampled_from(REPAIR_MESSAGES), max_size=3))
    messages = draw(st.permutations(messages))
    messages = draw(misshapen(messages)) if wrong_types else messages
    lines = [json.dumps(HEADER).encode()]
    for n, message in enumerate(messages):
        line = json.dumps(entry(message, n, f"e{n - 1}" if n else None)).encode()
        if draw(st.integers(0, 2)) == 0:
            line = line[:-1] + b', "odd": ' + draw(st.sampled_from(ODD_VALUES)) + b"}"
        lines.append(line)
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(ODD_LINES)))
    return lines


# ---------------------------------------------------------------------------------------------
# Values of the wrong JSON type

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "error", "user", "toolCall", "call_1"]),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["type", "kind", "id"]), inner, max_size=2)
    ),
    max_leaves=4,
)
"""Any JSON value, lists and objects included (which no set or dict lookup can take as a key)."""
MISSHAPEN_KEYS = [
    "role",
    "content",
    "stopReason",
    "provider",
    "model",
    "openclawDeliveryMirror",
    "provenance",
    "usage",
    "api",
    "toolCallId",
    "toolUseId",
    "toolName",
    "type",
    "id",
    "call_id",
    "name",
    "arguments",
    "partialJson",
    "text",
    "thinking",
    "thinkingSignature",
    "data",
    "mimeType",
    "toolUseId",
]
"""Keys, of a message or of one of its blocks, that the transforms read."""


@st.composite
def misshapen(draw: st.DrawFn, messages: list[dict]) -> list[dict]:
    """`messages` with a few keys (of a message, of a block, or of a mirror or provenance object) set
    to a JSON value of any type."""
    out = json.loads(json.dumps(messages))
    for _ in range(draw(st.integers(1, 3)) if out else 0):
        message = draw(st.sampled_from(out))
        targets = [message, *_blocks(message)]
        targets += [v for v in message.values() if isinstance(v, dict)]
        draw(st.sampled_from(targets))[draw(st.sampled_from(MISSHAPEN_KEYS))] = draw(JSON_VALUES)
    return out
