"""Byte-identical output across processes, hash seeds, time zones and locales."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support.paths import EXAMPLES, REPO

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


# --------------------------------------------------------------------------- every collection a template reads

RICH_RUN = """\
channel: discord
chat_type: group
capabilities: [inlineButtons, Reactions, richText, polls, threads]
owners: ["tg:3", "tg:1", "tg:2", "tg:1"]
model: anthropic/claude-sonnet-4-5
tools: [read, write, edit, exec, process, web_search, web_fetch, message, cron, gateway, sessions_spawn,
        sessions_send, memory_search, memory_get, zeta_tool, alpha_tool, Mixed_Case, browser, canvas, nodes]
deferred_tools: [{name: late_b, summary: b}, {name: late_a, summary: a}, {name: late_c, summary: c}]
sandbox: {enabled: true, paths: [/work, /data, /tmp/x, /work], elevated_exec: true}
exec_sessions: [{id: s2, name: build}, {id: s1, name: test}]
message_tool_hints: [use threads, keep it short, one poll at a time]
vars:
  team: [zed, amy, kim, bo, lu]
  desks: {zulu: 3, alpha: 1, mike: 2, kilo: 4}
  shifts: {night: [lu, bo], day: [zed, amy, kim]}
"""

CONFIG = """\
agents:
  defaults:
    models:
      openai/gpt-5.5: {alias: gpt}
      anthropic/claude-sonnet-4-5: {alias: sonnet}
      google/gemini-2.5-pro: {alias: gem}
prompt:
  variables:
    team: {side: stable}
    desks: {side: stable}
    shifts: {side: volatile}
"""


def _collections(side: str) -> list[str]:
    """The declared variables of one side whose value, in a rich turn, is a collection."""
    from promptc import Request, compile_pending
    from promptc.sections import variables

    captured = {}
    real_build = variables.build

    def spy(*args, **kwargs):
        captured["contexts"] = real_build(*args, **kwargs)
        return captured["contexts"]

    import promptc.pipeline as pipeline

    pipeline.variables.build = spy
    try:
        compile_pending(
            Request(run=_rich_run(), config_layers=(_config_layer(),), workspace=_workspace(), plugins=False)
        )
    finally:
        pipeline.variables.build = real_build
    context = captured["contexts"].stable if side == "stable" else captured["contexts"].volatile
    names = variables.STABLE if side == "stable" else variables.VOLATILE
    return [name for name in names if not isinstance(context[name], (str, bool, int, type(None)))]


def _rich_run():
    from promptc.inputs import runfacts

    return runfacts.load_text(RICH_RUN, "run.yaml")


def _config_layer():
    from promptc.inputs import layers, yamlsrc

    return layers.layer_from(yamlsrc.parse(CONFIG, "config.yaml"), "config.yaml", REPO)


def _workspace():
    return EXAMPLES / "workspace"


def _looping_section(name: str, order: int, side: str, variables: list[str]) -> str:
    body = "".join(f"{v}: {{% for item in {v} %}}{{{{ item }}}}; {{% endfor %}}| {{{{ {v} }}}}\n" for v in variables)
    users = "vars: {% for k in vars %}{{ k }}={{ vars[k] }}; {% endfor %}\n"
    return f"---\nid: {name}\norder: {order}\nside: {side}\nmodes: [full, minimal]\n---\n{body}{users}"


@pytest.fixture
def looping(tmp_path):
    """A template dir with a stable and a volatile section iterating every collection they may read."""
    stable, volatile = _collections("stable"), _collections("volatile")
    assert {"tool_names", "tools", "stable_files", "model_aliases", "sandbox", "vars"} <= set(stable)
    assert {"capabilities", "owners", "runtime_fields", "exec_sessions", "message_tool_hints", "dynamic_files"} <= set(
        volatile
    )
    templates = tmp_path / "looping"
    templates.mkdir()
    (templates / "loop_stable.md.j2").write_text(
        _looping_section("loop_stable", 2150, "stable", stable), encoding="utf-8"
    )
    (templates / "loop_volatile.md.j2").write_text(
        _looping_section("loop_volatile", 3990, "volatile", volatile), encoding="utf-8"
    )
    (tmp_path / "run.yaml").write_text(RICH_RUN, encoding="utf-8")
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    return templates, tmp_path / "config.yaml", tmp_path / "run.yaml"


def _promptc(seed: str, *args) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "promptc", *map(str, args)], env=env, capture_output=True, cwd=REPO)


def test_sections_iterating_every_collection_are_byte_identical_under_three_hash_seeds(looping):
    templates, config, run = looping
    args = [
        "render",
        "--config",
        config,
        "--run",
        run,
        "--templates",
        templates,
        "--workspace",
        _workspace(),
        "--no-state",
    ]
    outputs = set()
    for seed in ("0", "1", "4242"):
        result = _promptc(seed, *args)
        assert result.returncode == 0, result.stderr.decode()
        outputs.add(result.stdout)
    assert len(outputs) == 1
    text = outputs.pop().decode("utf-8")
    assert "tool_names: alpha_tool; browser; canvas; cron;" in text  # sorted, whatever the seed
    assert "vars: team=('zed', 'amy', 'kim', 'bo', 'lu');" in text


def test_a_bundle_built_in_one_process_checks_clean_in_another(looping, tmp_path):
    templates, config, run = looping
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("sessions: [main, cron]\nchannels: [telegram, discord]\n", encoding="utf-8")
    args = [
        "bundle",
        "--matrix",
        matrix,
        "--out",
        tmp_path / "bundle",
        "--config",
        config,
        "--run",
        run,
        "--templates",
        templates,
        "--workspace",
        _workspace(),
        "--jobs",
        "1",
    ]
    built = _promptc("1", *args)
    assert built.returncode == 0, built.stderr.decode()
    checked = _promptc("2", *args, "--check")
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    assert b"is current (4 variants" in checked.stdout


def _unordered(value, where="") -> list[str]:
    from collections.abc import Mapping

    if isinstance(value, (set, frozenset)):
        return [where]
    if isinstance(value, Mapping):
        return [found for key in value for found in _unordered(value[key], f"{where}.{key}")]
    if isinstance(value, (list, tuple)):
        return [found for i, item in enumerate(value) for found in _unordered(item, f"{where}[{i}]")]
    return []


def test_no_context_value_is_a_set_at_any_depth():
    import promptc.pipeline as pipeline
    from promptc import Request, compile_pending
    from promptc.sections import variables

    seen = []
    real_build = variables.build
    pipeline.variables.build = lambda *a, **k: seen.append(real_build(*a, **k)) or seen[-1]
    try:
        compile_pending(
            Request(run=_rich_run(), config_layers=(_config_layer(),), workspace=_workspace(), plugins=False)
        )
    finally:
        pipeline.variables.build = real_build
    contexts = seen[0]
    assert _unordered(dict(contexts.stable)) == [] and _unordered(dict(contexts.volatile)) == []


TOOL_LOOP = "---\nid: tool_loop\norder: 2150\nside: stable\nmodes: [full, minimal]\ntitle: Tool loop\n---\n{% for t in tool_names %}- {{ t }}\n{% endfor %}\n"
"""A user section iterating `tool_names`, a collection a template may loop over in any process."""


@pytest.fixture
def tool_loop(tmp_path):
    templates = tmp_path / "loop"
    templates.mkdir()
    (templates / "tool_loop.md.j2").write_text(TOOL_LOOP, encoding="utf-8")
    return templates


def test_a_loop_over_tool_names_is_the_same_under_three_hash_seeds(tool_loop):
    args = [
        "render",
        "--config",
        EXAMPLES / "config.yaml",
        "--run",
        EXAMPLES / "run.yaml",
        "--templates",
        tool_loop,
        "--format",
        "json",
    ]
    results = [_promptc(seed, *args) for seed in ("0", "1", "4242")]
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    hashes = {json.loads(r.stdout)["fingerprint"]["stable_sha256"] for r in results}
    assert len(hashes) == 1
    assert "- cron\n- edit\n- exec\n" in json.loads(results[0].stdout)["stable"]


def test_a_bundle_with_that_loop_checks_clean_in_another_process(tool_loop, tmp_path):
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("channels: [telegram, discord]\n", encoding="utf-8")
    args = [
        "bundle",
        "--matrix",
        matrix,
        "--out",
        tmp_path / "bundle",
        "--config",
        EXAMPLES / "config.yaml",
        "--run",
        EXAMPLES / "run.yaml",
        "--templates",
        tool_loop,
        "--jobs",
        "1",
    ]
    assert _promptc("3", *args).returncode == 0
    checked = _promptc("5", *args, "--check")
    assert checked.returncode == 0, checked.stdout.decode()
