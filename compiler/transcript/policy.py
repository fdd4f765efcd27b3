"""Which replay transforms a provider gets: the provider-family table and the rules that pick a row."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

# Transform names, in pipeline order (sanitize.sanitize runs a policy's sanitize.STEPS in exactly this order).
INTER_SESSION_MARKER = "inter_session_marker"
TRANSCRIPT_ONLY_ROWS = "transcript_only_rows"
EMPTY_TEXT = "empty_text"
IMAGES = "images"
TOOL_CALL_INPUTS = "tool_call_inputs"
INCOMPLETE_REASONING_TURNS = "incomplete_reasoning_turns"
TOOL_CALL_IDS = "tool_call_ids"
TOOL_RESULT_PAIRING = "tool_result_pairing"
RESPONSES_REASONING = "responses_reasoning"
RESPONSES_CALL_IDS = "responses_call_ids"
THOUGHT_SIGNATURES = "thought_signatures"
UNSIGNED_THINKING = "unsigned_thinking"
HISTORICAL_THINKING = "historical_thinking"
GEMINI_TURNS = "gemini_turns"
TRAILING_FAILED_TURNS = "trailing_failed_turns"
BOOTSTRAP_USER_TURN = "bootstrap_user_turn"
ANTHROPIC_TURNS = "anthropic_turns"

TRANSFORM_ORDER = (
    INTER_SESSION_MARKER,
    TRANSCRIPT_ONLY_ROWS,
    EMPTY_TEXT,
    IMAGES,
    TOOL_CALL_INPUTS,
    # After input validation: dropping a bad call can leave a turn that is only reasoning.
    INCOMPLETE_REASONING_TURNS,
    # Before the ids: a turn replayed as stored (signed thinking) is judged by the thinking it keeps.
    UNSIGNED_THINKING,
    TOOL_CALL_IDS,
    TOOL_RESULT_PAIRING,
    RESPONSES_REASONING,
    RESPONSES_CALL_IDS,
    HISTORICAL_THINKING,
    GEMINI_TURNS,
    # After the merge: a failed turn's blocks keep their signatures, but once merged into a completed
    # turn they are checked like any other (before it, a second pass would still find work to do).
    THOUGHT_SIGNATURES,
    TRAILING_FAILED_TURNS,
    BOOTSTRAP_USER_TURN,
    ANTHROPIC_TURNS,
)

# Every provider gets these: they only remove what no provider can use, or answer what every
# provider requires (each tool call followed by its result).
EVERY_POLICY = frozenset(
    {
        INTER_SESSION_MARKER,
        TRANSCRIPT_ONLY_ROWS,
        INCOMPLETE_REASONING_TURNS,
        EMPTY_TEXT,
        IMAGES,
        TOOL_CALL_INPUTS,
        TOOL_RESULT_PAIRING,
        TRAILING_FAILED_TURNS,
    }
)


@dataclass(frozen=True, slots=True)
class Policy:
    """One provider family's replay rules."""

    name: str
    """Family name, e.g. `anthropic`."""
    ids: str | None
    """Tool-call id mode: `strict` (alphanumerics, <= 40 chars), `strict9` (exactly 9) or None (kept)."""
    extra: frozenset[str]
    """Transforms this family adds to EVERY_POLICY (plus `tool_call_ids` when `ids` is set)."""
    keep_native_anthropic_ids: bool = False
    """Leave `toolu_…` ids as they are (Anthropic issued them and checks them)."""
    responses_api: bool = False
    """An OpenAI Responses-family API: a missing tool output is answered with `aborted`."""
    base64_image_limit: bool = False
    """The provider also limits an image's base64 text (Anthropic's Messages API), not only its bytes."""
    keep_native_kimi_ids: bool = False
    """Leave `functions.<name>:<n>` ids as they are (set by `resolve` for a Kimi model on a strict row)."""
    signed_thinking_replay: bool = False
    """Replay turns with signed thinking exactly as stored when their calls allow it (set by `resolve`)."""
    why: str = ""
    """Why this row was chosen for the request (filled in by `resolve`)."""

    @property
    def transforms(self) -> tuple[str, ...]:
        """Names of the transforms that run, in pipeline order."""
        on = EVERY_POLICY | self.extra | ({TOOL_CALL_IDS} if self.ids else set())
        return tuple(name for name in TRANSFORM_ORDER if name in on)


def _row(
    name: str, ids: str | None, *extra: str, toolu: bool = False, responses: bool = False, base64: bool = False
) -> Policy:
    return Policy(
        name, ids, frozenset(extra), keep_native_anthropic_ids=toolu, responses_api=responses, base64_image_limit=base64
    )


_ANTHROPIC_STYLE = (UNSIGNED_THINKING, ANTHROPIC_TURNS)
_GEMINI_STYLE = (GEMINI_TURNS, BOOTSTRAP_USER_TURN)

# One row per provider family. Read across: id mode, then what the family adds to EVERY_POLICY.
POLICY_TABLE: dict[str, Policy] = {
    p.name: p
    for p in (
        #     family                  ids        added transforms
        _row("openai-responses", None, RESPONSES_REASONING, RESPONSES_CALL_IDS, responses=True),
        _row("openai", "strict"),
        _row("openai-compatible", "strict", HISTORICAL_THINKING, *_GEMINI_STYLE, ANTHROPIC_TURNS),
        _row("google", "strict", THOUGHT_SIGNATURES, *_GEMINI_STYLE),
        _row("anthropic", "strict", *_ANTHROPIC_STYLE, toolu=True, base64=True),
        _row("anthropic-compatible", "strict", *_ANTHROPIC_STYLE, base64=True),
        _row("bedrock", "strict", *_ANTHROPIC_STYLE),
        _row("mistral", "strict9"),
        _row("openrouter-gemini", None, THOUGHT_SIGNATURES),
        _row("default", None),
    )
}

GOOGLE_PROVIDERS = frozenset({"google", "google-gemini-cli", "google-vertex", "google-antigravity"})
ANTHROPIC_PROVIDERS = frozenset({"anthropic", "anthropic-vertex"})
OPENAI_PROVIDERS = frozenset({"openai", "openai-codex", "azure-openai", "azure-openai-responses"})
PASSTHROUGH_PROVIDERS = frozenset({"openrouter", "opencode", "kilocode"})
RESPONSES_APIS = frozenset(
    {
        "openai-responses",
        "openai-codex-responses",
        "openai-chatgpt-responses",
        "azure-openai-responses",
    }
)
MISTRAL_MODEL_WORDS = ("mistral", "mixtral", "codestral", "pixtral", "devstral", "ministral", "mistralai")
KIMI_PROVIDERS = frozenset({"moonshot", "kimi", "kimi-coding"})
SIGNED_THINKING_APIS = frozenset({"anthropic-messages", "bedrock-converse-stream"})
"""APIs whose thinking signatures the provider checks when a turn is replayed to it."""


@dataclass(frozen=True, slots=True)
class Request:
    """The three facts a policy is chosen from, normalised (trimmed, lower-case)."""

    provider: str
    """Provider id, e.g. `anthropic`."""
    model_api: str
    """Transport API, e.g. `anthropic-messages`."""
    model: str
    """Model id, e.g. `claude-sonnet-4-5`."""


# First matching rule wins; the text is what `promptc transcript policy` prints as the reason.
FAMILY_RULES: tuple[tuple[str, str, Callable[[Request], bool]], ...] = (
    (
        "mistral",
        "the provider is mistral or the model id names a Mistral model",
        lambda r: r.provider == "mistral" or any(w in r.model for w in MISTRAL_MODEL_WORDS),
    ),
    (
        "openrouter-gemini",
        "a passthrough router serves a Gemini model",
        lambda r: r.provider in PASSTHROUGH_PROVIDERS and "gemini" in r.model,
    ),
    (
        "google",
        "a Google provider or a google-* API",
        lambda r: r.provider in GOOGLE_PROVIDERS or r.model_api.startswith("google-"),
    ),
    (
        "bedrock",
        "the Bedrock Converse API or the amazon-bedrock provider",
        lambda r: r.model_api == "bedrock-converse-stream" or r.provider == "amazon-bedrock",
    ),
    ("anthropic", "Anthropic's own provider", lambda r: r.provider in ANTHROPIC_PROVIDERS),
    (
        "anthropic-compatible",
        "another provider speaking the anthropic-messages API",
        lambda r: r.model_api == "anthropic-messages",
    ),
    ("openai-responses", "an OpenAI Responses-family API", lambda r: r.model_api in RESPONSES_APIS),
    ("openai", "an OpenAI provider on a non-Responses API", lambda r: r.provider in OPENAI_PROVIDERS),
    (
        "openai-compatible",
        "another provider on the openai-completions API",
        lambda r: r.model_api == "openai-completions" and r.provider not in PASSTHROUGH_PROVIDERS,
    ),
    ("default", "no provider-specific rule matched", lambda r: True),
)

_CLAUDE_VERSION = re.compile(r"claude-(?:[a-z]+-)?(\d+)")


def resolve(provider: str, model_api: str, model: str) -> Policy:
    """The policy for one request: the first matching family row, refined by model id."""
    request = Request(provider.strip().lower(), model_api.strip().lower(), model.strip().lower())
    name, reason = next((name, why) for name, why, matches in FAMILY_RULES if matches(request))
    policy = replace(POLICY_TABLE[name], why=reason)
    if UNSIGNED_THINKING in policy.extra and claude_before_4(request.model):
        policy = replace(policy, extra=policy.extra | {HISTORICAL_THINKING})
    if policy.ids == "strict" and kimi_model(request):
        policy = replace(policy, keep_native_kimi_ids=True)
    if signed_thinking_replay(policy, request):
        policy = replace(policy, signed_thinking_replay=True)
    return policy


def kimi_model(request: Request) -> bool:
    """A Kimi model (Moonshot's provider, or a model id naming Kimi): it issued `functions.x:n` ids."""
    return request.provider in KIMI_PROVIDERS or "kimi" in request.model


def signed_thinking_replay(policy: Policy, request: Request) -> bool:
    """Thinking signed by the provider may go back to it unchanged: an Anthropic-style row on an API that
    checks signatures, with historical thinking kept (a pre-4 Claude drops it, so there is nothing to keep)."""
    return (
        UNSIGNED_THINKING in policy.extra
        and request.model_api in SIGNED_THINKING_APIS
        and HISTORICAL_THINKING not in policy.extra
    )


def claude_before_4(model: str) -> bool:
    """A Claude model older than the 4 family: replaying its old thinking gains nothing and can be rejected.

    Claude 4+ keeps thinking because dropping it would change the cached prompt prefix.
    """
    if "claude" not in model:
        return False
    found = _CLAUDE_VERSION.search(model)
    return found is None or int(found.group(1)) < 4


PURPOSES = {
    INTER_SESSION_MARKER: "mark user turns relayed from another session",
    TRANSCRIPT_ONLY_ROWS: "drop rows that were never model output",
    INCOMPLETE_REASONING_TURNS: "drop turns cut off by the length limit while thinking",
    EMPTY_TEXT: "drop blank text; fill or drop the turns it empties",
    IMAGES: "shrink images over the size limits, replace unusable ones with a note",
    TOOL_CALL_INPUTS: "drop tool calls without arguments, an id or a valid name",
    TOOL_CALL_IDS: "rewrite tool-call ids to a provider-safe form",
    TOOL_RESULT_PAIRING: "answer every tool call once, right after its turn",
    RESPONSES_REASONING: "drop reasoning items that no output item follows",
    RESPONSES_CALL_IDS: "drop `|fc_` item ids that no reasoning item precedes",
    THOUGHT_SIGNATURES: "drop thought signatures that are not base64",
    UNSIGNED_THINKING: "drop unsigned thinking and thinking older than the latest compaction",
    HISTORICAL_THINKING: "drop thinking from every turn but the one in progress",
    GEMINI_TURNS: "merge consecutive assistant turns",
    TRAILING_FAILED_TURNS: "do not end on a failed-turn stand-in",
    BOOTSTRAP_USER_TURN: "start the history with a user turn",
    ANTHROPIC_TURNS: "merge consecutive turns, strip tool calls without results",
}

_DETAILS = {
    IMAGES: lambda p: "bytes and base64 text" if p.base64_image_limit else "",
    TOOL_CALL_INPUTS: lambda p: "signed thinking turns replayed as stored" if p.signed_thinking_replay else "",
    TOOL_CALL_IDS: lambda p: (
        f"{p.ids}"
        + "".join(
            note
            for note, on in (
                (", native toolu_ ids kept", p.keep_native_anthropic_ids),
                (", native Kimi ids kept", p.keep_native_kimi_ids),
                (", signed thinking turns keep theirs", p.signed_thinking_replay),
            )
            if on
        )
    ),
    TOOL_RESULT_PAIRING: lambda p: (
        "missing outputs become `aborted`" if p.responses_api else "missing results become errors"
    ),
    HISTORICAL_THINKING: lambda p: (
        "the model is Claude before 4" if UNSIGNED_THINKING in p.extra else "chat completions"
    ),
}


def explain(policy: Policy) -> list[str]:
    """The chosen family and why, then one line per transform in pipeline order (`+` runs, `-` skipped)."""
    lines = [f"policy {policy.name}: {policy.why}"]
    for name in TRANSFORM_ORDER:
        if name not in policy.transforms:
            lines.append(f"- {name}: {PURPOSES[name]}; not in the {policy.name} row")
            continue
        detail = _DETAILS[name](policy) if name in _DETAILS else ""
        scope = "every policy" if name in EVERY_POLICY else f"the {policy.name} row"
        lines.append(f"+ {name}: {PURPOSES[name]}" + (f" ({detail})" if detail else "") + f"; {scope}")
    return lines
