"""The warnings summary `render` prints on standard error (features/report/summary.py): cut files
with their sizes, skipped SKILL.md files grouped by why, skills left out of the list, cut skill
descriptions, ignored OpenClaw keys and template-like files that are not read; never on stdout,
never changing the exit code, and nothing at all with `--quiet`."""

from __future__ import annotations

import json

import pytest

from support.paths import CORPUS, EXAMPLES
from support.skills import skill_md

OKBEST = CORPUS / "okbest2024-backup"
HINT = "promptc: `promptc context` with the same flags shows every file and skill; --quiet hides these warnings\n"


def _warnings(err: str) -> list[str]:
    assert err.endswith(HINT)
    lines = err.splitlines()
    assert all(line.startswith("promptc: warning: ") for line in lines[:-1])
    return [line.removeprefix("promptc: warning: ") for line in lines[:-1]]


def test_a_cut_file_is_named_with_its_size_before_and_after(run_cli, make_workspace):
    soul = "".join(f"line {i} of my soul\n" for i in range(3000))
    ws = make_workspace({"SOUL.md": soul})
    code, out, err = run_cli("render", "--workspace", ws)
    injected = next(
        f
        for f in json.loads(run_cli("context", "--workspace", ws, "--format", "json")[1])["files"]
        if f["name"] == "SOUL.md"
    )
    assert code == 0 and injected["injected_chars"] <= 20000
    assert _warnings(err) == [
        f"SOUL.md cut from {len(soul.rstrip()):,} to {injected['injected_chars']:,} characters (per-file limit)"
    ]
    assert run_cli("render", "--workspace", ws, "--quiet") == (0, out, "")


def test_skipped_skill_files_are_grouped_and_other_skill_notes_kept(run_cli, make_workspace, write_yaml, tmp_path):
    files = {f"skills/bare{i}/SKILL.md": "# no frontmatter\n" for i in range(3)}
    files["skills/nodesc/SKILL.md"] = "---\nname: nodesc\n---\n"
    files["skills/ok/SKILL.md"] = skill_md("ok", "fine")
    ws = make_workspace(files)
    missing = tmp_path / "not-there"
    config = write_yaml("extra.yaml", f"skills:\n  load:\n    extraDirs: [{missing}]\n")
    code, _, err = run_cli("render", "--workspace", ws, "--config", config)
    assert code == 0
    assert _warnings(err) == [
        "4 SKILL.md files skipped (no frontmatter: 3, no description: 1)",
        f"{missing}: skills.load.extraDirs entry is not a directory",
    ]


def test_skills_left_out_of_the_list_and_the_compact_form_are_counted(run_cli, make_workspace, write_yaml):
    # 40 skills, 30 within the count limit; each one's compact element is 134 characters with its
    # line breaks (10 + 21 for the name `sNN` + 45 for the location `skills/sNN/SKILL.md` + 47
    # for the version + 11), so 9,000 characters hold 66 of them: all 30 fit without
    # descriptions, not with theirs (about 300 characters each).
    files = {f"skills/s{i:02}/SKILL.md": skill_md(f"s{i:02}", f"does R&D thing <{i}> " * 12) for i in range(40)}
    ws = make_workspace(files)
    config = write_yaml("small.yaml", "skills:\n  limits:\n    maxSkillsPromptChars: 9000\n    maxSkillsInPrompt: 30\n")
    code, out, err = run_cli("render", "--workspace", ws, "--config", config)
    data = json.loads(run_cli("context", "--workspace", ws, "--config", config, "--format", "json")[1])
    assert code == 0 and out.count("<skill>") == 30 and "<description>" not in out
    assert data["skills_format"] == "compact" and data["skills_summary"]["listed"] == 30
    assert data["skills_note"] == (
        "(Skills list shortened to fit its budget: 30 of 40 eligible skills listed, names and locations only.)"
    )
    assert _warnings(err) == [
        "10 eligible skills left out of the skills list (over maxSkillsInPrompt: 10)",
        "skills list in its compact form: the descriptions of all 30 listed skills left out to fit the skills budget",
    ]
    text = run_cli("context", "--workspace", ws, "--config", config)[1]
    assert "30 listed in the compact form (names and locations; descriptions omitted" in text


def test_a_list_cut_to_fewer_skills_in_the_compact_form_says_both(run_cli, make_workspace, write_yaml):
    # The prompt names the workspace /srv/ws, so a location is `/srv/ws/skills/s00/SKILL.md`.
    # 30 compact elements of 142 characters are 4,260; 2,000 characters hold 10 of them
    # (10 * 142 + 38 for the list tags + 414 held for the lines introducing the list + the note
    # line of 101 and its line break = 1,974; with 11 it is 2,116).
    ws = make_workspace(
        {f"skills/s{i:02}/SKILL.md": skill_md(f"s{i:02}", "a long description " * 12) for i in range(30)}
    )
    tree = "agents:\n  defaults:\n    workspace: /srv/ws\nskills:\n  limits:\n    maxSkillsPromptChars: 2000\n"
    config = write_yaml("tiny.yaml", tree)
    code, out, err = run_cli("render", "--workspace", ws, "--config", config)
    assert code == 0 and "<description>" not in out and out.count("<skill>") == 10
    assert "<location>/srv/ws/skills/s00/SKILL.md</location>" in out
    assert _warnings(err) == [
        "20 eligible skills left out of the skills list (skills budget: 20)",
        "skills list in its compact form: the descriptions of all 10 listed skills left out to fit the skills budget",
        f"the prompt names the workspace /srv/ws (agents.defaults.workspace); its files were read from {ws}",
    ]


def test_ignored_openclaw_keys_and_unread_template_files_are_said(run_cli, tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "house.md.j2").write_text("---\nid: house\norder: 950\nside: stable\nmodes: [full]\n---\nHouse.\n")
    (templates / "persona_reminder.j2").write_text(
        "---\nid: persona_reminder\norder: 960\nside: stable\nmodes: [full]\n---\nBe kind.\n"
    )
    openclaw = tmp_path / "openclaw.json"
    openclaw.write_text('{"gateway": {"port": 1}, "agents": {"defaults": {"model": "x"}}}\n')
    code, _, err = run_cli(
        "render", "--workspace", EXAMPLES / "workspace", "--templates", templates, "--config", openclaw
    )
    warnings = _warnings(err)
    assert code == 0 and len(warnings) == 2
    assert warnings[0].startswith(
        f"{openclaw}: OpenClaw settings promptc does not use were accepted unchecked: gateway"
    )
    assert warnings[1].startswith(f"{templates / 'persona_reminder.j2'}: has section metadata but is not read as one")


def test_a_clean_compile_prints_nothing_on_stderr(run_cli, make_workspace):
    assert run_cli("render", "--workspace", make_workspace({"SOUL.md": "calm\n"}))[2] == ""


def test_the_summary_follows_an_output_written_to_a_file(run_cli, make_workspace, tmp_path):
    ws = make_workspace({"SOUL.md": "x\n" * 15000})
    code, out, err = run_cli("render", "--workspace", ws, "--out", tmp_path / "prompt.txt")
    assert (code, out) == (0, "") and _warnings(err)[0].startswith("SOUL.md cut from 29,999 to ")
    assert (tmp_path / "prompt.txt").read_text(encoding="utf-8") == run_cli("render", "--workspace", ws, "--quiet")[1]


@pytest.mark.skipif(not OKBEST.is_dir(), reason="the corpus is not checked out beside the repo")
def test_okbest_prints_the_summary_and_the_same_stdout_as_quiet(run_cli):
    loud = run_cli("render", "--workspace", OKBEST)
    quiet = run_cli("render", "--workspace", OKBEST, "--quiet")
    assert (loud[0], loud[1]) == (quiet[0], quiet[1]) == (0, quiet[1]) and quiet[2] == ""
    warnings = _warnings(loud[2])
    # This workspace: MEMORY.md 98,507 -> 19,964 characters (75/25 of what the marker leaves), 10 SKILL.md files skipped,
    # 85 skills listed whose descriptions are over the 18,000 budget, so the list takes its compact form,
    # two SKILL.md files whose frontmatter strict YAML refuses (read line by line, each named).
    assert warnings[0] == "MEMORY.md cut from 98,507 to 19,964 characters (per-file limit)"
    assert warnings[1].startswith("10 SKILL.md files skipped (")
    assert warnings[2] == (
        "skills list in its compact form: the descriptions of all 85 listed skills left out to fit the skills budget"
    )
    assert [w.split(": ", 1)[0].rsplit("/", 2)[1] for w in warnings[3:]] == [
        "a-stock-analysis-1.0.0",
        "feishu-drive-1.0.0",
    ]
    assert len(warnings) == 5  # each skipped skill's own diagnostic is in `promptc context`, not here
