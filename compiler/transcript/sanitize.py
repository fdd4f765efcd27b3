"""Replay sanitising: run the policy's transforms, in the fixed order of policy.TRANSFORM_ORDER."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import ids, images, normalize, pairing, provenance, thinking, tool_inputs, turns
from . import policy as p
from .model import Message, Transcript
from .texts import DEFAULT_TEXTS, Texts


@dataclass(frozen=True, slots=True)
class SanitizeOptions:
    """Settings that do not depend on the provider."""

    image_max_dimension_px: int = images.DEFAULT_MAX_SIDE_PX
    """Longest image side allowed (`agents.defaults.imageMaxDimensionPx`)."""
    allowed_tool_names: frozenset[str] | None = None
    """When set, tool calls naming any other tool are dropped (compared case-insensitively)."""
    texts: Texts = DEFAULT_TEXTS
    """Placeholder and marker wording."""


Step = Callable[[Transcript, p.Policy, SanitizeOptions], Transcript]


def _rewrite_ids(messages: Transcript, policy: p.Policy, options: SanitizeOptions) -> Transcript:
    """The policy's id form for every call and result; a policy without one (`ids` None) keeps the ids."""
    if policy.ids is None:
        return messages
    return ids.rewrite_tool_call_ids(
        messages,
        policy.ids,
        policy.keep_native_anthropic_ids,
        keep_native_kimi_ids=policy.keep_native_kimi_ids,
        signed_thinking=policy.signed_thinking_replay,
        allowed_names=options.allowed_tool_names,
    )


STEPS: dict[str, Step] = {
    p.INTER_SESSION_MARKER: lambda m, _, o: provenance.mark_inter_session(m, o.texts),
    p.TRANSCRIPT_ONLY_ROWS: lambda m, _, o: normalize.drop_transcript_only_rows(m),
    p.EMPTY_TEXT: lambda m, _, o: normalize.clean_empty_text(m, o.texts),
    p.IMAGES: lambda m, pol, o: images.sanitize_images(
        m, o.image_max_dimension_px, o.texts, images.MAX_IMAGE_BYTES if pol.base64_image_limit else None
    ),
    p.TOOL_CALL_INPUTS: lambda m, pol, o: tool_inputs.validate_tool_call_inputs(
        m, o.allowed_tool_names, pol.signed_thinking_replay
    ),
    p.INCOMPLETE_REASONING_TURNS: lambda m, _, o: normalize.drop_incomplete_reasoning_turns(m),
    p.TOOL_CALL_IDS: _rewrite_ids,
    p.TOOL_RESULT_PAIRING: lambda m, pol, o: pairing.repair_pairing(
        m, pairing.RESPONSES_MISSING_RESULT if pol.responses_api else o.texts.missing_tool_result, o.texts
    ),
    p.RESPONSES_REASONING: lambda m, _, o: thinking.drop_orphan_reasoning(m),
    p.RESPONSES_CALL_IDS: lambda m, _, o: ids.downgrade_responses_call_ids(m),
    p.THOUGHT_SIGNATURES: lambda m, _, o: thinking.strip_thought_signatures(m),
    p.UNSIGNED_THINKING: lambda m, _, o: thinking.strip_unsigned_thinking(m, o.texts.omitted_reasoning),
    p.HISTORICAL_THINKING: lambda m, _, o: thinking.drop_historical_thinking(m, o.texts.omitted_reasoning),
    p.GEMINI_TURNS: lambda m, _, o: turns.merge_consecutive_assistants(m),
    p.TRAILING_FAILED_TURNS: lambda m, _, o: normalize.drop_trailing_failed_turns(m, o.texts),
    p.BOOTSTRAP_USER_TURN: lambda m, _, o: turns.prepend_bootstrap_turn(m, o.texts.bootstrap_user_turn),
    # Stripping a dangling call can take away every turn after a failed-turn stand-in, leaving it
    # last again: the replay still must not end on one.
    p.ANTHROPIC_TURNS: lambda m, pol, o: normalize.drop_trailing_failed_turns(
        turns.validate_anthropic_turns(m, o.texts.omitted_tool_calls, pol.signed_thinking_replay), o.texts
    ),
}


def sanitize(messages: Sequence[Message], policy: p.Policy, options: SanitizeOptions = SanitizeOptions()) -> Transcript:
    """The replay copy of a history for one provider; the input is not changed."""
    result = tuple(messages)
    for name in policy.transforms:
        result = STEPS[name](result, policy, options)
    return result
