"""docs/bundles.md works as written: its matrix and command build a bundle, its Python example
serves a turn from it, and its Node.js reader (run with the machine's `node`) gives the cache tiers
promptc gives."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess

import pytest

from promptc import Bundle

from support.paths import EXAMPLES, REPO

PAGE = (REPO / "docs" / "bundles.md").read_text(encoding="utf-8")


def _block(language: str, starting: str = "") -> str:
    """The first fenced block of `language` on the page whose text starts with `starting`."""
    for found in re.finditer(rf"```{language}\n(.*?)```", PAGE, re.DOTALL):
        if found.group(1).startswith(starting):
            return found.group(1)
    raise AssertionError(f"no {language} block starting {starting!r} in docs/bundles.md")


def _command(starting: str) -> list[str]:
    line = next(line for line in _block("sh").splitlines() if line.startswith(starting))
    return line.split()[1:]


@pytest.fixture
def built(run_cli, tmp_path, monkeypatch):
    """The page's bundle, built in a directory holding a copy of the examples and its matrix."""
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    (tmp_path / "matrix.yaml").write_text(_block("yaml", "# matrix.yaml"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*_command("promptc bundle --matrix"))
    assert code == 0, err
    assert out.splitlines()[0] in PAGE and out.splitlines()[1] in PAGE  # the output the page shows
    return tmp_path / "bundle"


def test_the_python_example_serves_a_turn(built):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(_block("python"), "docs/bundles.md", "exec"), {})
    assert printed.getvalue() == "True 4\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed on this machine")
def test_the_node_reader_gives_the_tiers_promptc_gives(built, tmp_path):
    reader = tmp_path / "read-bundle.mjs"
    reader.write_text(_block("js"), encoding="utf-8")
    facts = ["session=main", "provider=anthropic", "channel=telegram"]
    done = subprocess.run(["node", str(reader), str(built), *facts], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    opened = Bundle.open(built)
    variant = opened.variant(session="main", provider="anthropic", channel="telegram")
    tiers = opened.compile(opened.facts(variant)).tiers
    assert printed["variant"] == variant.stable_sha256
    assert [block["text"] for block in printed["system"]] == [tier.text for tier in tiers]
    assert [block["cache_control"]["ttl"] for block in printed["system"]] == [tier.ttl for tier in tiers]
    assert "".join(block["text"] for block in printed["system"]) == opened.stable_text(variant) + "\n\n"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed on this machine")
def test_the_node_reader_refuses_an_edited_stable_text(built, tmp_path):
    reader = tmp_path / "read-bundle.mjs"
    reader.write_text(_block("js"), encoding="utf-8")
    for path in (built / "stable").iterdir():
        path.write_text(path.read_text(encoding="utf-8") + " ", encoding="utf-8")
    done = subprocess.run(
        ["node", str(reader), str(built), "session=main", "provider=anthropic", "channel=telegram"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "the stable text was changed after the build" in done.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed on this machine")
def test_the_node_reader_cuts_tiers_by_code_points(run_cli, make_workspace, write_yaml, tmp_path):
    # Characters outside the Basic Multilingual Plane are two UTF-16 units in JavaScript, one in Python.
    workspace = make_workspace({"AGENTS.md": "# Rules 📏\n", "SOUL.md": "# Soul 🍞🍞\n", "USER.md": "# User 𝄞\n"})
    matrix = write_yaml("matrix.yaml", "sessions: [main]\n")
    assert run_cli("bundle", "--matrix", matrix, "--workspace", workspace, "--out", tmp_path / "b")[0] == 0
    reader = tmp_path / "read-bundle.mjs"
    reader.write_text(_block("js"), encoding="utf-8")
    done = subprocess.run(["node", str(reader), str(tmp_path / "b")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    opened = Bundle.open(tmp_path / "b")
    tiers = opened.compile(opened.facts(opened.variants[0])).tiers
    assert len(tiers) == 3 and "🍞🍞" in tiers[1].text
    assert [block["text"] for block in json.loads(done.stdout)["system"]] == [tier.text for tier in tiers]
