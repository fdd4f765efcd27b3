"""The command-line front end through `cli.main`: error reporting and exit codes, flags, standard
input and help, and the small commands (`config explain`, `init`)."""

from __future__ import annotations

import argparse
import io
import json
import os
import re

import pytest

from support.paths import EXAMPLES

ERROR_LINE = re.compile(r"^promptc: error: .+\n$")


def assert_one_line_error(code: int, out: str, err: str, starts: str) -> None:
    assert code == 2
    assert out == ""
    assert ERROR_LINE.match(err), err
    assert "Traceback" not in err
    assert err.startswith("promptc: error: " + starts), err


def test_malformed_yaml_config(run_cli, write_yaml, make_workspace):
    bad = write_yaml("bad.yaml", "agents:\n  defaults: [1,\n")
    code, out, err = run_cli("render", "--config", bad, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{bad}:3:1: invalid YAML")


def test_unknown_config_key_with_suggestion(run_cli, write_yaml, make_workspace):
    bad = write_yaml("bad.yaml", "prompt:\n  templateDir: []\n")
    code, out, err = run_cli("render", "--config", bad, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{bad}:2:3: unknown key 'prompt.templateDir' (did you mean 'templateDirs'?)")


def test_wrong_type(run_cli, write_yaml, make_workspace):
    bad = write_yaml("bad.yaml", "tools:\n  experimental:\n    planTool: yes please\n")
    code, out, err = run_cli("render", "--config", bad, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{bad}:3:5: tools.experimental.planTool: expected true or false")


def test_unknown_run_fact_key(run_cli, write_yaml, make_workspace):
    run = write_yaml("run.yaml", "session: main\nchanel: telegram\n")
    code, out, err = run_cli("render", "--run", run, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{run}:2:1: unknown run-fact key 'chanel' (did you mean 'channel'?)")


def test_an_unknown_run_fact_key_with_no_near_name_points_at_vars(run_cli, write_yaml, make_workspace):
    run = write_yaml("run.yaml", "session: main\ncompany: Acme\n")
    code, out, err = run_cli("render", "--run", run, "--workspace", make_workspace({}))
    assert_one_line_error(
        code,
        out,
        err,
        f"{run}:2:1: unknown run-fact key 'company' (a value for a template's own variable goes under `vars:`)",
    )


def test_bad_run_fact_value(run_cli, write_yaml, make_workspace):
    run = write_yaml("run.yaml", "session: nap\n")
    code, out, err = run_cli("render", "--run", run, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{run}:1:1: session: expected one of main, subagent, cron, heartbeat")


def test_template_syntax_error(run_cli, tmp_path, make_workspace):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "bad.md.j2").write_text(
        "---\nid: bad\norder: 5\nside: stable\nmodes: [full]\ntitle: Bad\n---\n{% for %}\n"
    )
    code, out, err = run_cli("render", "--templates", templates, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{templates / 'bad.md.j2'}:8:1: template syntax error")


def test_missing_workspace_dir(run_cli, tmp_path):
    missing = tmp_path / "nowhere"
    code, out, err = run_cli("render", "--workspace", missing)
    assert_one_line_error(code, out, err, f"{missing}: workspace directory not found")


def test_bad_usage_is_exit_2(run_cli):
    code, out, err = run_cli("render", "--format", "pdf")
    assert_one_line_error(code, out, err, "argument --format")


def test_errors_write_nothing(run_cli, write_yaml, tmp_path, make_workspace):
    target = tmp_path / "out.txt"
    bad = write_yaml("bad.yaml", "nope: 1\n")
    code, _, _ = run_cli("render", "--config", bad, "--workspace", make_workspace({}), "--out", target)
    assert code == 2 and not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "ws"]


def test_run_flags_override_the_run_file(run_cli, write_yaml, make_workspace):
    run = write_yaml("run.yaml", "channel: telegram\nmodel: a/b\n")
    code, out, _ = run_cli("render", "--run", run, "--channel", "discord", "--workspace", make_workspace({}))
    assert code == 0
    assert "channel=discord" in out and "model=a/b" in out


def test_config_explain(run_cli, write_yaml):
    cfg = write_yaml("c.yaml", "agents:\n  defaults:\n    bootstrapMaxChars: 4321\n")
    code, out, _ = run_cli("config", "explain", "agents.defaults.bootstrapMaxChars", "--config", cfg)
    assert code == 0
    assert out == f"agents.defaults.bootstrapMaxChars = 4321\n  from {cfg} ({cfg}:3:5)\n"


def test_config_explain_unknown_key(run_cli):
    code, out, err = run_cli("config", "explain", "agents.defaults.bootstrapMax")
    assert_one_line_error(
        code, out, err, "unknown key 'agents.defaults.bootstrapMax' (did you mean 'bootstrapMaxChars'?)"
    )


def test_list_sections_shows_active_and_inactive_with_reasons(run_cli):
    code, out, _ = run_cli(
        "render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml", "--list-sections"
    )
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert code == 0
    assert rows["identity"].split()[1] == "active"
    assert "gate is false: sandbox.enabled" in rows["sandbox"]
    assert "not in mode full" in rows["model_identity"]
    assert list(rows)[:4] == ["identity", "tooling", "proactive_orchestration", "subagent_delegation"]


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "promptc", "render", "--format", "nope"], capture_output=True, text=True
    )
    assert result.returncode == 2 and result.stderr.startswith("promptc: error:")


@pytest.mark.parametrize("argv", [[], ["config"]])
def test_no_command_prints_help_and_exits_2(run_cli, argv):
    code, _, err = run_cli(*argv)
    assert code == 2 and "usage:" in err


def test_an_undecodable_file_name_in_a_warning_still_gives_valid_utf8_output(run_cli, tmp_path):
    ws = tmp_path / "ws"
    skill = os.fsdecode(bytes(ws / "skills") + b"/\xff")  # a name that is not UTF-8
    os.makedirs(skill)
    with open(os.path.join(skill, "SKILL.md"), "w", encoding="utf-8") as handle:
        handle.write("---\nname: x\n---\n")  # no description: a warning names its path
    out = tmp_path / "prompt.json"
    code, _, err = run_cli("render", "--workspace", ws, "--format", "json", "--out", out)
    assert code == 0, err
    warnings = json.loads(out.read_bytes().decode("utf-8"))["warnings"]
    assert any("skills/\ufffd/SKILL.md" in w for w in warnings)


def test_render_loads_only_what_it_needs(make_workspace):
    """No markdown-it without a HEARTBEAT.md, no transcript, token, image or test code,
    no importlib.metadata without plugins, no change watcher for a one-shot command."""
    import subprocess
    import sys

    ws = make_workspace({"AGENTS.md": "Rules.\n"})
    code = (
        "import io, sys, contextlib\n"
        "from promptc.commands import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert cli.main(['render', '--workspace', {str(ws)!r}]) == 0\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert "promptc.commands.render" in loaded  # the probe saw the command run
    never = {
        "markdown_it",
        "promptc.transcript",
        "promptc.workspace.heartbeat",
        "tiktoken",
        "bpe_openai",
        "PIL",
        "hypothesis",
        "importlib.metadata",
        "ctypes",
        "promptc.warm.inotify",
        "frontmatter",
        "promptc.commands.lint",
    }
    assert loaded & never == set()


# --------------------------------------------------------------------------- flags, stdin, explain, init


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--chat-type", "dm", "--chat-type: expected one of direct, group; got 'dm'"),
        ("--mode", "bogus", "--mode: expected one of full, minimal, none; got 'bogus'"),
        ("--session", "nap", "--session: expected one of main, subagent, cron, heartbeat; got 'nap'"),
        ("--harness", "x", "--harness: expected one of default, codex; got 'x'"),
    ],
)
def test_a_bad_flag_value_names_the_flag_not_the_run_file(run_cli, make_workspace, flag, value, expected):
    code, out, err = run_cli("render", "--run", EXAMPLES / "run.yaml", "--workspace", make_workspace({}), flag, value)
    assert_one_line_error(code, out, err, expected)
    assert "run.yaml" not in err


def _every_parser():
    from promptc.commands import cli

    pending = [(name, cli.command_parser(name)) for name in cli.COMMANDS]
    while pending:
        name, parser = pending.pop()
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                pending += [(f"{name} {sub}", child) for sub, child in action.choices.items()]


def test_every_option_and_argument_has_help():
    missing = [
        f"{name} {action.option_strings or action.dest}"
        for name, parser in _every_parser()
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) and not action.help
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("command", "flag", "choices"),
    [
        ("render", "--mode", "full, minimal, none"),
        ("render", "--session", "main, subagent, cron, heartbeat"),
        ("render", "--chat-type", "direct, group"),
        ("render", "--harness", "default, codex"),
        ("render", "--format", "text, json, anthropic, openai, responses, bedrock"),
        ("context", "--format", "text or json"),
        ("bundle", "--chat-type", "direct, group"),
    ],
)
def test_options_with_choices_show_them_in_help(run_cli, command, flag, choices):
    code, out, _ = run_cli(command, "--help")
    assert code == 0
    line = " ".join(out.split())  # argparse wraps help text
    assert flag in line
    assert choices in line[line.index(flag) :]


def test_run_and_config_can_come_from_stdin(run_cli, make_workspace, monkeypatch):
    ws = make_workspace({})
    monkeypatch.setattr("sys.stdin", io.StringIO("channel: discord\nmodel: a/b\n"))
    code, out, _ = run_cli("render", "--run", "-", "--workspace", ws)
    assert code == 0 and "channel=discord" in out and "model=a/b" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("agents:\n  defaults:\n    userTimezone: Asia/Tokyo\n"))
    code, out, _ = run_cli("render", "--config", "-", "--workspace", ws)
    assert code == 0 and "Asia/Tokyo" in out
    monkeypatch.setattr("sys.stdin", io.StringIO("agents:\n  defaults:\n    userTimezone: Mars/Base\n"))
    code, out, err = run_cli("render", "--config", "-", "--workspace", ws)
    assert_one_line_error(code, out, err, "<stdin>:3:5: agents.defaults.userTimezone: unknown IANA time zone")


def test_stdin_is_read_once_and_is_the_last_config(run_cli, make_workspace, write_yaml):
    ws, other = make_workspace({}), write_yaml("c.yaml", "{}\n")
    code, out, err = run_cli("render", "--config", "-", "--run", "-", "--workspace", ws)
    assert_one_line_error(code, out, err, "standard input can be read once")
    code, out, err = run_cli("render", "--config", "-", "--config", other, "--workspace", ws)
    assert_one_line_error(code, out, err, "--config -: standard input must be the last --config")


def test_out_dash_is_stdout_not_a_file(run_cli, make_workspace, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("render", "--workspace", make_workspace({}), "--out", "-")
    assert code == 0 and "<!-- PROMPT_CACHE_BOUNDARY -->" in out
    code, out, _ = run_cli("context", "--workspace", tmp_path / "ws", "--out", "-", "--format", "json")
    assert code == 0 and json.loads(out)["agent"] == "main"
    assert not (tmp_path / "-").exists()


EXPLAIN = """\
agents:
  defaults:
    models:
      "openai/gpt-5.5": {alias: gpt}
    subagents: {delegationMode: suggest}
  list:
    - id: main
      subagents: {delegationMode: prefer}
      skillsLimits: {maxSkillsPromptChars: 900}
    - id: helper
"""


def test_config_explain_takes_bracketed_keys(run_cli, write_yaml):
    config = write_yaml("c.yaml", EXPLAIN)
    code, out, _ = run_cli("config", "explain", 'agents.defaults.models["openai/gpt-5.5"].alias', "--config", config)
    assert code == 0
    assert out.splitlines() == [
        'agents.defaults.models["openai/gpt-5.5"].alias = "gpt"',
        f"  from {config} ({config}:4:26)",
    ]  # the alias key: column 26
    assert run_cli("config", "explain", "agents.defaults.models['openai/gpt-5.5']", "--config", config)[0] == 0
    assert run_cli("config", "explain", "agents.list[1].id", "--config", config)[1].startswith(
        'agents.list[1].id = "helper"'
    )
    code, out, err = run_cli("config", "explain", "agents.defaults.models.openai/gpt-5.5", "--config", config)
    assert code == 2
    assert 'a key with dots or slashes goes in brackets: agents.defaults.models["openai/gpt-5.5"]' in err


def test_config_explain_resolves_agent_keys_for_the_agent(run_cli, write_yaml):
    config = write_yaml("c.yaml", EXPLAIN)
    code, out, _ = run_cli("config", "explain", "subagents.delegationMode", "--agent", "main", "--config", config)
    assert code == 0
    assert out.splitlines() == [
        'subagents.delegationMode = "prefer"',
        "  as agents.defaults.subagents.delegationMode for agent main",
        f"  from {config} ({config}:8:19)",  # the entry's delegationMode key
    ]
    assert run_cli("config", "explain", "subagents.delegationMode", "--agent", "helper", "--config", config)[
        1
    ].startswith('subagents.delegationMode = "suggest"')
    out = run_cli("config", "explain", "skills.limits.maxSkillsPromptChars", "--agent", "main", "--config", config)[1]
    assert out.startswith("skills.limits.maxSkillsPromptChars = 900\n")
    out = run_cli("config", "explain", "skills.limits.maxSkillsPromptChars", "--agent", "helper", "--config", config)[1]
    assert out.startswith("skills.limits.maxSkillsPromptChars = 18000\n") and "from defaults" in out


def test_config_shows_every_problem_up_to_twenty_then_a_count(run_cli, write_yaml, make_workspace):
    keys = "".join(f"    nope{i:02d}: 1\n" for i in range(25))
    config = write_yaml("c.yaml", "agents:\n  defaults:\n" + keys)
    code, out, err = run_cli("render", "--config", config, "--workspace", make_workspace({}))
    lines = err.splitlines()
    assert (code, out, len(lines)) == (2, "", 21)
    assert lines[0] == f"promptc: error: {config}:3:5: unknown key 'agents.defaults.nope00'"
    assert lines[19] == f"promptc: error: {config}:22:5: unknown key 'agents.defaults.nope19'"
    assert lines[20] == "promptc: error: and 5 more problems"


def test_init_says_what_it_created_and_what_it_kept(run_cli, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "SOUL.md").write_text("mine\n", encoding="utf-8")
    code, out, _ = run_cli("init", ws)
    assert code == 0
    lines = out.splitlines()
    assert f"kept    {ws / 'SOUL.md'} (already there; never overwritten)" in lines
    assert f"created {ws / 'AGENTS.md'}" in lines
    assert f"skipped {ws / 'BOOTSTRAP.md'} (the first-run guide goes only into a new workspace)" in lines
    assert (ws / "SOUL.md").read_text(encoding="utf-8") == "mine\n"
    code, out, _ = run_cli("init", ws)
    assert out.splitlines()[-1] == f"{ws}: nothing written"
    assert sum(line.startswith("kept") for line in out.splitlines()) == 6
