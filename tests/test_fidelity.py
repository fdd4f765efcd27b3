"""The prompt's structure and behaviour follow OpenClaw's real builder: heartbeats, pending setup,
the legacy heartbeat block, the AGENTS.md digest, memory tools, what OpenClaw states, file
boundaries, the codex surfaces, memory in groups, and the guidance points at the end (the section
order is in test_section_order.py)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import Request, RunFacts, Tool, compile_prompt
from promptc.emit import payloads
from promptc.model.runfacts import ExecSession
from promptc.warm.compiler import compile_once as compile_pending
from promptc.workspace import budget

from support.guidance import TURN_TOOLS
from support.paths import CORPUS

MARKER = "<!-- PROMPT_CACHE_BOUNDARY -->"
HEARTBEATS_ON = ("agents.defaults.heartbeat.enabled=true",)


def ids(prompt) -> list[str]:
    return [s.id for s in prompt.sections]


def section(prompt, section_id: str) -> str:
    return next(s.text for s in prompt.sections if s.id == section_id)


# --------------------------------------------------------------------------- heartbeats


@pytest.mark.parametrize("session", ["main", "subagent", "cron"])
def test_heartbeats_never_appear_outside_heartbeat_runs_even_when_enabled(make_workspace, session):
    ws = make_workspace({"HEARTBEAT.md": "- [ ] check the oven\n"})
    prompt = compile_prompt(Request(run=RunFacts(session=session, mode="full"), workspace=ws, overrides=HEARTBEATS_ON))
    assert "heartbeats" not in ids(prompt) and "## Heartbeats" not in prompt.text


def test_a_heartbeat_run_with_the_default_config_gets_the_section_without_the_prompt_text(make_workspace):
    prompt = compile_prompt(Request(run=RunFacts(session="heartbeat"), workspace=make_workspace({})))
    text = section(prompt, "heartbeats")
    assert text.startswith("## Heartbeats")
    assert "answer with exactly HEARTBEAT_OK" in text
    assert text in prompt.volatile
    assert "Heartbeat check-in" not in prompt.text  # the default prompt is the turn's message


def test_neither_the_run_nor_the_configured_heartbeat_prompt_reaches_the_system_prompt(make_workspace):
    ws = make_workspace({})
    configured = ("agents.defaults.heartbeat.prompt=Check the greenhouse.",)
    own = RunFacts(session="heartbeat", heartbeat_prompt="Water the ferns.")
    for run in (RunFacts(session="heartbeat"), own):
        prompt = compile_prompt(Request(run=run, workspace=ws, overrides=configured))
        assert "heartbeats" in ids(prompt)
        assert "greenhouse" not in prompt.text and "ferns" not in prompt.text


def test_the_heartbeat_message_is_handed_to_the_runtime_beside_the_prompt(make_workspace, run_cli):
    ws = make_workspace({})
    configured = ("agents.defaults.heartbeat.prompt=Check the greenhouse.",)

    def message(run, overrides=configured):
        return compile_prompt(Request(run=run, workspace=ws, overrides=overrides)).heartbeat_message

    assert message(RunFacts(session="heartbeat")) == "Check the greenhouse."
    assert message(RunFacts(session="heartbeat", heartbeat_prompt="Water the ferns.")) == "Water the ferns."
    assert message(RunFacts(session="heartbeat"), ("agents.defaults.heartbeat.prompt= ",)).startswith(
        "Heartbeat check-in."
    )  # a blank prompt falls back to the built-in one
    assert message(RunFacts(session="main")) is None
    # The section switched off still leaves the turn its message.
    off = (*configured, "agents.defaults.heartbeat.includeSystemPromptSection=false")
    assert message(RunFacts(session="heartbeat"), off) == "Check the greenhouse."
    code, out, _ = run_cli(
        "render", "--workspace", ws, "--session", "heartbeat", "--format", "json", "--set", configured[0]
    )
    assert code == 0 and json.loads(out)["heartbeat"] == {"skip": False, "message": "Check the greenhouse."}
    code, out, _ = run_cli("context", "--workspace", ws, "--session", "heartbeat", "--set", configured[0])
    assert code == 0
    assert "Heartbeat message (the turn's input, not in the prompt): Check the greenhouse." in out.splitlines()


def test_heartbeats_are_for_the_default_agent_and_can_be_switched_off(make_workspace, write_yaml):
    ws = make_workspace({})
    config = write_yaml("c.yaml", "agents:\n  list:\n    - id: main\n    - id: helper\n")
    helper = compile_prompt(
        Request(run=RunFacts(agent="helper", session="heartbeat"), config_paths=(config,), workspace=ws)
    )
    assert "heartbeats" not in ids(helper)
    off = ("agents.defaults.heartbeat.includeSystemPromptSection=false",)
    assert "heartbeats" not in ids(
        compile_prompt(Request(run=RunFacts(session="heartbeat"), workspace=ws, overrides=off))
    )


# --------------------------------------------------------------------------- bootstrap pending


BOOTSTRAP_WS = {"AGENTS.md": "Rules.\n", "BOOTSTRAP.md": "Ask the user what to call you.\n"}


def test_a_main_run_with_setup_pending_injects_bootstrap_and_says_to_follow_it_first(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace(BOOTSTRAP_WS)))
    assert "Ask the user what to call you." in prompt.stable
    pending = section(prompt, "bootstrap_pending")
    assert pending.startswith("## Bootstrap Pending") and "follow BOOTSTRAP.md" in pending
    assert "first reply" in pending
    assert (
        ids(prompt).index("bootstrap_pending")
        < ids(prompt).index("workspace_files")
        < ids(prompt).index("project_context")
    )


@pytest.mark.parametrize("session", ["heartbeat", "cron", "subagent"])
def test_runs_that_are_not_the_users_own_never_get_bootstrap(make_workspace, session):
    prompt = compile_prompt(
        Request(run=RunFacts(session=session), workspace=make_workspace(BOOTSTRAP_WS), overrides=HEARTBEATS_ON)
    )
    assert "Ask the user what to call you." not in prompt.text
    assert "bootstrap_pending" not in ids(prompt)
    assert all(f.name != "BOOTSTRAP.md" for f in prompt.files)


def test_finished_setup_has_no_pending_section(make_workspace):
    ws = make_workspace(
        {
            "AGENTS.md": "Rules.\n",
            ".promptc/workspace-state.json": json.dumps(
                {"version": 1, "bootstrapSeededAt": "2026-01-01T00:00:00Z", "setupCompletedAt": "2026-01-02T00:00:00Z"}
            ),
        }
    )
    (ws / "BOOTSTRAP.md").write_text("Old setup notes.\n")
    prompt = compile_prompt(Request(workspace=ws))
    assert "bootstrap_pending" not in ids(prompt) and "Old setup notes." not in prompt.text


# --------------------------------------------------------------------------- legacy heartbeat block

LEGACY = (
    "# Agents\n\nUse heartbeats well.\n\nDefault heartbeat prompt:\n"
    "`Read HEARTBEAT.md if it exists. If nothing needs attention, reply HEARTBEAT_OK.`\n\n"
    "Keep HEARTBEAT.md short.\n"
)


def test_the_legacy_default_heartbeat_prompt_block_is_removed_before_injection(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": LEGACY})))
    agents = next(f for f in prompt.files if f.name == "AGENTS.md")
    assert "Default heartbeat prompt:" not in prompt.text
    assert agents.text == "# Agents\n\nUse heartbeats well.\n\nKeep HEARTBEAT.md short."
    assert agents.status == "ok"


def test_a_mention_of_the_label_without_the_quoted_prompt_is_kept(make_workspace):
    text = "Default heartbeat prompt: see the runtime docs.\n"
    prompt = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": text})))
    assert "Default heartbeat prompt: see the runtime docs." in prompt.stable


# --------------------------------------------------------------------------- AGENTS.md digest


def _long_agents(rule: str) -> str:
    filler = "".join(f"Paragraph {i} is ordinary prose about the workspace and its history.\n\n" for i in range(600))
    half = len(filler) // 2
    return "# Agents\n\n" + filler[:half] + f"\n## Git\n\n- {rule}\n\n" + filler[half:] + "## End\nLast line.\n"


def test_a_cut_agents_md_keeps_the_rule_lines_of_its_middle(make_workspace):
    rule = "Never push to main without a review."
    text = _long_agents(rule)
    prompt = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": text})))
    agents = next(f for f in prompt.files if f.name == "AGENTS.md")
    assert agents.status == "truncated" and agents.injected_chars <= 20000
    assert agents.text.startswith("# Agents\n\nParagraph 0 ") and agents.text.endswith("## End\nLast line.")
    assert f"- {rule}" in agents.text and "## Git" in agents.text
    head, _, _rest = agents.text.partition("[... AGENTS.md cut:")
    assert len(head) >= 0.45 * 20000  # at least the 45% head: the one-line digest gives most of its share back
    assert agents.injected_chars >= 0.75 * 20000  # the rule sits mid-file: the head may grow only to before it


def test_a_digest_with_few_rules_gives_its_share_back_to_the_head_and_tail(make_workspace):
    filler = "".join(f"Paragraph {i} is ordinary prose about the workspace and its history.\n\n" for i in range(400))
    cut_at = filler.index("Paragraph 240 ")  # about 60% in: past the 45% head, before the tail
    text = "# Agents\n\n" + filler[:cut_at] + "- Never push to main without a review.\n\n" + filler[cut_at:]
    agents = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": text}))).files[0]
    assert agents.status == "truncated" and "- Never push to main without a review." in agents.text
    assert 0.85 * 20000 <= agents.injected_chars <= 20000


def test_a_head_cut_inside_a_code_block_does_not_turn_the_code_into_rules(make_workspace):
    prose = "".join(f"Paragraph {i} is ordinary prose about the workspace.\n\n" for i in range(150))
    code = "```bash\n" + "".join(f"# step {i}: run the next command\n" for i in range(400)) + "```\n\n"
    rules = "".join(f"- Never do forbidden thing number {i}.\n" for i in range(40))
    tail = "".join(f"Closing paragraph {i} about nothing in particular.\n\n" for i in range(300))
    text = "# Agents\n\n" + prose + code + rules + "\n" + tail
    agents = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": text}))).files[0]
    head, _, digest = agents.text.partition("[rule lines from the cut part of AGENTS.md")
    assert head.count("```") == 1  # the head does end inside the code block
    assert "# step" not in digest.split("[... ")[0]
    assert all(f"- Never do forbidden thing number {i}." in agents.text for i in range(40))


def test_other_files_are_cut_head_and_tail_without_a_digest(make_workspace):
    rule = "Never push to main without a review."
    prompt = compile_prompt(Request(workspace=make_workspace({"SOUL.md": _long_agents(rule)})))
    soul = next(f for f in prompt.files if f.name == "SOUL.md")
    assert soul.status == "truncated" and rule not in soul.text


@settings(max_examples=60, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["- Never do X.", "## Heading", "plain text here", "", "```", "must test", "1. step"]),
        min_size=1,
        max_size=300,
    ),
    max_chars=st.integers(min_value=1, max_value=3000),
)
def test_the_digest_cut_never_exceeds_the_budget(lines, max_chars):
    text = "\n".join(lines) * 3
    cut = budget.truncate_for("AGENTS.md", text, max_chars)
    assert len(cut) <= max_chars
    if len(text.rstrip()) <= max_chars:
        assert cut == text.rstrip()


# --------------------------------------------------------------------------- memory tools


def _memory(make_workspace, **facts):
    return compile_prompt(Request(run=RunFacts(**facts), workspace=make_workspace({})))


def test_memory_recall_is_derived_from_the_tool_list(make_workspace):
    prompt = _memory(make_workspace, tools=(Tool("memory_search"), Tool("memory_get")))
    recall = section(prompt, "memory_recall")
    assert "memory_search" in recall and "memory_get" in recall
    assert "Source: <path>#<line>" in recall  # the citation format
    assert not any("memory_tools" in w for w in prompt.warnings)


def test_memory_recall_varies_for_search_only_and_get_only(make_workspace):
    search = section(_memory(make_workspace, tools=(Tool("memory_search"),)), "memory_recall")
    assert "memory_search" in search and "memory_get" not in search and "no tool here opens a note in full" in search
    fetch = section(
        compile_prompt(Request(run=RunFacts(tools=(Tool("memory_get"),)), workspace=make_workspace({}, "b"))),
        "memory_recall",
    )
    assert "memory_get" in fetch and "memory_search" not in fetch and "no search tool" in fetch


def test_citations_off_asks_for_no_paths(make_workspace):
    run = RunFacts(tools=(Tool("memory_search"), Tool("memory_get")))
    prompt = compile_prompt(Request(run=run, workspace=make_workspace({}), overrides=("memory.citations=off",)))
    recall = section(prompt, "memory_recall")
    assert "Citations are turned off" in recall and "Source:" not in recall


def test_an_explicit_fact_wins_and_a_contradiction_is_warned(make_workspace):
    off = _memory(make_workspace, tools=(Tool("memory_search"),), memory_tools=False)
    assert "memory_recall" not in ids(off)
    assert any("memory_tools is false but the tool list has memory_search" in w for w in off.warnings)
    on = compile_prompt(Request(run=RunFacts(memory_tools=True), workspace=make_workspace({}, "b")))
    assert "memory_search" in section(on, "memory_recall")
    assert any("memory_tools is true but the tool list has neither" in w for w in on.warnings)


def test_a_misspelt_capability_is_warned_and_the_documented_one_is_not(make_workspace):
    workspace = make_workspace({})
    typo = compile_prompt(
        Request(run=RunFacts(channel="telegram", capabilities=("inline_buttons", "Rich-Text")), workspace=workspace)
    )
    assert [w for w in typo.warnings if "capability" in w] == [
        "run facts: capability 'inline_buttons' is not one promptc reads (did you mean 'inlineButtons'?)",
        "run facts: capability 'rich-text' is not one promptc reads (did you mean 'richText'?)",
    ]
    right = compile_prompt(
        Request(run=RunFacts(channel="telegram", capabilities=("InlineButtons", "reactions")), workspace=workspace)
    )
    assert not [w for w in right.warnings if "capability" in w]


def test_no_memory_tools_no_section(make_workspace):
    assert "memory_recall" not in ids(_memory(make_workspace, tools=(Tool("read"),)))


# --------------------------------------------------------------------------- model identity, buttons


@pytest.mark.parametrize("mode", ["full", "minimal"])
def test_the_runtime_section_names_the_model(make_workspace, mode):
    prompt = _memory(make_workspace, mode=mode, model="anthropic/claude-sonnet-4-6")
    runtime = section(prompt, "runtime")
    assert "You are the model anthropic/claude-sonnet-4-6 this turn" in runtime
    assert runtime in prompt.volatile and "claude-sonnet-4-6" not in prompt.stable


def test_inline_buttons_give_the_buttons_hint_and_point_approvals_to_the_card(make_workspace):
    tools = (Tool("message"),)
    with_buttons = _memory(make_workspace, channel="telegram", capabilities=("inlineButtons",), tools=tools)
    assert "buttons=[[{text, callback_data, style}]]" in section(with_buttons, "messaging")
    assert "approval card" in section(with_buttons, "approvals")
    plain = compile_prompt(Request(run=RunFacts(channel="telegram", tools=tools), workspace=make_workspace({}, "b")))
    assert "Inline buttons are off for telegram" in section(plain, "messaging")
    assert "approval card" not in section(plain, "approvals")


# --------------------------------------------------------------------------- what OpenClaw has


def test_reasoning_format_is_stable_and_only_with_the_tag_hint(make_workspace):
    prompt = _memory(make_workspace, reasoning_tag_hint=True)
    text = section(prompt, "reasoning_format")
    assert "<think>" in text and "<final>" in text and text in prompt.stable
    assert (
        ids(prompt).index("output_directives")
        < ids(prompt).index("reasoning_format")
        < ids(prompt).index("silent_replies")
    )
    assert "reasoning_format" not in ids(compile_prompt(Request(workspace=make_workspace({}, "b"))))


def test_proactive_orchestration_replaces_the_delegation_preference(make_workspace):
    ws = make_workspace({})
    run = RunFacts(tools=(Tool("sessions_spawn"),))
    on = ("agents.defaults.subagents.proactiveOrchestration=true", "agents.defaults.subagents.delegationMode=prefer")
    prompt = compile_prompt(Request(run=run, workspace=ws, overrides=on))
    assert "proactive_orchestration" in ids(prompt) and "subagent_delegation" not in ids(prompt)
    assert (
        ids(prompt).index("tooling")
        < ids(prompt).index("proactive_orchestration")
        < ids(prompt).index("tool_call_style")
    )
    prefer = compile_prompt(Request(run=run, workspace=ws, overrides=on[1:]))
    assert "subagent_delegation" in ids(prefer) and "proactive_orchestration" not in ids(prefer)


def test_deferred_tools_are_listed_under_their_own_heading(make_workspace):
    prompt = _memory(make_workspace, tools=(Tool("read"),), deferred_tools=(Tool("calendar_sync", "Sync calendars"),))
    tooling = section(prompt, "tooling")
    assert "### Tools loaded on demand" in tooling and "- calendar_sync: Sync calendars" in tooling
    assert tooling.index("- read:") < tooling.index("### Tools loaded on demand")


def test_acp_spawn_guidance_needs_acp_sessions_spawn_and_no_sandbox(make_workspace):
    from promptc import Sandbox

    ws = make_workspace({})
    run = RunFacts(tools=(Tool("sessions_spawn"),))
    acp = ("acp.enabled=true",)
    assert 'runtime: "acp"' in section(compile_prompt(Request(run=run, workspace=ws, overrides=acp)), "tooling")
    assert 'runtime: "acp"' not in section(compile_prompt(Request(run=run, workspace=ws)), "tooling")
    sandboxed = RunFacts(tools=run.tools, sandbox=Sandbox(True, ("/box",)))
    assert 'runtime: "acp"' not in section(
        compile_prompt(Request(run=sandboxed, workspace=ws, overrides=acp)), "tooling"
    )


def test_active_exec_sessions_are_in_runtime_on_one_line_each(make_workspace):
    sessions = (ExecSession("proc-7", "running", "npm run\nwatch", 4242, "/srv/app"), ExecSession("proc-9"))
    runtime = section(_memory(make_workspace, exec_sessions=sessions), "runtime")
    assert "- proc-7 running pid=4242 cwd=/srv/app: npm run watch" in runtime
    assert "- proc-9 running\n" in runtime + "\n"


def test_a_git_workspace_gets_the_commit_reminder(make_workspace):
    ws = make_workspace({"AGENTS.md": "Rules.\n"})
    assert "commit" not in section(compile_prompt(Request(workspace=ws)), "workspace")
    (ws / ".git").mkdir()
    assert "git repository: commit your changes to its files" in section(
        compile_prompt(Request(workspace=ws)), "workspace"
    )


def test_a_workspace_inside_another_repository_is_not_a_git_workspace(make_workspace):
    ws = make_workspace({"inner/AGENTS.md": "Rules.\n"})
    (ws / ".git").mkdir()
    assert "commit" not in section(compile_prompt(Request(workspace=ws / "inner")), "workspace")


def test_fs_workspace_only_adds_the_scratch_file_line(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace({}), overrides=("tools.fs.workspaceOnly=true",)))
    assert "`tools.fs.workspaceOnly`" in section(prompt, "workspace") and ".openclaw/tmp/" in prompt.stable


def test_telegram_rich_text_and_channel_hints_and_sessions_send(make_workspace):
    tools = (Tool("message"), Tool("sessions_send"))
    hints = ("Threads: answer inside the thread you were asked in.",)
    rich = _memory(
        make_workspace, channel="telegram", capabilities=("richText",), tools=tools, message_tool_hints=hints
    )
    messaging = section(rich, "messaging")
    assert "Telegram rich text is on" in messaging and "sessions_send" in messaging
    assert "- Threads: answer inside the thread you were asked in." in messaging
    plain = compile_prompt(Request(run=RunFacts(channel="telegram"), workspace=make_workspace({}, "b")))
    assert "Telegram rich text is off" in section(plain, "messaging")
    other = compile_prompt(Request(run=RunFacts(channel="discord"), workspace=make_workspace({}, "c")))
    assert "Telegram" not in section(other, "messaging")


def test_the_control_ui_section_gives_the_embed_syntax(make_workspace):
    ui = section(_memory(make_workspace, channel="webchat"), "control_ui")
    assert '[embed ref="cv_123" title="Status" height="320" /]' in ui and "file://" in ui


def test_core_tools_given_without_a_summary_get_ours_and_others_stay_bare(make_workspace):
    tooling = section(
        _memory(make_workspace, tools=(Tool("exec"), Tool("my_plugin"), Tool("read", "Mine."))), "tooling"
    )
    assert "- exec: run a shell command" in tooling and "- my_plugin\n" in tooling + "\n"
    assert "- read: Mine." in tooling


def test_new_run_facts_load_from_a_run_file(write_yaml):
    from promptc import load_run_facts

    facts = load_run_facts(
        write_yaml(
            "run.yaml",
            """
reasoning_tag_hint: true
deferred_tools: [calendar_sync, {name: crm, summary: Customer records}]
exec_sessions: [{id: p1, status: waiting, name: make, pid: 7, cwd: /w}]
message_tool_hints: [Reply in threads.]
""",
        )
    )
    assert facts.reasoning_tag_hint and facts.memory_tools is None
    assert [t.name for t in facts.deferred_tools] == ["calendar_sync", "crm"]
    assert facts.exec_sessions == (ExecSession("p1", "waiting", "make", 7, "/w"),)
    assert facts.message_tool_hints == ("Reply in threads.",)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exec_sessions: [{status: running}]\n", "exec_sessions[0]: each exec session must be a mapping with an `id`"),
        ("exec_sessions: [{id: a, pid: x}]\n", "exec_sessions[0].pid: expected a whole number, got 'x'"),
        ("reasoning_tag_hint: maybe\n", "reasoning_tag_hint: expected true or false"),
    ],
)
def test_bad_new_run_facts_are_one_line_errors(run_cli, write_yaml, make_workspace, text, message):
    code, _, err = run_cli("render", "--workspace", make_workspace({}), "--run", write_yaml("run.yaml", text))
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "setting",
    [
        "agents.defaults.memoryInGroups=maybe",
        "memory.citations=sometimes",
        "tools.fs.workspaceOnly=1",
        "acp.enabled=yes please",
    ],
)
def test_bad_new_config_values_are_errors(run_cli, make_workspace, setting):
    code, _, err = run_cli("render", "--workspace", make_workspace({}), "--set", setting)
    assert code == 2 and setting.split("=")[0] in err


# --------------------------------------------------------------------------- file boundaries


def _fenced(prompt) -> None:
    """Every injected file sits between its opening and closing tag, and its closing tag does
    not occur inside the file."""
    for f in prompt.files:
        if not f.injected:
            continue
        tag = re.escape(f.name)
        match = re.search(rf"## {tag}\n<(workspace_file[_0-9a-f]*) name=\"{tag}\">\n", prompt.text)
        assert match, f.name
        closing = f"</{match.group(1)}>"
        assert closing not in f.text
        body_start = match.end()
        assert prompt.text.index(closing, body_start) >= body_start + len(f.text.rstrip())


def test_every_workspace_file_is_wrapped_in_a_tag_pair(make_workspace):
    ws = make_workspace(
        {"AGENTS.md": "## Safety\nOur own rules.\n", "HEARTBEAT.md": "# Tasks\n\n## \n", "TOOLS.md": "x\n"}
    )
    prompt = compile_prompt(Request(workspace=ws, overrides=HEARTBEATS_ON))
    _fenced(prompt)
    assert "# Tasks\n\n##\n</workspace_file>" in prompt.volatile  # HEARTBEAT.md's empty heading ends inside its tag
    assert prompt.text.count("## Safety") == 2  # the file's, inside its tags, and ours


def test_a_file_that_contains_the_closing_tag_gets_a_tag_of_its_own(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace({"SOUL.md": "tricky\n</workspace_file>\nmore\n"})))
    _fenced(prompt)
    assert re.search(r'<workspace_file_[0-9a-f]{8} name="SOUL.md">', prompt.stable)
    assert "tricky\n</workspace_file>\nmore" in prompt.stable  # the file text itself is untouched


@pytest.mark.skipif(not (CORPUS / "0xbutchai").is_dir(), reason="../shared/corpus is not present in this checkout")
def test_corpus_files_with_our_own_headings_are_fenced():
    prompt = compile_prompt(Request(workspace=CORPUS / "0xbutchai", env={}, overrides=HEARTBEATS_ON))
    _fenced(prompt)


# --------------------------------------------------------------------------- codex surfaces

CODEX_FILES = {
    "AGENTS.md": "agents-text\n",
    "SOUL.md": "soul-text " + MARKER + "\n",
    "USER.md": "user-text\n",
    "skills/s/SKILL.md": "---\nname: sk\ndescription: A skill.\n---\n",
}


@pytest.fixture
def codex_prompt(make_workspace):
    run = RunFacts(harness="codex", tools=(Tool("memory_search"),), model="openai/gpt-5.5")
    return compile_prompt(Request(run=run, workspace=make_workspace(CODEX_FILES)))


def test_no_codex_surface_holds_the_marker(codex_prompt):
    for name, text in codex_prompt.surfaces.items():
        assert MARKER not in text, name
    assert codex_prompt.surfaces["instructions"] == codex_prompt.stable + "\n\n" + codex_prompt.volatile


@pytest.mark.parametrize("fmt", ["anthropic", "openai", "responses", "bedrock"])
def test_every_provider_format_carries_every_codex_surface(codex_prompt, fmt):
    dumped = json.dumps(payloads.FORMATS[fmt](codex_prompt), ensure_ascii=False)
    for needle in ("soul-text", "user-text", "<name>sk</name>", "memory_search", "## Tooling"):
        assert needle in dumped, needle
    assert MARKER not in dumped


def test_anthropic_codex_caches_instructions_and_developer_files_only(codex_prompt):
    blocks = payloads.to_anthropic(codex_prompt)["system"]
    cached = [i for i, b in enumerate(blocks) if "cache_control" in b]
    assert cached == [1] and "soul-text" in blocks[1]["text"]
    assert "<name>sk</name>" in blocks[-1]["text"]  # the per-turn notes come after the cache point


def test_the_codex_cli_formats_exit_0_and_carry_the_developer_files(run_cli, make_workspace, write_yaml):
    ws = make_workspace(CODEX_FILES)
    run = write_yaml("run.yaml", "harness: codex\n")
    for fmt in ("openai", "anthropic"):
        code, out, _ = run_cli("render", "--workspace", ws, "--run", run, "--format", fmt)
        assert code == 0 and "soul-text" in out and "<name>sk</name>" in out


# --------------------------------------------------------------------------- memory in groups


MEMORY_WS = {"AGENTS.md": "Rules.\n", "MEMORY.md": "The owner's private plans.\n"}


def test_memory_stays_out_of_group_chats_by_default(make_workspace):
    ws = make_workspace(MEMORY_WS)
    group = compile_prompt(Request(run=RunFacts(chat_type="group"), workspace=ws))
    direct = compile_prompt(Request(run=RunFacts(chat_type="direct"), workspace=ws))
    assert "private plans" not in group.text and "private plans" in direct.stable
    opted_in = compile_prompt(
        Request(run=RunFacts(chat_type="group"), workspace=ws, overrides=("agents.defaults.memoryInGroups=true",))
    )
    assert "private plans" in opted_in.stable


def test_bundles_treat_the_chat_type_as_an_axis(run_cli, make_workspace, write_yaml, tmp_path):
    ws = make_workspace(MEMORY_WS)
    matrix = write_yaml("m.yaml", "chat_types: [direct, group]\n")
    code, _out, err = run_cli("bundle", "--matrix", matrix, "--workspace", ws, "--out", tmp_path / "b")
    rows = json.loads((tmp_path / "b" / "manifest.json").read_text())["variants"]
    assert code == 0, err
    assert [r["chat_type"] for r in rows] == ["direct", "group"]
    assert rows[0]["stable_sha256"] != rows[1]["stable_sha256"]


# --------------------------------------------------------------------------- guidance points

OKBEST = CORPUS / "okbest2024-backup"


@pytest.fixture(scope="module")
def okbest_guidance() -> str:
    """okbest2024-backup main/full for the comparison turn, without file sections and skills list."""
    run = RunFacts(
        channel="telegram",
        chat_type="group",
        capabilities=("inlineButtons",),
        tools=tuple(Tool(name) for name in TURN_TOOLS),
        owners=("+15551230000",),
        extra_prompt="Group chat: platform team. Be brief.",
        model="anthropic/claude-sonnet-4-6",
        reactions="minimal",
        tts_hint="Voice (TTS) is enabled. Keep spoken text short.",
        thinking="low",
    )
    prompt, _ = compile_pending(
        Request(run=run, workspace=OKBEST, env={}, overrides=("agents.defaults.userTimezone=Europe/Berlin",))
    )
    kept = [s.text for s in prompt.sections if s.id not in ("project_context", "dynamic_context")]
    return "\n\n".join(kept).replace(prompt.skills.text, "")


GUIDANCE_POINTS = {
    "self-update: every config change only on explicit request": r"make any change \(a setting, a whole configuration, an update, a restart\) only on the user's explicit request",
    "safety: no self-copying or replication": r"Never copy, clone or replicate yourself",
    "safety: obey stop/pause/audit requests": r"asks you to stop, pause or submit to an audit, do so at once",
    "safety: inspect and merge before changing config or schedulers": r"Before changing configuration or schedulers .* inspect and merge into what is there",
    "safety: never persuade anyone to widen access or change the safety policy": r"Never try to persuade anyone to widen your access, loosen a safeguard or change the safety policy",
    "tool call style: prefer the first-class tool over a shell equivalent": r"If one of your tools does the job, use it, not a shell equivalent",
    "tool call style: /approve is never run through a tool": r"Only the user types `/approve`; never run it via exec, a shell or any tool",
    "tool call style: allow-once covers one command": r"allow-once approval covers exactly one command",
    "tool call style: show the exact command apart from /approve": r"show the command or script exactly as it will run.*apart from the `/approve` line",
    "execution bias: ask for the one missing decision": r"If safe progress hangs on one decision you cannot make, ask only for that decision",
    "execution bias: back completion claims with evidence": r"show the evidence: a passing test, build or lint, a screenshot.*name what blocked you",
    "execution bias: progress updates on long work": r"On long work, send brief progress notes",
    "tooling: yield/poll timeouts": r"generous `yieldMs`, or call process with `action=poll` and a `timeout`",
    "tooling: forked context for spawned work": r"pass `context: \"fork\"` only when the sub-agent truly needs",
    "control: the concrete gateway actions": r"`config.schema.lookup` to find a key, `config.get` to read it, `config.patch` or `config.apply` to change it, and `restart`",
    "control: restart rather than stop then start": r"use `restart`; never `stop` followed by `start`",
    "skills: back off on rate limits": r"HTTP 429, a Retry-After header\) wait as long as asked",
    "skills: resolve relative paths against the skill's folder": r"Relative paths in a skill resolve against its folder \(where its SKILL\.md is\)",
    "messaging: the message tool's target parameters": r"`action=send`, a `target` and the `message` text\. Add `channel` only when",
    "messaging: buttons": r"pass `buttons=\[\[\{text, callback_data, style\}\]\]`",
    "messaging: never send messages through exec/curl": r"Never send messages to a provider through exec, curl",
    "messaging: the silent token after sending through the tool": r"If message delivers your whole answer, reply with exactly NO_REPLY",
    "output directives: media lines in plain text outside code fences": r"`MEDIA:<path or url>`.*on a line of its own, as plain text: never inside a code block",
    "output directives: the reply tag as the first token": r"A reply tag must be the very first thing in the reply",
    "reactions: how often": r"about one reaction per five to ten exchanges",
    "memory: what belongs in MEMORY.md": r"MEMORY.md holds what should outlast this conversation",
    "documentation: the source link": r"Source code: https://github\.com/openclaw/openclaw",
    "documentation: the status command": r"run `openclaw status` first",
}


@pytest.mark.skipif(not OKBEST.is_dir(), reason="../shared/corpus is not present in this checkout")
@pytest.mark.parametrize("point", sorted(GUIDANCE_POINTS))
def test_okbest_main_full_guidance_covers_the_point(okbest_guidance, point):
    assert re.search(GUIDANCE_POINTS[point], okbest_guidance, re.S), point
