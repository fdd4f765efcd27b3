"""Shared fixtures: the bundled example, a workspace factory, and a CLI runner."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sdk_server import _Recorder, serve

from promptc.commands import cli

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
CORPUS = REPO.parent / "shared" / "corpus"

# The parsed-SKILL.md disk cache (compiler/parsecache.py) of this test run: a directory of its own,
# so no test reads entries an earlier run or the user left (subprocesses inherit it).
os.environ["PROMPTC_CACHE_DIR"] = tempfile.mkdtemp(prefix="promptc-test-cache-")
atexit.register(shutil.rmtree, os.environ["PROMPTC_CACHE_DIR"], ignore_errors=True)


@pytest.fixture
def run_cli(capsys):
    """Run `promptc ARGS...` in-process; returns (exit code, stdout, stderr)."""

    def run(*args: str) -> tuple[int, str, str]:
        code = cli.main([str(arg) for arg in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def make_workspace(tmp_path):
    """Create a workspace directory holding the given files (name -> text)."""

    def make(files: dict[str, str], name: str = "ws") -> Path:
        root = tmp_path / name
        root.mkdir()
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return root

    return make


@pytest.fixture
def write_yaml(tmp_path):
    """Write a YAML text to a file under tmp_path and return its path."""

    def write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture
def server() -> Iterator[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """A loopback server that answers the provider SDKs: (base URL, [(path, request body)])."""
    httpd, url = serve()
    try:
        yield url, _Recorder.seen
    finally:
        httpd.shutdown()
        httpd.server_close()
