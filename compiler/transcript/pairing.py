"""Tool-result pairing: every tool call followed by exactly one result, in call order.

A frame is an assistant turn with tool calls plus everything up to the next such turn. Results
are matched inside their frame, may move back to an earlier frame that is their only possible
owner, and are dropped otherwise. A result embedded in a later row of the frame, before the next
assistant turn (a `toolResult` block in the user turn, see answers.py), answers its call in place:
the call gets no synthetic result and adopts no stray one (a result message of its own frame is
still kept, so no real output is lost); one that answers no call of the turn before it is removed
(answers.drop_orphan_embedded). A missing result gets a synthetic error result, except in
a failed (`error`/`aborted`) turn: its calls never completed, so they and their results go.

A stored stand-in (a synthetic result some earlier repair wrote, see synthetic.py) holds its call's
place only until the real result turns up: a real result in the frame, or a stray one that may move
back, takes its place, and a call answered inside the user turn drops it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import chain

from .answers import answers_until_next_assistant, drop_orphan_embedded, embedded_ids
from .model import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    Transcript,
    is_one_of,
)
from .queries import blocks_of, is_failed, tool_calls
from .synthetic import is_stand_in
from .texts import DEFAULT_TEXTS, Texts

StandIn = Callable[[ToolResultMessage], bool]

RESPONSES_MISSING_RESULT = "aborted"
"""What OpenAI Responses-family APIs expect as the output of a call that never finished (protocol value)."""


@dataclass
class _Frame:
    """Working state for one frame while results are matched (local to one repair call)."""

    assistant: AssistantMessage | None
    calls: tuple[ToolCallBlock, ...] = ()
    results: list[ToolResultMessage | None] = field(default_factory=list)
    rest: list[Message] = field(default_factory=list)
    candidates: list[ToolResultMessage] = field(default_factory=list)
    inline: frozenset[str] = frozenset()
    """Call ids answered by results embedded in the frame's own turns (before any other assistant turn)."""

    @property
    def open(self) -> bool:
        """Can this frame own results? Only a completed turn's calls can."""
        return self.assistant is not None and not is_failed(self.assistant)

    @property
    def failed(self) -> AssistantMessage | None:
        """The frame's turn when it failed (its calls never completed), else None."""
        return self.assistant if self.assistant is not None and is_failed(self.assistant) else None

    def takes(self, slot: int, result: ToolResultMessage, stand_in: StandIn) -> bool:
        """May `result` fill call `slot`? Only when nothing real holds it and no embedded answer does."""
        if is_one_of(self.calls[slot].id, self.inline):
            return False
        held = self.results[slot]
        return held is None or _weaker(held, result, stand_in)


def _weaker(held: ToolResultMessage, result: ToolResultMessage, stand_in: StandIn) -> bool:
    """A stand-in gives way to a real result (never to another stand-in)."""
    return stand_in(held) and not stand_in(result)


def repair_pairing(messages: Transcript, missing_text: str, texts: Texts = DEFAULT_TEXTS) -> Transcript:
    """Move, drop and synthesise tool results so each call is answered once, right after its turn.

    `missing_text` is the body of new synthetic results; `texts` says which stored ones are ours.
    """
    stand_in: StandIn = lambda result: is_stand_in(result, texts)  # noqa: E731
    frames = _split_frames(messages)
    for index, frame in enumerate(frames):
        frame.inline = embedded_ids(answers_until_next_assistant(_rows_after(frames, index)))
    unclaimed = [(index, r) for index, frame in enumerate(frames) for r in _claim_own_results(frame, stand_in)]
    for position, result in unclaimed:
        _adopt(result, position, frames, stand_in)
    return drop_orphan_embedded(tuple(chain.from_iterable(_emit(frame, missing_text, stand_in) for frame in frames)))


def _split_frames(messages: Transcript) -> list[_Frame]:
    frames = [_Frame(assistant=None)]
    for message in messages:
        calls = tool_calls(message)
        if isinstance(message, AssistantMessage) and calls:
            frames.append(_Frame(message, calls, [None] * len(calls)))
        elif isinstance(message, ToolResultMessage):
            frames[-1].candidates.append(message)
        else:
            frames[-1].rest.append(message)
    return frames


def _rows_after(frames: list[_Frame], index: int) -> list[Message]:
    """The rows that will follow frame `index`'s results in the output: its own, then those of the failed
    turns after it that are left out whole (they were nothing but calls), as they close up behind it."""
    rows = list(frames[index].rest)
    for later in frames[index + 1 :]:
        if any(isinstance(m, AssistantMessage) for m in rows) or not later.failed or _without_calls(later.failed):
            break
        rows += later.rest
    return rows


def _claim_own_results(frame: _Frame, stand_in: StandIn) -> list[ToolResultMessage]:
    """Fill the frame's call slots; return the results it cannot own. Duplicates vanish.

    Results quoting a call id go first, so one that lost its id never displaces a real answer.
    """
    if not frame.open:
        return list(frame.candidates)
    ids = [call.id for call in frame.calls]
    quoting = [r for r in frame.candidates if r.answers in ids]
    for result in quoting:
        _fill(frame, result, stand_in)
    unclaimed = []
    for result in (r for r in frame.candidates if r.answers not in ids):
        if _adoptable_without_id(frame, result, stand_in):
            frame.results[0] = _answered(replace(result.answering(frame.calls[0].id), is_error=True), frame.calls[0])
        else:
            unclaimed.append(result)
    return unclaimed


def _fill(frame: _Frame, result: ToolResultMessage, stand_in: StandIn) -> None:
    """Put a result quoting a call id in the first empty slot of that call, else over a stand-in there.

    An embedded answer does not stop it: a result message of the call's own frame is real output too.
    """
    slots = [slot for slot, call in enumerate(frame.calls) if call.id == result.answers]
    held = [(slot, frame.results[slot]) for slot in slots]
    empty = [slot for slot, current in held if current is None]
    weaker = [slot for slot, current in held if current is not None and _weaker(current, result, stand_in)]
    for slot in (empty or weaker)[:1]:
        frame.results[slot] = _answered(result, frame.calls[slot])


def _adoptable_without_id(frame: _Frame, result: ToolResultMessage, stand_in: StandIn) -> bool:
    """A result that lost its id may answer the frame's only call if the names do not disagree."""
    no_id = not isinstance(result.answers, str) or not result.answers.strip()
    return (
        no_id
        and len(frame.calls) == 1
        and frame.takes(0, result, stand_in)
        and (_blank(result.tool_name) or result.tool_name == frame.calls[0].name)
    )


def _adopt(result: ToolResultMessage, position: int, frames: list[_Frame], stand_in: StandIn) -> None:
    """Move a stray result to an earlier frame, but only when exactly one open call anywhere fits it."""
    owners = [
        (index, slot)
        for index, frame in enumerate(frames)
        if frame.open
        for slot, call in enumerate(frame.calls)
        if call.id == result.answers and frame.takes(slot, result, stand_in)
    ]
    if len(owners) == 1 and owners[0][0] < position:
        index, slot = owners[0]
        frames[index].results[slot] = _answered(result, frames[index].calls[slot])


def _answered(result: ToolResultMessage, call: ToolCallBlock) -> ToolResultMessage:
    """A matched result, with a blank tool name filled in from its call."""
    return replace(result, tool_name=call.name) if _blank(result.tool_name) else result


def _emit(frame: _Frame, missing_text: str, stand_in: StandIn) -> list[Message]:
    if frame.assistant is None:
        return frame.rest
    if not frame.open:
        return _without_calls(frame.assistant) + frame.rest
    answers = []
    for result, call in zip(frame.results, frame.calls, strict=True):
        if is_one_of(call.id, frame.inline):
            # Answered in the user turn: a real result message is kept beside it, a stand-in is not.
            answers += [result] if result is not None and not stand_in(result) else []
        else:
            answers.append(result or _synthetic(frame.assistant, call, missing_text))
    return [frame.assistant, *answers, *frame.rest]


def _without_calls(assistant: AssistantMessage) -> list[Message]:
    """A failed turn keeps what it said; a turn that was nothing but calls is left out."""
    kept = tuple(b for b in blocks_of(assistant) if not isinstance(b, ToolCallBlock))
    return [replace(assistant, content=kept)] if kept else []


def _synthetic(assistant: AssistantMessage, call: ToolCallBlock, text: str) -> ToolResultMessage:
    # The timestamp is the turn's own, so output does not depend on the clock.
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name if not _blank(call.name) else "unknown",
        content=(TextBlock(text=text),),
        is_error=True,
        timestamp=assistant.timestamp,
    )


def _blank(value: object) -> bool:
    return not isinstance(value, str) or not value.strip()
