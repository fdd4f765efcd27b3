"""The distinct instructions OpenClaw 2026.7.1's builder gives for the okbest2024-backup workspace
(main session, full mode, a Telegram group turn with 13 tools), each paired with a phrase of
promptc's own wording that must appear in promptc's prompt for the same case. A lost point fails
tests/test_guidance.py. Ids are `section.point`; the phrases are ours, never OpenClaw's.

Compound lines of OpenClaw's prompt count once per separate instruction; facts a run passes
through unchanged (the TTS hint, the extra prompt, the Runtime line's values) are not counted.
"""

from __future__ import annotations

TURN_TOOLS = (
    "read",
    "write",
    "edit",
    "exec",
    "process",
    "web_search",
    "web_fetch",
    "message",
    "gateway",
    "sessions_spawn",
    "session_status",
    "memory_search",
    "memory_get",
)
"""The tools of the comparison turn (the harness's example turn), in its order."""

POINTS: dict[str, str] = {
    # Tooling
    "tooling.exact_names": "call by exact, case-sensitive name",
    "tooling.exec_pty": "exec runs in a pseudo-terminal (pty)",
    "tooling.session_status_model": "how it is set up for this session, go to session_status",
    "tooling.tools_md_guidance": "it adds or removes no tools",
    "tooling.no_rapid_polls": "instead of checking every few seconds",
    "tooling.exec_yieldms": "give exec a generous `yieldMs`",
    "tooling.process_poll": "call process with `action=poll` and a `timeout` (ms)",
    "tooling.larger_work_spawn": "Hand larger tasks to sessions_spawn; results are pushed back",
    "tooling.fork_context": 'pass `context: "fork"` only when the sub-agent truly needs this transcript',
    "tooling.no_poll_lists": "Never poll sub-agent or session lists in a loop",
    "tooling.status_on_demand": "check them only to intervene or when asked",
    # Tool Call Style
    "style.no_narration_routine": "Routine, low-risk tool calls need no commentary",
    "style.narrate_complex": "Briefly announce a long, multi-part or sensitive step",
    "style.first_class_tool": "never ask the user to type a command or slash command you could run",
    "style.approve_not_shell": "Only the user types `/approve`; never run it via exec, a shell or any tool",
    "style.allow_once": "An allow-once approval covers exactly one command",
    "style.show_full_command": "show the command or script exactly as it will run",
    "style.preview_separate": "never swap the approval id or slug for the command text",
    # Execution Bias
    "bias.act_now": "Act on actionable requests this turn",
    "bias.ask_missing_decision": "ask only for that decision",
    "bias.continue_until_done": "Continue until done or truly blocked",
    "bias.vary_query": "try another query, path, command or source",
    "bias.live_checks": "Check anything changeable live",
    "bias.evidence": "Before calling something finished, show the evidence",
    "bias.progress_updates": "send brief progress notes and keep going",
    # Safety
    "safety.no_independent_goals": "have no goals of your own beyond the user's request",
    "safety.no_power_seeking": "Do not seek power, resources or access",
    "safety.oversight_over_completion": "oversight beats finishing the task: on conflict, pause and ask",
    "safety.obey_stop_audit": "stop, pause or submit to an audit",
    "safety.no_bypass": "Never try to disable, bypass or hide from human oversight",
    "safety.inspect_config": "inspect and merge into what is there; replace whole files only if the user asks",
    "safety.no_persuade": "Never try to persuade anyone to widen your access",
    "safety.no_self_copy": "Never copy, clone or replicate yourself",
    "safety.no_prompt_change": "never change your own prompts, safety rules or tool policy",
    # OpenClaw Control
    "control.no_invent": "Never invent CLI commands",
    "control.gateway_tool": "Config work and restarts go through the gateway tool",
    "control.cli_explicit": "Run CLI lifecycle commands",
    "control.restart_not_stopstart": "never `stop` followed by `start`",
    # Skills
    "skills.scan": "If a skill below clearly fits the task",
    "skills.read_location": "read the file at its `<location>`",
    "skills.version_reread": "`<version>` differs",
    "skills.most_specific": "choose the most specific; if none fits, read none",
    "skills.one_up_front": "Read at most one skill up front",
    "skills.no_guess_paths": "never guess an unlisted path",
    "skills.api_writes_batch": "batch them where safe",
    "skills.tight_loops": "avoid tight loops",
    "skills.retry_after": "Retry-After",
    "skills.relative_paths": "Relative paths in a skill resolve against its folder",
    # Memory Recall
    "memory.search_first": "search memory first",
    "memory.topics": "past work, decisions, people, preferences, dates or open to-dos",
    "memory.memory_get_lines": "memory_get for just the lines you need",
    "memory.low_confidence": "say you checked",
    "memory.citations": "Source: <path>#<line>",
    # OpenClaw Self-Update
    "update.explicit_only": "only on the user's explicit request",
    "update.schema_lookup": "look up its exact dotted path with `config.schema.lookup`",
    "update.actions": "`update.run` runs an update",
    "update.hot_reload": "Most changes need no restart",
    "update.ping_after_restart": "tells the last active session it is back",
    "update.date_via_status": "for the current date, time or weekday, call session_status",
    # Workspace
    "workspace.dir": "Your working directory is",
    "workspace.single_global": "Treat it as home",
    # Documentation
    "docs.url": "https://docs.openclaw.ai",
    "docs.source": "https://github.com/openclaw/openclaw",
    "docs.authoritative": "The docs are the authority on the runtime's own behaviour",
    "docs.notes_not_design": "unreliable on the runtime's design",
    "docs.config_lookup": "ask the gateway tool (`config.schema.lookup`) before guessing",
    "docs.config_doc_paths": "`docs/gateway/configuration-reference.md`",
    "docs.silent_stale": "if silent or outdated, say so and read the source",
    "docs.diagnose_status": "run `openclaw status` first",
    "docs.ask_only_blocked": "ask the user only if still stuck",
    # Current Date & Time
    "time.zone": "User time zone: Europe/Berlin",
    # Bootstrap Context Notice
    "notice.partial": "exceeded the context budget",
    "notice.read_files": "read the file itself",
    # Workspace Files (injected)
    "files.loaded": "workspace files follow under Project Context",
    # Assistant Output Directives
    "directives.media": "`MEDIA:<path or url>` attaches a file",
    "directives.media_own_line": "Put each on a line of its own",
    "directives.media_plain": "never inside a code block, bold or backticks",
    "directives.tool_media": "Send tool-produced files this way",
    "directives.audio_voice": "`[[audio_as_voice]]`",
    "directives.reply_current": "`[[reply_to_current]]`",
    "directives.reply_id": "`[[reply_to:<id>]]`",
    "directives.stripped": "the runtime strips them before display",
    "directives.channel_decides": "channel settings still decide delivery",
    # Project Context
    "context.soul": "SOUL.md is who you are",
    "context.memory": "MEMORY.md is your curated long-term memory",
    # Silent Replies
    "silent.when": "When a turn needs no answer from you, reply with exactly NO_REPLY",
    "silent.entire": "NO_REPLY is then the whole reply",
    "silent.never_append": "Never tack it onto a real answer",
    "silent.no_wrap": "Write it bare",
    # Authorized Senders
    "senders.not_owner": "does not make anyone the owner",
    # Messaging
    "messaging.private_final": "when this turn's context says it stays private",
    "messaging.telegram_rich_off": "Telegram rich text is off for this bot",
    "messaging.sessions_send": "Message another session with sessions_send",
    "messaging.subagent_brief": "Start delegated work with sessions_spawn and a complete brief",
    "messaging.completion_events": "When a completion event from the runtime asks for an update",
    "messaging.no_exec_curl": "Never send messages to a provider through exec, curl",
    "message.proactive": "Use message for other chats or channels",
    "message.send_target": "Send with `action=send`, a `target`",
    "message.channel_only_outside": "Add `channel` only when the target is on another channel",
    "message.no_reply_after_send": "If message delivers your whole answer, reply with exactly NO_REPLY",
    "message.inline_buttons": "Inline buttons work here",
    # Reactions
    "reactions.level": "Reactions are on for telegram, at the minimal level",
    "reactions.sparingly": "React with emoji sparingly",
    "reactions.routine": "never on routine messages or your own replies",
    "reactions.rate": "at most about one reaction per five to ten exchanges",
    # Runtime
    "runtime.model_identity": "say so if asked which model you are",
    "runtime.reasoning_toggle": "/reasoning",
}
"""Point id -> a phrase of promptc's that carries it."""
