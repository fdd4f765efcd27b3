"""The README stays true: every Python snippet runs, the pipeline diagram names real functions, and
the template authoring example renders, and fails, as the README shows."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from support.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
SNIPPETS = re.findall(r"```python\n(.*?)```", README, flags=re.DOTALL)
PACKAGE = REPO / "compiler"


def _section(title: str) -> str:
    start = README.index(title)
    end = README.find("\n## ", start + len(title))
    return README[start : end if end != -1 else len(README)]


def test_the_readme_has_snippets_for_the_api_and_every_sdk():
    joined = "\n".join(SNIPPETS)
    assert len(SNIPPETS) >= 5
    for call in ("messages.create", "chat.completions.create", "responses.create", ".converse("):
        assert call in joined, call


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_every_python_snippet_in_the_readme_runs(index, server, tmp_path):
    url, seen = server
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "test",
        "ANTHROPIC_BASE_URL": url,
        "OPENAI_API_KEY": "test",
        "OPENAI_BASE_URL": url + "/v1",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": url,
        "AWS_CONFIG_FILE": str(tmp_path / "no-aws-config"),
        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "no-aws-creds"),
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    snippet = SNIPPETS[index]
    done = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls_a_provider = re.search(r"\.(create|converse)\(", snippet) is not None
    assert bool(seen) == calls_a_provider
    if calls_a_provider:
        assert "system" in seen[-1][1] or "messages" in seen[-1][1] or "instructions" in seen[-1][1]


def test_the_pipeline_diagram_names_real_functions():
    diagram = re.search(r"## How a prompt is put together\n\n```\n(.*?)```", README, flags=re.DOTALL)
    assert diagram is not None
    steps = re.findall(r"\b([a-z]+)/([a-z_]+)\.([a-z_]+)\b", diagram.group(1))
    assert len(steps) >= 8
    for folder, module, function in steps:
        source = (PACKAGE / folder / f"{module}.py").read_text(encoding="utf-8")
        assert re.search(rf"^def {function}\(", source, flags=re.MULTILINE), f"{folder}/{module}.{function}"


# --------------------------------------------------------------------------- the Template authoring example

AUTHORING = README[README.index("## Template authoring") : README.index("## Guard rails for template authors")]
"""(Cut by hand: the example's own templates hold `## ` headings.)"""


def _authoring_example(root) -> str:
    """Write the example's files under `root` (with the examples folder) and return its command."""
    shutil.copytree(REPO / "examples", root / "examples")
    files = re.findall(r"\*\*`([^`]+)`\*\*\n\n```\w+\n(.*?)```", AUTHORING, flags=re.DOTALL)
    assert [name for name, _ in files] == [
        "config.yaml",
        "mytemplates/sections/house_rules.md.j2",
        "mytemplates/partials/rules.md.j2",
        "mytemplates/partials/format.md.j2",
        "mytemplates/sections/on_call.md.j2",
    ]
    for name, text in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    command = re.search(r"```sh\n(promptc render .*?)\n```", AUTHORING).group(1)
    return command


def test_the_template_authoring_example_renders_what_the_readme_shows(run_cli, tmp_path, monkeypatch):
    command = _authoring_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*command.split()[1:])
    assert (code, err) == (0, "")
    shown = re.search(r"```text\n(## House Rules\n.*?)```", AUTHORING, flags=re.DOTALL).group(1)
    stable, volatile = out.split("<!-- PROMPT_CACHE_BOUNDARY -->")
    assert shown.rstrip("\n") + "\n\n## " in stable  # the whole section, then the next one
    assert "Staff on call today: Rita." in volatile and "Rita" not in stable
    sections = run_cli(*command.split()[1:], "--list-sections")[1]
    assert "[mytemplates/sections/house_rules.md.j2]" in sections


def test_the_template_authoring_mistake_gives_the_error_the_readme_shows(run_cli, tmp_path, monkeypatch):
    command = _authoring_example(tmp_path)
    section = tmp_path / "mytemplates" / "sections" / "house_rules.md.j2"
    section.write_text(section.read_text(encoding="utf-8").replace("vars.company", "vars.compny"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*command.split()[1:])
    shown = re.search(r"```text\n(promptc: error: .*?)\n```", AUTHORING).group(1)
    assert (code, out, err) == (2, "", shown + "\n")
    lint = run_cli("lint", "--templates", "mytemplates", "--config", "config.yaml")
    assert (
        lint[0] == 1
        and "mytemplates/sections/house_rules.md.j2:9:" in lint[1]
        and "did you mean 'vars.company'?" in lint[1]
    )
