"""Byte-identical output across processes, hash seeds, time zones and locales (issue 2, 4)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import EXAMPLES, REPO

ENVIRONMENTS = [
    {"PYTHONHASHSEED": "0", "TZ": "UTC", "LANG": "C", "LC_ALL": "C"},
    {"PYTHONHASHSEED": "12345", "TZ": "Asia/Kathmandu", "LANG": "vi_VN.UTF-8", "LC_ALL": "vi_VN.UTF-8"},
    {"PYTHONHASHSEED": "random", "TZ": "America/St_Johns", "LANG": "hi_IN.UTF-8", "LC_ALL": "fr_FR.UTF-8"},
    {"PYTHONHASHSEED": "7", "TZ": "Pacific/Chatham", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "latin-1"},
]


def render_in_subprocess(extra_env: dict[str, str], fmt: str) -> bytes:
    env = {**os.environ, **extra_env, "PYTHONPATH": str(REPO)}
    args = ["render", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml", "--format", fmt]
    result = subprocess.run([sys.executable, "-m", "promptc", *map(str, args)], env=env, capture_output=True, cwd=REPO)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_render_is_byte_identical_in_every_environment(fmt):
    outputs = {render_in_subprocess(env, fmt) for env in ENVIRONMENTS}
    assert len(outputs) == 1
    assert len(next(iter(outputs))) > 1000
