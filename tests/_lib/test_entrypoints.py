"""Plugin entry points found without importing importlib.metadata (_lib/entrypoints.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def _hook_module(tmp_path: Path, name: str) -> Path:
    """A module that prints and records that it was imported, when it is."""
    (tmp_path / f"{name}.py").write_text(
        "import pathlib\nprint('imported!')\n"
        f"pathlib.Path({str(tmp_path / 'ran')!r}).write_text('yes')\n"
        "def keep(files, context):\n    return files\n"
    )
    return tmp_path


@pytest.mark.parametrize("entry", ["HOOK:", "HOOK:1st", "HOOK:a-b", "HOOK:keep:x", "HOOK-x:keep", "HOOK:class"])
def test_a_hook_entry_of_the_wrong_shape_is_refused_before_its_module_is_imported(
    tmp_path, monkeypatch, run_cli, entry
):
    monkeypatch.syspath_prepend(str(_hook_module(tmp_path, "printing_hook_a")))
    entry = entry.replace("HOOK", "printing_hook_a")
    config = tmp_path / "c.yaml"
    config.write_text(f"hooks:\n  bootstrap: [{entry!r}]\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", tmp_path, "--config", config)
    assert (code, out) == (2, "")
    assert err == (
        f"promptc: error: {config}:2:3: hooks.bootstrap: hooks must be 'module:function'"
        f" (dotted Python names on each side), got {entry!r}\n"
    )
    assert not (tmp_path / "ran").exists()


def test_what_a_hook_module_prints_on_import_stays_out_of_the_prompt(tmp_path, monkeypatch, run_cli):
    monkeypatch.syspath_prepend(str(_hook_module(tmp_path, "printing_hook_b")))
    config = tmp_path / "c.yaml"
    config.write_text("hooks:\n  bootstrap: ['printing_hook_b:absent']\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", tmp_path, "--config", config)
    assert (code, out) == (2, "")
    assert err.startswith("imported!\n")  # the module's own print, on standard error
    assert err.endswith(
        "bootstrap hook printing_hook_b:absent cannot be loaded: AttributeError:"
        " module 'printing_hook_b' has no attribute 'absent'\n"
    )
    config.write_text("hooks:\n  bootstrap: ['printing_hook_b:keep']\n")
    code, out, err = run_cli("render", "--no-state", "--workspace", tmp_path, "--config", config)
    assert code == 0, err
    assert "imported!" not in out and out.startswith("You are a personal AI assistant")
