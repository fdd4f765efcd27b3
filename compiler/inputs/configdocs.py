"""What each config key means, for the reference page and the JSON Schema an editor shows: one
description per key of the schema (configkeys.py), named by its path there (`[]` any list item,
`{}` any mapping key). An agent setting is described once, under `agents.defaults`; an
`agents.list[]` entry's key of the same name reads that description."""

from __future__ import annotations

from .configkeys import AGENT_FIELDS

AGENT_DEFAULTS = "agents.defaults"
AGENT_ENTRY = "agents.list[]"

DESCRIPTIONS: dict[str, str] = {
    "agents": "The agents: settings every agent shares, and the list of agents with their own.",
    "agents.defaults": "Settings of every agent; an `agents.list[]` entry overrides them for its agent.",
    "agents.defaults.workspace": "The workspace directory whose bootstrap files and skills the prompt is built "
    "from; relative to the config file that sets it.",
    "agents.defaults.bootstrapMaxChars": "Budget of one bootstrap file, in characters; a longer file is cut "
    "(head and tail kept around a marker).",
    "agents.defaults.model": "The model of a run that names none: a `provider/model` id, or `{primary}` "
    "(OpenClaw's form; `fallbacks` are accepted and not read).",
    "agents.defaults.bootstrapTruncation": "How a file over its budget is cut: `75/25` first sets aside room for "
    "the marker line and keeps 75% of the rest from the start and 25% from the end (OpenClaw's proportions); "
    "`70/20` keeps 70% and 20% of the whole budget. AGENTS.md keeps a digest of its rule lines either way.",
    "agents.defaults.bootstrapTotalMaxChars": "Budget of all bootstrap files together, in characters.",
    "agents.defaults.bootstrapPromptTruncationWarning": "When the prompt says that a file was cut: `off` never, "
    "`once` the first time a cut is seen (with `--session-state`), `always` every time.",
    "agents.defaults.userTimezone": "The user's IANA time zone (`Europe/Lisbon`); the Date & Time section "
    "appears only when it is set.",
    "agents.defaults.timeFormat": "12- or 24-hour clock for the user (`auto` lets the model choose); reported, "
    "never rendered into the stable part.",
    "agents.defaults.heartbeat": "Heartbeat runs of the default agent.",
    "agents.defaults.heartbeat.enabled": "Whether HEARTBEAT.md reaches ordinary turns of the default agent.",
    "agents.defaults.heartbeat.includeSystemPromptSection": "Whether heartbeat runs get the Heartbeats section "
    "(and ordinary turns HEARTBEAT.md, when enabled).",
    "agents.defaults.heartbeat.prompt": "The heartbeat prompt, when a heartbeat run does not bring its own: the heartbeat turn's "
    "message, not part of the system prompt (the Heartbeats section only says how to answer).",
    "agents.defaults.subagents": "How the agent works with sub-agents.",
    "agents.defaults.subagents.delegationMode": "`prefer` adds the Sub-Agent Delegation section (with "
    "sessions_spawn): answer simple questions, send bigger work to sub-agents; `suggest` leaves it out.",
    "agents.defaults.subagents.proactiveOrchestration": "Guidance to start sub-agents on its own initiative "
    "(replaces the delegation section when sessions_spawn is available).",
    "agents.defaults.skills": "Allowlist of skill names; unset lists every eligible skill, `[]` none.",
    "agents.defaults.contextLimits": "Budgets of runtime excerpts, by name; reported by `promptc context`, "
    "not used by the renderer.",
    "agents.defaults.promptOverlays": "Provider overlays: text added for one model family.",
    "agents.defaults.promptOverlays.gpt5": "The overlay for gpt-5 models on the openai and codex providers.",
    "agents.defaults.promptOverlays.gpt5.personality": "`friendly` or `on` adds the overlay's interaction "
    "style; `off` keeps only its behaviour contract.",
    "agents.defaults.imageMaxDimensionPx": "The longest side of an image `promptc transcript sanitize` keeps, "
    "in pixels; larger images are scaled down.",
    "agents.defaults.models": "Settings by model id (`provider/model`).",
    "agents.defaults.models{}.alias": "A short name for the model, listed in the Model Aliases section.",
    "agents.defaults.docsPath": "A local documentation directory named in the Documentation section; unset "
    "names the public docs.",
    "agents.defaults.memoryInGroups": "Whether MEMORY.md, the owner's private memory, is injected in group chats.",
    "agents.list": "The agents, each with its own settings; the first is the default agent.",
    AGENT_ENTRY + ".id": "The agent id, which `--agent` and the run facts' `agent` name.",
    AGENT_ENTRY + ".skillsLimits": "This agent's skills limits, over `skills.limits`.",
    AGENT_ENTRY + ".skillsLimits.maxSkillsPromptChars": "This agent's budget of the skills list, in characters.",
    AGENT_ENTRY + ".promptValues": "This agent's values of user variables, over `prompt.values`.",
    AGENT_ENTRY + ".tools": "This agent's tool policy: a profile that replaces `tools.profile`, and allow / "
    "deny lists that filter what the global ones kept.",
    AGENT_ENTRY + ".tools.profile": "This agent's tool profile, in place of `tools.profile`.",
    AGENT_ENTRY + ".tools.allow": "Tools this agent keeps of those the global policy kept.",
    AGENT_ENTRY + ".tools.alsoAllow": "Tools added to this agent's profile (in place of `tools.alsoAllow`).",
    AGENT_ENTRY + ".tools.deny": "Tools this agent never gets.",
    "skills": "Where skills are found, which are listed, and the budget of the list.",
    "skills.limits": "Limits of the skills list.",
    "skills.limits.maxSkillsPromptChars": "Budget of the skills list, in characters; over it the list takes its "
    "compact form (no descriptions), then leaves out the last skills.",
    "skills.limits.maxSkillsInPrompt": "The most skills the list holds.",
    "skills.entries": "Settings by skill name.",
    "skills.entries{}.enabled": "`false` leaves the skill out of the list.",
    "skills.load": "Where skills are looked for besides `<workspace>/skills`.",
    "skills.load.extraDirs": "More skill roots, lowest precedence first (the workspace's own skills win).",
    "skills.load.bundledDir": "OpenClaw's bundled skills, listed with the others: a directory, or `auto` for "
    "the `skills/` folder of an installed `openclaw` package (`$OPENCLAW_BUNDLED_SKILLS_DIR`, else the package of "
    "the `openclaw` command on PATH; none when neither is found). Unset: none. A bundled skill wins over an extra "
    "root's of the same name, the workspace's over both.",
    "skills.load.allowSymlinkTargets": "Directories a skill's symlink may point into although they are outside "
    "its root.",
    "tools": "Tool settings: the tools of a run that lists none, and settings that change the guidance.",
    "tools.profile": "OpenClaw's tool profile for a run that lists no tools: `minimal` (session_status), "
    "`coding` (files, exec, web, memory, sessions, goals, media), `messaging` (message and sessions), `full` "
    "(every tool of the catalogue in templates/tools.yaml). Then `allow` and `deny` filter what it keeps.",
    "tools.allow": "Tool names a run without tools may keep (`group:<name>`, `*` and `bash` for exec work); "
    "an empty list keeps everything not denied.",
    "tools.alsoAllow": "Tools added to the profile's own list.",
    "tools.deny": "Tool names a run without tools never gets; deny wins over allow.",
    "tools.experimental": "Experimental tools.",
    "tools.experimental.planTool": "Adds the guidance for the update_plan tool.",
    "tools.fs": "File system tools.",
    "tools.fs.workspaceOnly": "File tools are limited to the workspace; the Workspace section asks to keep "
    "scratch files inside it.",
    "memory": "Workspace memory.",
    "memory.citations": "Whether memory recall cites its sources (`Source: <path>#<line>`): `auto`, `on` or `off`.",
    "acp": "External coding harnesses.",
    "acp.enabled": "Without a sandbox, Tooling tells how to start an external coding harness through sessions_spawn.",
    "prompt": "promptc's own settings: the boundary, template dirs, cache tiers, user variables.",
    "prompt.cacheBoundaryMarker": "The line between the stable and the volatile part of a text prompt; a copy "
    "anywhere else is defused.",
    "prompt.templateDirs": "User template dirs, searched before the built-in templates; relative to the config "
    "file that sets them.",
    "prompt.cache": "How the stable part is cut into provider cache tiers.",
    "prompt.cache.tiers": "At most three tiers, each a list of workspace file names and section ids, least often "
    "changed first; `sections` stands for every stable section not named elsewhere.",
    "prompt.cache.ttl": "The cache lifetime of each tier: `5m`, `1h`, or a list, one per tier, never longer than "
    "the tier before; unset is 1h on the first tier and 5m on the others.",
    "prompt.cache.openaiKey": "Send `prompt_cache_key` to OpenAI.",
    "prompt.cache.openaiRetention": "OpenAI's `prompt_cache_retention`: `in_memory` (entries kept minutes after "
    "their last use) or `24h` (extended retention, up to a day); unset sends none.",
    "prompt.cache.uncachedSessions": "Session kinds sent with no cache breakpoint (runs that come more than an "
    "hour apart).",
    "prompt.cache.keepWarm": "Keep-warm pings: while a model is idle, the runtime re-sends the cached part of "
    "its last prompt so the entries are read, and renewed, instead of running out (`render --ping` prints the "
    "request).",
    "prompt.cache.keepWarm.every": "Time between pings, shorter than every tier's lifetime (`55m` for 1h tiers); "
    "unset sends none.",
    "prompt.cache.keepWarm.window": "How long after the last real turn on a model pings go on (`2h`); required "
    "with `every`.",
    "prompt.variables": "User variables a template reads as `vars.<name>`, by name.",
    "prompt.variables{}.side": "`stable`: the variable may be read above the boundary; `volatile`: only below it.",
    "prompt.variables{}.default": "The value when nothing else gives one.",
    "prompt.variables{}.description": "What the variable is for.",
    "prompt.values": "Values of user variables for every agent, by name.",
    "hooks": "Code that may change what the prompt is built from.",
    "hooks.bootstrap": "`module:function` callables that get the bootstrap files and return the new list.",
}
"""Every described key, by its schema path."""


def description(pattern: str) -> str | None:
    """The description of the key at a schema path; an agent entry's own copy of an agent setting
    reads the `agents.defaults` one."""
    prefix = AGENT_ENTRY + "."
    if pattern.startswith(prefix) and pattern[len(prefix) :].split(".")[0].split("{")[0] in AGENT_FIELDS:
        pattern = AGENT_DEFAULTS + "." + pattern[len(prefix) :]
    return DESCRIPTIONS.get(pattern)
