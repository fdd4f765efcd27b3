"""The workspace half seen through the public surfaces: JSON, context report, init, codex."""

from __future__ import annotations

import itertools
import json

import pytest

from promptc import Request, RunFacts, compile_prompt

from support.paths import CORPUS

BIG = "x" * 24999 + "\n"


def test_budgets_show_in_json_files_and_in_the_context_report(run_cli, make_workspace):
    files = {name: BIG for name in ("AGENTS.md", "SOUL.md")}
    files.update({"TOOLS.md": "t" * 19_600, "USER.md": "u" * 900, "MEMORY.md": "m" * 900})
    ws = make_workspace(files)
    code, out, _ = run_cli("render", "--workspace", ws, "--format", "json")
    data = json.loads(out)
    status = {f["name"]: (f["status"], f["raw_chars"], f["injected_chars"]) for f in data["files"]}
    assert code == 0
    assert sum(f["injected_chars"] for f in data["files"]) <= 60000
    assert [status[n][0] for n in ("AGENTS.md", "SOUL.md", "TOOLS.md")] == ["truncated", "truncated", "ok"]
    # Two cut files of about 20,000, TOOLS.md and IDENTITY.md's missing marker leave USER.md ~350.
    assert status["USER.md"][0] == "truncated" and 64 <= status["USER.md"][2] < 400
    assert status["MEMORY.md"] == ("dropped", 900, 0)  # fewer than 64 left: the walk stopped
    assert all(status[n][2] <= 20000 for n in status)
    code, report, _ = run_cli("context", "--workspace", ws)
    rows = {
        line.split()[0]: line.split()
        for line in report.splitlines()
        if line.startswith("  ") and line.split()[0].endswith(".md")
    }
    assert rows["MEMORY.md"][:4] == ["MEMORY.md", "dropped", "900", "0"]
    assert rows["SOUL.md"][1] == "truncated" and rows["SOUL.md"][2] == "24999"


def test_context_json_has_totals_and_token_method(run_cli, make_workspace):
    code, out, _ = run_cli("context", "--workspace", make_workspace({"AGENTS.md": "Rules.\n"}), "--format", "json")
    data = json.loads(out)
    totals = data["totals"]
    assert code == 0
    assert 0 < totals["stable_share"] < 1
    assert totals["stable_chars"] > totals["volatile_chars"] > 0
    assert data["tokens"]["method"].startswith(("exact", "estimate"))
    assert [f["name"] for f in data["files"]][:1] == ["AGENTS.md"]


def test_absent_optional_files_get_no_marker_but_core_files_do(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace({"AGENTS.md": "Rules.\n"})))
    names = [f.name for f in prompt.files]
    assert names == ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"]
    assert [f.status for f in prompt.files[1:]] == ["missing"] * 4
    assert "## SOUL.md" in prompt.stable and "## BOOTSTRAP.md" not in prompt.text


def test_heartbeat_skip_is_reported(make_workspace):
    ws = make_workspace({"HEARTBEAT.md": "# Tasks\n\n- [ ]\n<!-- nothing yet -->\n"})
    heartbeat = RunFacts(session="heartbeat")
    assert compile_prompt(Request(run=heartbeat, workspace=ws)).heartbeat_skip is True
    (ws / "HEARTBEAT.md").write_text("# Tasks\n- water the basil\n")
    assert compile_prompt(Request(run=heartbeat, workspace=ws)).heartbeat_skip is False


def test_heartbeat_file_sits_below_the_boundary(make_workspace):
    ws = make_workspace({"AGENTS.md": "Rules.\n", "HEARTBEAT.md": "- check the oven timer\n"})
    prompt = compile_prompt(Request(workspace=ws, overrides=("agents.defaults.heartbeat.enabled=true",)))
    assert "check the oven timer" in prompt.volatile and "check the oven timer" not in prompt.stable
    assert "# Dynamic Project Context" in prompt.volatile


def test_init_then_bootstrap_until_deleted(run_cli, tmp_path):
    ws = tmp_path / "new"
    code, out, _ = run_cli("init", ws)
    assert code == 0 and "BOOTSTRAP.md" in out
    first = compile_prompt(Request(workspace=ws))
    assert "## BOOTSTRAP.md" in first.stable
    (ws / "BOOTSTRAP.md").unlink()
    compile_prompt(Request(workspace=ws, now="2026-11-30T00:00:00Z"))
    state = json.loads((ws / ".promptc" / "workspace-state.json").read_text())
    assert state["setupCompletedAt"] == "2026-11-30T00:00:00Z"
    (ws / "BOOTSTRAP.md").write_text("Setup again?\n")  # setup is complete: stays out
    assert "## BOOTSTRAP.md" not in compile_prompt(Request(workspace=ws)).text


def test_once_warning_mode_through_the_cli(run_cli, make_workspace, tmp_path):
    ws = make_workspace({"SOUL.md": "s" * 5000})
    state = tmp_path / "session.json"
    base = (
        "render",
        "--workspace",
        ws,
        "--set",
        "agents.defaults.bootstrapMaxChars=1000",
        "--set",
        "agents.defaults.bootstrapPromptTruncationWarning=once",
        "--session-state",
        state,
    )
    notice = "## Bootstrap Context Notice"
    assert notice in run_cli(*base)[1]
    assert notice not in run_cli(*base)[1]
    assert notice in run_cli(*base, "--set", "agents.defaults.bootstrapMaxChars=2000")[1]


def test_startup_memory_renders_once_below_the_boundary(make_workspace):
    prompt = compile_prompt(Request(run=RunFacts(startup_memory="Met the baker at 9."), workspace=make_workspace({})))
    assert "Met the baker at 9." in prompt.volatile and "## Recent Memory" in prompt.volatile


def test_daily_memory_notes_are_never_injected(make_workspace):
    ws = make_workspace({"memory/2026-11-29.md": "secret daily note\n", "MEMORY.md": "long-term note\n"})
    prompt = compile_prompt(Request(workspace=ws))
    assert "long-term note" in prompt.stable and "secret daily note" not in prompt.text


CODEX_FILES = {
    "AGENTS.md": "agents-text\n",
    "SOUL.md": "soul-text\n",
    "IDENTITY.md": "identity-text\n",
    "TOOLS.md": "tools-text\n",
    "USER.md": "user-text\n",
    "MEMORY.md": "memory-text\n",
    "HEARTBEAT.md": "- heartbeat-task\n",
    "skills/s/SKILL.md": "---\nname: sk\ndescription: A skill.\n---\n",
}


def test_codex_harness_routes_files_to_three_surfaces(run_cli, make_workspace, write_yaml):
    ws = make_workspace(CODEX_FILES)
    run = write_yaml("run.yaml", "harness: codex\nsession: heartbeat\nmemory_tools: true\n")
    code, out, _ = run_cli("render", "--workspace", ws, "--run", run, "--format", "json")
    surfaces = json.loads(out)["surfaces"]
    assert code == 0
    assert "agents-text" not in out  # the harness finds AGENTS.md itself
    for text in ("soul-text", "identity-text", "tools-text", "user-text"):
        assert text in surfaces["developer"] and text not in surfaces["instructions"]
    assert "memory-text" not in surfaces["instructions"]  # memory tools are available
    assert "<name>sk</name>" in surfaces["turn"] and "<available_skills>" not in surfaces["instructions"]
    assert "HEARTBEAT.md" in surfaces["turn"] and "memory_search" in surfaces["turn"]


def test_codex_keeps_memory_in_context_without_memory_tools(make_workspace):
    ws = make_workspace(CODEX_FILES)
    prompt = compile_prompt(Request(run=RunFacts(harness="codex"), workspace=ws))
    assert "memory-text" in prompt.surfaces["instructions"]
    assert "memory_search" not in prompt.surfaces["turn"]


CORPUS_FOLDERS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FOLDERS, reason="../shared/corpus is not present in this checkout")
@pytest.mark.parametrize("folder", CORPUS_FOLDERS)
def test_every_corpus_workspace_compiles_in_every_session_kind(folder):
    for session, mode in itertools.product(("main", "subagent", "cron", "heartbeat"), ("full", "minimal", "none")):
        prompt = compile_prompt(Request(run=RunFacts(session=session, mode=mode), workspace=CORPUS / folder, env={}))
        assert prompt.text.count("<!-- PROMPT_CACHE_BOUNDARY -->") == (0 if mode == "none" else 1)
        assert sum(f.injected_chars for f in prompt.files) <= 60000
        assert all(f.injected_chars <= 20000 for f in prompt.files)
        for f in prompt.files:
            if f.frontmatter is not None and f.injected:
                assert not f.text.startswith("---")


def test_bad_files_get_a_status_and_never_break_the_compile(make_workspace, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("secret from elsewhere\n")
    ws = make_workspace({"AGENTS.md": "x" * (3 * 1024 * 1024), "TOOLS.md": "ok\n"})
    (ws / "SOUL.md").symlink_to(outside)
    (ws / "USER.md").write_bytes(b"caf\xe9 \xff\xfe name\n")
    prompt = compile_prompt(Request(workspace=ws))
    files = {f.name: f for f in prompt.files}
    assert (files["AGENTS.md"].status, files["AGENTS.md"].reason) == ("skipped", "too large")
    assert (files["SOUL.md"].status, files["SOUL.md"].reason) == ("skipped", "outside workspace")
    assert files["USER.md"].status == "ok" and "\ufffd" in files["USER.md"].text
    assert "secret from elsewhere" not in prompt.text
    assert any("USER.md" in w for w in prompt.warnings)


def test_truncation_notice_has_no_numbers(make_workspace):
    prompt = compile_prompt(
        Request(
            workspace=make_workspace({"SOUL.md": "s" * 5000}), overrides=("agents.defaults.bootstrapMaxChars=1000",)
        )
    )
    notice = next(s.text for s in prompt.sections if s.id == "bootstrap_notice")
    assert not any(ch.isdigit() for ch in notice)
    assert any("SOUL.md" in w and "5000" in w for w in prompt.warnings)  # the numbers go to warnings


def test_none_mode_reads_no_workspace_and_reports_nothing_injected(run_cli, make_workspace):
    # A none-mode prompt is one line, so no file and no skill may be reported as in it.
    ws = make_workspace(
        {"AGENTS.md": "a" * 5000, "MEMORY.md": "m" * 900, "skills/s/SKILL.md": "---\nname: s\ndescription: S\n---\n"}
    )
    code, out, _ = run_cli("render", "--workspace", ws, "--mode", "none", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["mode"] == "none"
    assert data["files"] == [] and data["skills"] == []
    assert "a" * 50 not in data["text"]
    code, report, _ = run_cli("context", "--workspace", ws, "--mode", "none")
    assert code == 0 and "Skills: 0 SKILL.md found, 0 eligible, 0 listed" in report
    assert "AGENTS.md" not in report


def test_none_mode_leaves_the_setup_state_alone(run_cli, tmp_path):
    ws = tmp_path / "new"
    run_cli("init", ws)
    (ws / "BOOTSTRAP.md").unlink()
    compile_prompt(Request(run=RunFacts(mode="none"), workspace=ws, now="2026-11-30T00:00:00Z"))
    assert "setupCompletedAt" not in (ws / ".promptc" / "workspace-state.json").read_text()
