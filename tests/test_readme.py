"""The README and the documentation pages stay true: the README is short, its commands are what CI
runs, its pipeline lists the calls `run_stages` makes in the order it makes them, and every Python
snippet of the README and of docs/ runs (the provider SDKs pointed at a local server)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys

import pytest

from support.paths import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SNIPPETS = [
    (page.relative_to(REPO).as_posix(), snippet)
    for page in PAGES
    for snippet in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.DOTALL)
]


def _steps_before(page: str, snippet: str) -> tuple[dict[str, str], list[list[str]]]:
    """What a reader of `page` has done by the time they reach `snippet`: the YAML blocks that name
    their file in a first-line comment (`# matrix.yaml`), and the `promptc` commands of the `sh`
    blocks above it, split into arguments."""
    text = (REPO / page).read_text(encoding="utf-8")
    before = text[: text.index(snippet)]
    files = {
        block.splitlines()[0][2:].strip(): block + "\n"
        for block in re.findall(r"```yaml\n(.*?)\n```", before, flags=re.DOTALL)
        if re.match(r"# [\w.-]+\.ya?ml\n", block)
    }
    commands = [
        line.split()[1:]
        for block in re.findall(r"```sh\n(.*?)\n```", before, flags=re.DOTALL)
        for line in block.splitlines()
        if line.startswith("promptc ")
    ]
    return files, commands


def test_the_readme_is_short_and_its_commands_are_what_ci_runs():
    assert len(README.splitlines()) <= 200
    blocks = re.findall(r"```sh\n(.*?)\n```", README, flags=re.DOTALL)
    assert blocks[0] == "pip install . && promptc render --config examples/config.yaml --run examples/run.yaml"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert blocks[1] == ci


def test_the_snippets_cover_the_api_and_every_sdk():
    joined = "\n".join(snippet for _, snippet in SNIPPETS)
    assert len(SNIPPETS) >= 7 and any(page == "README.md" for page, _ in SNIPPETS)
    for call in ("messages.create", "chat.completions.create", "responses.create", ".converse(", "Compiler("):
        assert call in joined, call


@pytest.mark.parametrize("index", range(len(SNIPPETS)), ids=lambda i: f"{SNIPPETS[i][0]}-{i}")
def test_every_python_snippet_runs(index, server, tmp_path):
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
    page, snippet = SNIPPETS[index]
    files, commands = _steps_before(page, snippet)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    for argv in commands:
        ran = subprocess.run([sys.executable, "-m", "promptc", *argv], cwd=tmp_path, capture_output=True, text=True)
        assert ran.returncode == 0, (argv, ran.stderr)
    done = subprocess.run([sys.executable, "-c", snippet], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    calls_a_provider = re.search(r"\.(create|converse)\(", snippet) is not None
    assert bool(seen) == calls_a_provider
    if calls_a_provider:
        assert "system" in seen[-1][1] or "messages" in seen[-1][1] or "instructions" in seen[-1][1]


# --------------------------------------------------------------------------- the pipeline

PIPELINE = REPO / "compiler" / "pipeline.py"
HELPERS = ("_workspace_half", "_assemble")
"""Functions of the pipeline module that run stages for `run_stages`: their calls count as its own."""


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def stage_calls() -> list[str]:
    """Every `module.function(...)` and `src.reader(...)` call `run_stages` makes, in source order,
    with the calls of its stage-running helpers in their place."""
    tree = ast.parse(PIPELINE.read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def calls(name: str) -> list[str]:
        found = sorted(
            (node for node in ast.walk(functions[name]) if isinstance(node, ast.Call)),
            key=lambda node: (node.lineno, node.col_offset),
        )
        ordered: list[str] = []
        for node in found:
            dotted = _dotted(node.func)
            if dotted in HELPERS:
                ordered += calls(dotted)
            elif dotted is not None and "." in dotted:
                ordered.append(dotted)
        return ordered

    return calls("run_stages")


def _diagram() -> list[str]:
    found = re.search(r"## How a prompt is put together\n\n```\n(.*?)```", README, flags=re.DOTALL)
    assert found is not None
    return [line.split("->")[0].split()[-1] for line in found.group(1).splitlines()]


def test_the_pipeline_lists_run_stages_calls_in_their_order():
    listed, made = _diagram(), stage_calls()
    assert len(listed) >= 14
    position = 0
    for call in listed:
        assert call in made[position:], f"{call} is not a call of run_stages after {made[position - 1]}"
        position = made.index(call, position) + 1


def test_the_pipeline_names_every_stage_module_run_stages_calls():
    """Every module (and every `src` reader that reads the workspace, the skills or the
    templates) that `run_stages` calls is on a line of its own."""
    listed = set(_diagram())
    modules = {call.split(".")[0] for call in stage_calls() if not call.startswith("src.")}
    assert modules <= {call.split(".")[0] for call in listed}, sorted(modules)
    readers = {"src.config", "src.bootstrap_files", "src.skills", "src.sections", "src.renderer.render"}
    assert readers <= listed


def test_the_pipeline_check_finds_a_stage_left_out_or_out_of_order():
    made = stage_calls()
    assert made.index("providers.resolve") < made.index("catalogue.select") < made.index("cache_tiers.layout")
    assert "harness.route" in made and "uservars.resolve" in made and "budget.apply" in made
