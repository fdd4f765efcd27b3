"""`promptc context` (emit/context.py): a header naming the workspace and config files, a row for
every bootstrap file with its tokens, the filtered ones with their filter; skill counts with the
reasons grouped; the section list with each order; a look that records no state; no name a
diagnostic quotes can forge a line of the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from support.factories import write_files
from support.paths import CORPUS, EXAMPLES
from support.skills import skill_md


def test_a_file_a_filter_left_out_has_a_row_naming_the_filter(run_cli, make_workspace):
    ws = make_workspace({"SOUL.md": "calm\n", "HEARTBEAT.md": "- water the plants\n" * 10, "MEMORY.md": "likes tea\n"})
    code, out, _ = run_cli("context", "--workspace", ws, "--chat-type", "group")
    assert code == 0
    rows = {
        line.split()[0]: line for line in out.splitlines() if line.startswith("  ") and line.split()[0].endswith(".md")
    }
    assert rows["HEARTBEAT.md"].split()[1:4] == [
        "filtered",
        "189",
        "0",
    ]  # counted as the budget does: trailing space trimmed
    assert rows["HEARTBEAT.md"].endswith(
        "heartbeat filter: heartbeat guidance is off for this agent (heartbeat.enabled, includeSystemPromptSection)"
    )
    assert "chat filter: MEMORY.md stays out of group chats" in rows["MEMORY.md"]
    assert rows["BOOTSTRAP.md"].split()[1:4] == ["missing", "0", "0"]
    data = json.loads(run_cli("context", "--workspace", ws, "--chat-type", "group", "--format", "json")[1])
    assert [f["name"] for f in data["files"]] == [
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
        "MEMORY.md",
    ]
    assert data["totals"]["files_raw_chars"] == len("calm") + 189 + len("likes tea")


def test_a_subagent_run_names_the_session_filter(run_cli, make_workspace):
    ws = make_workspace({"SOUL.md": "calm\n", "AGENTS.md": "rules\n"})
    out = run_cli("context", "--workspace", ws, "--session", "subagent")[1]
    soul = next(line for line in out.splitlines() if line.startswith("  SOUL.md"))
    assert soul.split()[1] == "filtered" and soul.endswith("session filter: a subagent session leaves it out")


def test_skill_counts_say_what_was_found_eligible_listed_and_skipped(run_cli, make_workspace):
    files = {f"skills/bare{i}/SKILL.md": "# no frontmatter\n" for i in range(3)}
    files["skills/nodesc/SKILL.md"] = "---\nname: nodesc\n---\n"
    files["skills/ok/SKILL.md"] = "---\nname: ok\ndescription: fine\n---\n"
    files["skills/gh/SKILL.md"] = (
        "---\nname: gh\ndescription: github\nmetadata: {requires: {bins: [no-such-binary-here]}}\n---\n"
    )
    code, out, _ = run_cli("context", "--workspace", make_workspace(files))
    assert code == 0
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Skills:"))
    assert lines[start : start + 3] == [
        "Skills: 6 SKILL.md found, 1 eligible, 1 listed",
        "  not eligible: 1 (binaries not on PATH: 1)",
        "  skipped: 4 (no frontmatter: 3, no description: 1)",
    ]


@pytest.mark.skipif(not (CORPUS / "okbest2024-backup").is_dir(), reason="the corpus is not checked out beside the repo")
def test_okbest_heartbeat_file_has_its_row():
    from promptc import Request, compile_prompt
    from promptc.emit import context

    prompt = compile_prompt(Request(workspace=CORPUS / "okbest2024-backup", plugins=False))
    row = next(f for f in context.report(prompt)["files"] if f["name"] == "HEARTBEAT.md")
    # 6,734 characters with its last newline; the report counts as the budget does, trimmed.
    assert (row["status"], row["raw_chars"], row["injected_chars"]) == ("filtered", 6733, 0)
    assert row["reason"].startswith("heartbeat filter:")


@pytest.mark.skipif(not (CORPUS / "ws-21967201").is_dir(), reason="the corpus is not checked out beside the repo")
def test_81_skill_files_without_frontmatter_are_counted_as_skipped(run_cli):
    out = run_cli("context", "--workspace", CORPUS / "ws-21967201")[1]
    assert "Skills: 81 SKILL.md found, 0 eligible, 0 listed\n  skipped: 81 (no frontmatter: 81)\n" in out
    assert "0 listed, 0 not listed" not in out


def test_two_looks_show_the_same_once_notice_and_record_no_state(run_cli, make_workspace, write_yaml, tmp_path):
    ws = make_workspace({"AGENTS.md": "x" * 30000})
    config = write_yaml("once.yaml", "agents:\n  defaults:\n    bootstrapPromptTruncationWarning: once\n")
    session = tmp_path / "session.json"
    session.write_text('{"other": "kept"}\n', encoding="utf-8")
    args = ["--workspace", ws, "--config", config, "--session-state", session]
    looks = [run_cli("context", *args, "--detail")[1] for _ in range(2)]
    assert looks[0] == looks[1] and "bootstrap_notice" in looks[0]
    listed = [run_cli("render", *args, "--list-sections")[1] for _ in range(2)]
    assert listed[0] == listed[1] and "bootstrap_notice         active" in listed[0]
    assert run_cli("render", *args, "--no-state")[0] == 0
    assert session.read_text(encoding="utf-8") == '{"other": "kept"}\n'
    assert not (ws / ".promptc" / "workspace-state.json").exists()
    # A real turn records the notice as shown; the next look tells the truth about it.
    assert run_cli("render", *args)[0] == 0
    assert session.read_text(encoding="utf-8") != '{"other": "kept"}\n'
    assert "bootstrap_notice         inactive" in run_cli("render", *args, "--list-sections")[1]


def test_a_look_never_records_setup_completion(run_cli, tmp_path):
    ws = tmp_path / "ws"
    assert run_cli("init", ws)[0] == 0
    (ws / "BOOTSTRAP.md").unlink()  # setup done: the next turn records it
    before = (ws / ".promptc" / "workspace-state.json").read_bytes()
    for command in (["context"], ["render", "--list-sections"], ["render", "--no-state"]):
        assert run_cli(*command, "--workspace", ws)[0] == 0
    assert (ws / ".promptc" / "workspace-state.json").read_bytes() == before
    assert run_cli("render", "--workspace", ws)[0] == 0
    assert b"setupCompletedAt" in (ws / ".promptc" / "workspace-state.json").read_bytes()


def test_section_token_counts_are_made_only_where_they_are_shown(run_cli, make_workspace, monkeypatch):
    from promptc.emit import tokens

    workspace = make_workspace({"AGENTS.md": "# Rules\n\nAsk first.\n"})
    data = json.loads(run_cli("context", "--workspace", workspace, "--format", "json")[1])
    injected = sum(1 for f in data["files"] if f["injected_chars"])
    counted: list[str] = []
    real = tokens.count_for
    monkeypatch.setattr(tokens, "count_for", lambda text, model: counted.append(text) or real(text, model))
    code, out, _ = run_cli("context", "--workspace", workspace)
    assert code == 0 and "Sections:" not in out
    # The stable and the volatile part, and each injected file (its row shows its tokens): no section.
    assert len(counted) == 2 + injected and "# Rules\n\nAsk first." in counted
    counted.clear()
    code, out, _ = run_cli("context", "--workspace", workspace, "--detail")
    assert code == 0 and "Sections:" in out and len(counted) > 2 + injected
    code, out, _ = run_cli("context", "--workspace", workspace, "--format", "json")
    assert code == 0 and all("tokens" in section for section in json.loads(out)["sections"])


# --------------------------------------------------------------------------- one line per diagnostic

FORGED = "bad\npromptc: error: forged\x1b[2J"


def test_a_skill_directory_name_cannot_forge_a_line_in_the_context_report(run_cli, tmp_path: Path) -> None:
    ws = write_files(
        tmp_path / "ws",
        {
            f"skills/{FORGED}/SKILL.md": "---\nname: [unclosed\n---\n",  # a warning that names the path
            f"skills/{FORGED}-named/SKILL.md": skill_md(None, "Named after its directory"),
            "skills/needy/SKILL.md": skill_md(
                "needy", "Needs a tool", 'metadata: {requires: {bins: ["x\\npromptc: error: forged"]}}'
            ),
        },
    )
    code, out, err = run_cli("context", "--workspace", ws, "--detail")
    assert (code, err) == (0, "")
    assert not any(line.startswith("promptc: error") or "\x1b" in line for line in out.splitlines()), out
    escaped = "bad\\npromptc: error: forged\\x1b[2J"
    assert f"  - {ws}/skills/{escaped}/SKILL.md: frontmatter is not valid YAML" in out
    assert f"  + {escaped}-named" in out.splitlines()
    assert "  - needy (ineligible: binaries not on PATH: x\\npromptc: error: forged)" in out.splitlines()
    code, out, _ = run_cli("render", "--workspace", ws, "--no-state")
    assert "<name>bad&#10;promptc: error: forged\ufffd[2J-named</name>" in out  # the prompt keeps the name


def test_the_header_names_the_workspace_and_every_config_file(run_cli, make_workspace, write_yaml):
    ws = make_workspace({"SOUL.md": "calm\n"})
    first = write_yaml("a.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 9000\n")
    second = write_yaml("b.yaml", "agents:\n  defaults:\n    bootstrapTotalMaxChars: 30000\n")
    out = run_cli(
        "context", "--workspace", ws, "--config", first, "--config", second, "--set", "agents.defaults.userTimezone=UTC"
    )[1]
    lines = out.splitlines()
    assert lines[1:3] == [
        f"Workspace: {ws.resolve()} (from --workspace)",
        f"Config: {first}, {second} over the built-in defaults, then 1 --set override",
    ]
    assert "budget 9000 per file, 30000 in total" in out  # the files named are the ones read
    bare = run_cli("context", "--workspace", ws)[1].splitlines()
    assert bare[1:3] == [f"Workspace: {ws.resolve()} (from --workspace)", "Config: the built-in defaults"]
    none = run_cli("context", "--mode", "none")[1].splitlines()
    assert none[1] == "Workspace: none read (none mode reads no workspace)"


def test_every_file_row_has_the_tokens_of_what_is_injected(run_cli, make_workspace):
    from promptc.emit import tokens

    soul, user = "Calm and kind; speaks plainly.\n", "她喜欢喝茶，也喜欢在早上散步。\n" * 40
    ws = make_workspace({"SOUL.md": soul, "USER.md": user})
    out = run_cli("context", "--workspace", ws)[1]
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  ") and ".md" in line}
    header = next(line.split() for line in out.splitlines() if line.startswith("  file "))
    column = header.index("tokens")
    assert int(rows["SOUL.md"][column]) == tokens.count_for(soul.rstrip(), None) > 0
    assert int(rows["USER.md"][column]) == tokens.count_for(user.rstrip(), None)
    assert int(rows["USER.md"][column]) < len(user.rstrip())  # Chinese text: fewer tokens than characters
    missing = [r for name, r in rows.items() if r[1] == "missing"]
    total = next(line.split() for line in out.splitlines() if line.startswith("  total"))
    injected = {name: r for name, r in rows.items() if r[1] in ("ok", "missing")}
    assert int(total[3]) == sum(int(r[column]) for r in injected.values()) and missing


def test_list_sections_shows_each_sections_order(run_cli, make_workspace):
    from promptc._lib.resources import templates_root

    ws = make_workspace({})
    text = run_cli("render", "--workspace", ws, "--list-sections")[1]
    data = json.loads(run_cli("render", "--workspace", ws, "--list-sections", "--format", "json")[1])
    for section in ("safety", "runtime", "model_identity"):
        source = (templates_root() / "sections" / f"{section}.md.j2").read_text(encoding="utf-8")
        order = int(next(line.split(":")[1] for line in source.splitlines() if line.startswith("order:")))
        line = next(line for line in text.splitlines() if line.startswith(section + " "))
        assert re.search(rf"\b(active|inactive) +order +{order}  ", line), line
        assert next(row for row in data if row["id"] == section)["order"] == order


def test_a_one_character_section_says_char_not_chars(run_cli, make_workspace, tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "tiny.md.j2").write_text("---\nid: tiny\norder: 955\nside: stable\nmodes: [full]\n---\nx\n")
    listing = run_cli("render", "--workspace", make_workspace({}), "--templates", templates, "--list-sections")[1]
    line = next(line for line in listing.splitlines() if line.startswith("tiny "))
    assert "; stable, 1 char  [" in line


def test_the_keep_warm_schedule_is_reported_and_none_for_a_session_sent_uncached(run_cli):
    inputs = ("--config", EXAMPLES / "config.yaml", "--config", EXAMPLES / "cache-long-lived.yaml")
    inputs += ("--run", EXAMPLES / "run.yaml")
    code, out, err = run_cli("context", *inputs)
    assert code == 0, err
    assert (
        "Keep-warm: while the model is idle, a ping every 55m for up to 2h after its last turn "
        "(prompt.cache.keepWarm; `promptc render --format anthropic --ping` prints the request)\n"
    ) in out
    code, out, _ = run_cli("context", *inputs, "--session", "cron", "--format", "json")
    assert json.loads(out)["keep_warm"] is None  # cron runs are sent without breakpoints in this layout
    code, out, _ = run_cli("context", *inputs, "--format", "json")
    assert json.loads(out)["keep_warm"] == {
        "every": "55m",
        "window": "2h",
        "every_seconds": 3300,
        "window_seconds": 7200,
    }
