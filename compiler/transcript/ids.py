"""Tool-call id sanitising: provider-safe ids that stay unique and keep calls and results paired."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict, deque
from dataclasses import replace
from itertools import count

from .answers import rename_embedded
from .model import (
    AssistantMessage,
    Block,
    Message,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Transcript,
)
from .queries import tool_calls
from .thinking import replayable_reasoning
from .tool_inputs import NOTHING_AS_IS, replay_as_is

STRICT_MAX = 40
STRICT9_LENGTH = 9
# Fallback ids are identifiers, not prose; they match the reference system so ids stay stable
# for sessions that move between the two.
STRICT_EMPTY = "defaulttoolid"
STRICT_NO_ALNUM = "sanitizedtoolid"
STRICT9_EMPTY = "defaultid"
NATIVE_ANTHROPIC_ID = re.compile(r"toolu_[A-Za-z0-9_]+")
NATIVE_KIMI_ID = re.compile(r"functions\.[A-Za-z0-9_-]+:\d+")
"""Ids Kimi models give their calls (`functions.read:0`); they check them when the call is replayed."""
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def strict_id(raw: object) -> str:
    """Alphanumerics only; a fallback when nothing is left."""
    if not isinstance(raw, str) or not raw:
        return STRICT_EMPTY
    return _NOT_ALNUM.sub("", raw) or STRICT_NO_ALNUM


def strict9_id(raw: object) -> str:
    """Exactly nine alphanumerics (Mistral): the first nine, else a hash of what there is."""
    if not isinstance(raw, str) or not raw:
        return STRICT9_EMPTY
    alnum = _NOT_ALNUM.sub("", raw)
    if len(alnum) >= STRICT9_LENGTH:
        return alnum[:STRICT9_LENGTH]
    return sha256_hex(alnum or "sanitized")[:STRICT9_LENGTH]


def unique_strict(seed: str, used: set[str]) -> str:
    """A strict id for `seed` not in `used`: the plain form, else a hash suffix, else a counter."""
    base = strict_id(seed)[:STRICT_MAX]
    if base not in used:
        return base
    hashed = base[: STRICT_MAX - 8] + sha256_hex(seed)[:8]
    candidates = (hashed[: STRICT_MAX - len(f"x{n}")] + f"x{n}" for n in count(2))
    return hashed if hashed not in used else next(c for c in candidates if c not in used)


def unique_strict9(seed: str, used: set[str]) -> str:
    """A strict9 id for `seed` not in `used`: the plain form, else hashes of `seed:0`, `seed:1`, …"""
    plain = strict9_id(seed)
    if plain not in used:
        return plain
    hashed = (sha256_hex(f"{seed}:{i}")[:STRICT9_LENGTH] for i in count())
    return next(h for h in hashed if h not in used)


_UNIQUE = {"strict": unique_strict, "strict9": unique_strict9}


class _IdMap:
    """Walks a transcript once; each call's new id is queued under its raw id for its result.

    A result message may answer a call of any earlier turn (pairing can move it back), but a result
    embedded in a later row only answers the latest assistant turn, which is how pairing reads it.
    """

    def __init__(self, mode: str, native: tuple[re.Pattern[str], ...], reserved: frozenset[str]) -> None:
        self.unique = _UNIQUE[mode]
        self.native = native
        self.used: set[str] = set(reserved)
        self.calls_seen: Counter[str] = Counter()
        self.orphans_seen: Counter[str] = Counter()
        self.pending: defaultdict[str, deque[str]] = defaultdict(deque)
        self.latest_turn: defaultdict[str, deque[str]] = defaultdict(deque)
        self.last_given: dict[str, str] = {}

    def start_turn(self) -> None:
        """An assistant turn begins: embedded results after it answer only its calls."""
        self.latest_turn = defaultdict(deque)

    def for_call(self, raw: str) -> str:
        """A new, unused id for a call; a raw id repeated across turns gets a new seed each time."""
        self.calls_seen[raw] += 1
        n = self.calls_seen[raw]
        native = n == 1 and self._native(raw) and raw not in self.used
        new = raw if native else self.unique(raw if n == 1 else f"{raw}:{n}", self.used)
        return self._claim(new, raw)

    def keep_call(self, raw: str) -> str:
        """A call replayed as stored keeps its id (already reserved); its result will quote it."""
        return self._claim(raw, raw)

    def for_result(self, raw: str) -> str:
        """The id of the call this result answers; an orphan keeps a provider-safe id, or gets a fresh one.

        A second result for a call already answered keeps pointing at that call (the latest with its raw
        id): pairing decides between them, and the later one may be the real result of a stand-in.
        """
        if self.pending[raw]:
            return self.pending[raw].popleft()
        if raw in self.last_given:
            return self.last_given[raw]
        return self._orphan(raw)

    def for_embedded(self, raw: str) -> str:
        """The id of the latest turn's call this embedded result answers; otherwise it is an orphan."""
        if self.latest_turn[raw]:
            return self.latest_turn[raw].popleft()
        return self._orphan(raw)

    def _orphan(self, raw: str) -> str:
        """An orphan keeps an id that is already provider-safe and unused, else gets a fresh one."""
        if raw not in self.used and (self._native(raw) or self.unique(raw, self.used) == raw):
            # Already safe (e.g. an id this step gave out before): renaming it again would not be idempotent.
            self.used.add(raw)
            return raw
        self.orphans_seen[raw] += 1
        new = self.unique(f"{raw}:tool_result:{self.orphans_seen[raw]}", self.used)
        self.used.add(new)
        return new

    def _native(self, raw: str) -> bool:
        """An id in a provider's own shape (`toolu_…`, `functions.x:0`) that this policy replays as issued."""
        return any(pattern.fullmatch(raw) for pattern in self.native)

    def _claim(self, new: str, raw: str) -> str:
        self.used.add(new)
        self.pending[raw].append(new)
        self.latest_turn[raw].append(new)
        self.last_given[raw] = new
        return new


def rewrite_tool_call_ids(
    messages: Transcript,
    mode: str,
    keep_native_anthropic_ids: bool = False,
    *,
    keep_native_kimi_ids: bool = False,
    signed_thinking: bool = False,
    allowed_names: frozenset[str] | None = None,
) -> Transcript:
    """Give every tool call and result a provider-safe id (`strict` or `strict9`), keeping pairs matched.

    Native ids are kept when asked (first use only). With `signed_thinking`, turns that replay exactly
    as stored (tool_inputs.replay_as_is) keep their ids, and no other call may take one of them.
    """
    wanted = ((NATIVE_ANTHROPIC_ID, keep_native_anthropic_ids), (NATIVE_KIMI_ID, keep_native_kimi_ids))
    native = tuple(pattern for pattern, kept in wanted if kept)
    lowered = None if allowed_names is None else frozenset(n.lower() for n in allowed_names)
    as_is = replay_as_is(messages, lowered) if signed_thinking else NOTHING_AS_IS
    ids = _IdMap(mode, native, as_is.ids)
    return tuple(_rewrite_message(m, ids, index in as_is.turns) for index, m in enumerate(messages))


def _rewrite_message(message: Message, ids: _IdMap, as_stored: bool = False) -> Message:
    """New ids for a turn's calls, for a result message, or for the results embedded in a turn."""
    if isinstance(message, AssistantMessage):
        ids.start_turn()
        if as_stored:
            for call in tool_calls(message):
                ids.keep_call(call.id)
            return message
        if isinstance(message.content, str):
            return message
        return replace(message, content=tuple(_rewrite_call(b, ids) for b in message.content))
    if isinstance(message, ToolResultMessage) and isinstance(message.answers, str) and message.answers:
        return message.answering(ids.for_result(message.answers))
    return rename_embedded(message, ids.for_embedded)


def _rewrite_call(block: Block, ids: _IdMap) -> Block:
    if isinstance(block, ToolCallBlock) and isinstance(block.id, str):
        new = ids.for_call(block.id)
        return block if new == block.id and block.raw.get("id") == new else block.with_id(new)
    return block


def downgrade_responses_call_ids(messages: Transcript) -> Transcript:
    """Drop the `|fc_…` item half of OpenAI Responses call ids that no reasoning item precedes.

    A `call|fc_item` id replays a function-call item that belongs to a reasoning item; without
    that reasoning in the same turn the API rejects the pair, so only the call id is kept (and the
    results answering the turn are renamed to match: the result messages right after it, and
    results embedded in the turns up to the next assistant turn).
    """
    out: list[Message] = []
    renamed: dict[str, str] = {}
    results_follow = False
    for message in messages:
        if isinstance(message, AssistantMessage):
            renamed, results_follow = {}, True
            if not isinstance(message.content, str):
                message = replace(message, content=_downgrade_turn(message.content, renamed))
        elif isinstance(message, ToolResultMessage):
            if results_follow and isinstance(message.answers, str) and message.answers in renamed:
                message = message.answering(renamed[message.answers])
        else:
            results_follow = False
            message = rename_embedded(message, renamed.get)
        out.append(message)
    return tuple(out)


def _downgrade_turn(blocks: tuple[Block, ...], renamed: dict[str, str]) -> tuple[Block, ...]:
    out: list[Block] = []
    reasoning_seen = False
    for block in blocks:
        reasoning_seen = reasoning_seen or (isinstance(block, ThinkingBlock) and replayable_reasoning(block))
        if isinstance(block, ToolCallBlock) and isinstance(block.id, str) and not reasoning_seen:
            call_id, _, item = block.id.partition("|")
            if item.startswith("fc_"):
                renamed[block.id] = call_id
                block = block.with_id(call_id)
        out.append(block)
    return tuple(out)
