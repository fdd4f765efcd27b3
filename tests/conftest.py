"""Shared fixtures: a CLI runner, workspace and YAML writers, the SDK test server, and the edited
templates, snapshot copies and bundle arguments the guard-rail tests share."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptc.commands import cli

from support.bundles import matrix_args, small_matrix_args
from support.guardrails import edited_safety_dir
from support.paths import SNAPSHOTS
from support.sdk_server import _Recorder, serve

# The parsed-SKILL.md disk cache (compiler/warm/parsecache.py) of this test run: a directory of its
# own, so no test reads entries an earlier run or the user left (subprocesses inherit it).
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


@pytest.fixture
def edited_safety(tmp_path) -> Path:
    """A user template dir whose safety section differs from the built-in one by one word."""
    return edited_safety_dir(tmp_path / "templates")


@pytest.fixture
def snapshots(tmp_path) -> Path:
    """A private copy of the committed snapshots (scenarios, fixtures and outputs)."""
    return Path(shutil.copytree(SNAPSHOTS, tmp_path / "snapshots"))


@pytest.fixture
def bundle_args(tmp_path, write_yaml):
    """`promptc bundle` arguments for the 96-variant matrix, written to tmp_path / "bundle"."""
    return matrix_args(write_yaml, tmp_path / "bundle")


@pytest.fixture
def small_args(write_yaml):
    """`promptc bundle` arguments for a two-variant matrix, without --out."""
    return small_matrix_args(write_yaml)
