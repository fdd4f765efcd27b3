"""Error reporting and exit codes through `cli.main` (issue 2, 8), and the small commands."""

from __future__ import annotations

import json
import os
import re

import pytest

from conftest import EXAMPLES

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


def test_bad_run_fact_value(run_cli, write_yaml, make_workspace):
    run = write_yaml("run.yaml", "session: nap\n")
    code, out, err = run_cli("render", "--run", run, "--workspace", make_workspace({}))
    assert_one_line_error(code, out, err, f"{run}:1:1: session: expected one of main, subagent, cron, heartbeat")


def test_template_syntax_error(run_cli, tmp_path, make_workspace):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "bad.md.j2").write_text("---\nid: bad\norder: 5\nside: stable\nmodes: [full]\ntitle: Bad\n---\n{% for %}\n")
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
    assert_one_line_error(code, out, err, "unknown key 'agents.defaults.bootstrapMax' (did you mean 'bootstrapMaxChars'?)")


def test_list_sections_shows_active_and_inactive_with_reasons(run_cli):
    code, out, _ = run_cli("render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml", "--list-sections")
    rows = {line.split()[0]: line for line in out.splitlines()}
    assert code == 0
    assert rows["identity"].split()[1] == "active"
    assert "gate is false: sandbox.enabled" in rows["sandbox"]
    assert "not in mode full" in rows["model_identity"]
    assert list(rows)[:4] == ["identity", "tooling", "proactive_orchestration", "subagent_delegation"]


def test_python_dash_m_entry_point():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "promptc", "render", "--format", "nope"], capture_output=True, text=True)
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
    """Issue 12: no markdown-it without a HEARTBEAT.md, no transcript, token, image or test code,
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
    never = {"markdown_it", "promptc.transcript", "promptc.workspace.heartbeat", "tiktoken", "bpe_openai", "PIL",
             "hypothesis", "importlib.metadata", "ctypes", "promptc.inotify", "frontmatter", "promptc.commands.lint"}  # fmt: skip
    assert loaded & never == set()
