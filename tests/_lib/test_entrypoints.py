"""Plugin entry points found without importing importlib.metadata (_lib/entrypoints.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.paths import REPO


def _python(code: str, *path: Path) -> str:
    env_path = ":".join([str(REPO), *map(str, path)])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={"PYTHONPATH": env_path})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_without_a_promptc_plugin_importlib_metadata_is_never_imported():
    code = (
        "import sys; from promptc._lib import entrypoints; "
        "print(entrypoints.entry_points('promptc.providers'), 'importlib.metadata' in sys.modules)"
    )
    assert _python(code) == "() False"


def test_a_declared_plugin_is_loaded_through_importlib_metadata(tmp_path: Path):
    dist = tmp_path / "demo_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[promptc.providers]\ndemo = demo_plugin:contribute\n")
    code = (
        "from promptc._lib import entrypoints; print([e.name for e in entrypoints.entry_points('promptc.providers')])"
    )
    assert _python(code, tmp_path) == "['demo']"
