"""The keys OpenClaw's own config (openclaw.json, OpenClaw 2026.7.1) has, by table.

promptc reads a few of OpenClaw's sections (agents, skills, tools, memory, acp, hooks) and uses
some keys in them. A key the schema does not know but OpenClaw does is accepted without checks
and named in one note, so `--config ~/.openclaw/openclaw.json` works; a key neither knows is still an error
with a did-you-mean. When promptc starts reading a key (it is added to `configkeys.py`), the schema
checks it and this list no longer matters for it: nothing here needs changing.

Tables are named by their path in promptc's schema: `[]` is any list item, `{}` any mapping key
(a model id, a skill name). Taken from OpenClaw's config schema; update with OpenClaw.
"""

from __future__ import annotations

from collections.abc import Mapping


def _keys(names: str) -> frozenset[str]:
    return frozenset(names.split())


KNOWN: dict[str, frozenset[str]] = {
    "": _keys(
        """
        $schema meta env wizard diagnostics audit logging cli crestodian update browser
        ui tui secrets marketplaces auth accessGroups acp models nodeHost agents tools
        security bindings broadcast audio media messages commands approvals session cron
        transcripts commitments hooks web channels discovery talk gateway memory mcp
        skills plugins canvasHost surfaces proxy
        """
    ),
    "memory": _keys(
        """
        backend citations qmd
        """
    ),
    "acp": _keys(
        """
        enabled dispatch backend fallbacks defaultAgent allowedAgents maxConcurrentSessions
        stream runtime
        """
    ),
    "tools": _keys(
        """
        profile allow alsoAllow deny byProvider toolsBySender web media links sessions
        loopDetection toolSearch codeMode message agentToAgent elevated exec fs
        subagents sandbox sessions_spawn experimental
        """
    ),
    "hooks": _keys(
        """
        enabled path token defaultSessionKey allowRequestSessionKey
        allowedSessionKeyPrefixes allowedAgentIds maxBodyBytes presets transformsDir
        mappings gmail internal
        """
    ),
    "skills": _keys(
        """
        allowBundled load install limits workshop entries
        """
    ),
    "agents.defaults": _keys(
        """
        params model utilityModel imageModel imageGenerationModel videoGenerationModel
        musicGenerationModel voiceModel mediaGenerationAutoProviderFallback pdfModel
        pdfMaxBytesMb pdfMaxPages models workspace skills silentReply repoRoot
        promptOverlays skipBootstrap skipOptionalBootstrapFiles contextInjection
        bootstrapMaxChars bootstrapTotalMaxChars experimental
        bootstrapPromptTruncationWarning userTimezone startupContext contextLimits
        timeFormat envelopeTimezone envelopeTimestamp envelopeElapsed contextTokens
        cliBackends memorySearch contextPruning compaction runRetries embeddedAgent
        thinkingDefault verboseDefault toolProgressDetail reasoningDefault
        elevatedDefault blockStreamingDefault blockStreamingBreak blockStreamingChunk
        blockStreamingCoalesce humanDelay timeoutSeconds mediaMaxMb imageMaxDimensionPx
        imageQuality typingIntervalSeconds typingMode heartbeat maxConcurrent subagents
        sandbox
        """
    ),
    "agents.list[]": _keys(
        """
        id default name description workspace agentDir model utilityModel models
        thinkingDefault verboseDefault toolProgressDetail reasoningDefault
        fastModeDefault contextInjection bootstrapMaxChars bootstrapTotalMaxChars
        experimental skills memorySearch humanDelay tts skillsLimits contextLimits
        contextTokens heartbeat identity groupChat subagents runRetries embeddedAgent
        sandbox params tools runtime
        """
    ),
    "agents.list[].tools": _keys(
        """
        profile allow alsoAllow deny byProvider toolsBySender codeMode elevated exec fs
        loopDetection message sandbox
        """
    ),
    "agents.defaults.heartbeat": _keys(
        """
        every activeHours model session includeReasoning target directPolicy to
        accountId prompt includeSystemPromptSection ackMaxChars
        suppressToolErrorWarnings timeoutSeconds lightContext isolatedSession
        skipWhenBusy
        """
    ),
    "agents.defaults.subagents": _keys(
        """
        delegationMode allowAgents maxConcurrent maxSpawnDepth maxChildrenPerAgent
        archiveAfterMinutes model thinking runTimeoutSeconds announceTimeoutMs
        requireAgentId
        """
    ),
    "agents.list[].subagents": _keys(
        """
        delegationMode allowAgents model thinking requireAgentId
        """
    ),
    "agents.defaults.models{}": _keys(
        """
        alias params agentRuntime streaming
        """
    ),
    "skills.limits": _keys(
        """
        maxCandidatesPerRoot maxSkillsLoadedPerSource maxSkillsInPrompt
        maxSkillsPromptChars maxSkillFileBytes
        """
    ),
    "skills.load": _keys(
        """
        extraDirs allowSymlinkTargets watch watchDebounceMs
        """
    ),
    "skills.entries{}": _keys(
        """
        enabled apiKey env config
        """
    ),
    "agents.list[].heartbeat": _keys(
        """
        every activeHours model session includeReasoning target directPolicy to
        accountId prompt includeSystemPromptSection ackMaxChars
        suppressToolErrorWarnings timeoutSeconds lightContext isolatedSession
        skipWhenBusy
        """
    ),
    "agents.list[].models{}": _keys(
        """
        alias params agentRuntime streaming
        """
    ),
}
"""Every key OpenClaw's schema has in each table promptc's schema also has."""

NOT_SUPPORTED = frozenset({"$include"})
"""OpenClaw directives promptc cannot follow inside a section it reads (config includes)."""


def knows(table: str, key: str) -> bool:
    """Whether OpenClaw's schema has `key` in the table at pattern `table`."""
    return key in KNOWN.get(table, frozenset())


# --------------------------------------------------------------------------- implied workspace

CONFIG_NAME = "openclaw.json"
"""A config layer read from a file of this name is OpenClaw's own: it implies OpenClaw's workspace."""
STATE_DIR = ".openclaw"
"""OpenClaw's state directory, inside its home; its default workspaces live in it."""
ENVIRONMENT = ("OPENCLAW_WORKSPACE_DIR", "OPENCLAW_PROFILE", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME")
"""The variables OpenClaw's default workspace depends on, as `default_workspace` reads them."""


def default_workspace(
    agent: str, is_default_agent: bool, configured: tuple[str, str] | None, env: Mapping[str, str]
) -> tuple[str, str]:
    """(workspace, why) for an agent an OpenClaw config gives no workspace of its own, as OpenClaw
    picks it. With `agents.defaults.workspace` (`configured`: the folder and the file that set
    it): that folder for the default agent, a folder named after the agent inside it for another.
    Without it, the default agent takes `$OPENCLAW_WORKSPACE_DIR`, else `workspace-<profile>`
    (for an `$OPENCLAW_PROFILE` other than `default`) or `workspace` in `~/.openclaw`; another
    agent `workspace-<id>` in the state directory (`$OPENCLAW_STATE_DIR`, else `~/.openclaw`).
    `~` is `$OPENCLAW_HOME` when set."""
    if configured is not None:
        folder, source = configured
        if is_default_agent:
            return folder, f"agents.defaults.workspace in {source}"
        return f"{folder.rstrip('/')}/{agent}", f"agents.defaults.workspace in {source}, plus the agent id"
    unset = f"the {CONFIG_NAME} sets no workspace"
    home = _variable(env, "OPENCLAW_HOME") or "~"
    if not is_default_agent:
        state = _variable(env, "OPENCLAW_STATE_DIR")
        if state:
            return f"{state.rstrip('/')}/workspace-{agent}", f"$OPENCLAW_STATE_DIR for agent {agent}: {unset}"
        return f"{home}/{STATE_DIR}/workspace-{agent}", f"OpenClaw's default for agent {agent}: {unset}"
    explicit = _variable(env, "OPENCLAW_WORKSPACE_DIR")
    if explicit:
        return explicit, f"$OPENCLAW_WORKSPACE_DIR: {unset}"
    profile = _variable(env, "OPENCLAW_PROFILE")
    if profile and profile.lower() != "default":
        return f"{home}/{STATE_DIR}/workspace-{profile}", f"OpenClaw's default for $OPENCLAW_PROFILE {profile}: {unset}"
    return f"{home}/{STATE_DIR}/workspace", f"OpenClaw's default: {unset}"


def _variable(env: Mapping[str, str], name: str) -> str:
    """An OpenClaw environment variable as OpenClaw reads it: trimmed, '' when unset."""
    return (env.get(name) or "").strip()
