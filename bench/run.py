"""promptc's performance targets, each measured side by side with its baseline in one run.

    python bench/run.py [--quick] [--openclaw-dir DIR]

Not a test: it prints each figure with its baseline and ratio, and whether the target is met.
Baselines run in the same process or the same minute as what they are compared with:
OpenClaw's own warm build (`median_build_ms` of ../shared/tools/openclaw-ref/harness.mjs, when
OpenClaw is installed; skipped with a note when not), promptc's own section templates already
compiled and rendered with the contexts it gives them (Jinja's share of the same prompt), a single
precompiled template of the final text and a bare `str.join` of its parts, a bare
`python -c "import jinja2, yaml"`.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import jinja2  # noqa: E402
import yaml  # noqa: E402

from promptc import Compiler, Request, RunFacts, Tool, pipeline  # noqa: E402
from promptc._lib.text import normalise  # noqa: E402
from promptc.commands import cli  # noqa: E402
from promptc.inputs import toolpolicy  # noqa: E402
from promptc.model.units import order_files  # noqa: E402
from promptc.sections import harness, variables  # noqa: E402
from promptc.warm.sources import KeptSources  # noqa: E402

SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus"
HARNESS = SHARED / "tools" / "openclaw-ref" / "harness.mjs"
TURN = SHARED / "tools" / "openclaw-ref" / "examples" / "turn.json"
WORKSPACES = ["okbest2024-backup", "openclaw-templates-2026.9.6", "lennyfinn1974", "goose2openclaw"]
TARGETED = WORKSPACES[:2]
"""The workspaces the warm-turn targets name."""


@dataclasses.dataclass
class Row:
    what: str
    value: str
    baseline: str
    ratio: float | None
    target: float | None = None

    def verdict(self) -> str:
        if self.target is None or self.ratio is None:
            return ""
        return "met" if self.ratio <= self.target else "MISSED"


ROWS: list[Row] = []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (rougher figures)")
    parser.add_argument(
        "--openclaw-dir", help="where OpenClaw 2026.7.1 is installed (default: the harness's own search)"
    )
    options = parser.parse_args()
    reps = 0.25 if options.quick else 1.0
    print(_machine())
    with tempfile.TemporaryDirectory() as scratch:
        scratch_dir = Path(scratch)
        warm_turns(scratch_dir, reps, options.openclaw_dir)
        cli_in_process(scratch_dir, reps)
        cold_start(scratch_dir, reps)
        workspace_growth(scratch_dir, reps)
        skills_growth(scratch_dir, reps)
        bundle(scratch_dir)
        bundle_turns(scratch_dir, reps)
    _print_table()


# --------------------------------------------------------------------------- inputs


def turn_facts() -> RunFacts:
    """OpenClaw's examples/turn.json as promptc run facts (the same turn for both)."""
    facts = json.loads(TURN.read_text(encoding="utf-8"))
    runtime = facts.get("runtime", {})
    return RunFacts(
        session=facts.get("session_kind", "main"),
        channel=facts["channel"],
        chat_type=facts["chat_type"],
        capabilities=tuple(facts["capabilities"]),
        tools=tuple(Tool(t["name"], t["summary"]) for t in facts["tools"]),
        owners=tuple(facts["owners"]),
        extra_prompt=facts["extra_system_prompt"],
        model=facts["model"],
        reactions=facts["reactions"]["level"],
        tts_hint=facts["tts_hint"],
        thinking=facts["thinking"],
        host=runtime.get("host"),
        os=runtime.get("os"),
        arch=runtime.get("arch"),
        shell=runtime.get("shell"),
    )


def config_for(workspace: Path, scratch: Path) -> Path:
    """Timezone and heartbeats as the harness's turn has them (HEARTBEAT.md below the boundary)."""
    path = scratch / f"config-{workspace.name}.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "agents": {
                    "defaults": {
                        "workspace": str(workspace),
                        "userTimezone": "Europe/Berlin",
                        "heartbeat": {"enabled": True},
                    }
                }
            }
        )
    )
    return path


# --------------------------------------------------------------------------- measuring


def median_ms(action: Callable[[], object], count: int, warmup: int = 5) -> float:
    for _ in range(warmup):
        action()
    times = []
    for _ in range(max(5, count)):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def paired_ms(first: Callable[[], object], second: Callable[[], object], count: int) -> tuple[float, float]:
    """Medians of two actions run in alternation, so a busy moment of the machine hits both."""
    for _ in range(5):
        first()
        second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(max(5, count)):
        for action, bucket in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            action()
            bucket.append(time.perf_counter() - started)
    return statistics.median(times[0]) * 1000, statistics.median(times[1]) * 1000


def wall_ms(argv: list[str], env: dict[str, str] | None = None) -> float:
    """Wall time of one process."""
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(argv)}: {done.stderr.decode()}")
    return (time.perf_counter() - started) * 1000


def peak_rss_mib(argv: list[str], env: dict[str, str]) -> float | None:
    """Peak RSS of one run, as GNU time reports it (a fork of this process would report ours)."""
    if not Path("/usr/bin/time").exists():
        return None
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True
    )
    lines = done.stderr.strip().splitlines()
    return int(lines[-1]) / 1024 if done.returncode == 0 and lines and lines[-1].isdigit() else None


def row(
    what: str, value: float, baseline: float | None, baseline_label: str, target: float | None = None, unit: str = "ms"
) -> None:
    ratio = None if baseline is None else value / baseline
    base = "" if baseline is None else f"{baseline:.3f} {unit} {baseline_label}"
    ROWS.append(Row(what, f"{value:.3f} {unit}", base, ratio, target))


# --------------------------------------------------------------------------- warm turns


def openclaw_ms(workspace: Path, openclaw_dir: str | None) -> float | None:
    """OpenClaw's warm build (`median_build_ms`), median of three harness runs; None if absent."""
    node = shutil.which("node")
    if node is None or not HARNESS.is_file():
        return None
    argv = [node, str(HARNESS), str(workspace), str(TURN), "--bench", "200", "--no-prompt"]
    argv += ["--openclaw-dir", openclaw_dir] if openclaw_dir else []
    runs = []
    for _ in range(3):
        done = subprocess.run(argv, capture_output=True, text=True)
        if done.returncode != 0:
            return None
        runs.append(json.loads(done.stdout)["bench"]["median_build_ms"])
    return statistics.median(runs)


def warm_turns(scratch: Path, reps: float, openclaw_dir: str | None) -> None:
    run = turn_facts()
    others = [dataclasses.replace(run, extra_prompt=f"Group chat, turn {i}.") for i in range(2000)]
    for name in WORKSPACES:
        workspace = CORPUS / name
        if not workspace.is_dir():
            print(f"note: {workspace} is absent; skipped")
            continue
        openclaw = openclaw_ms(workspace, openclaw_dir)
        if openclaw is None:
            print(f"note: OpenClaw (node + harness + openclaw@2026.7.1) not found; {name} has no OpenClaw baseline")
        label = "OpenClaw median_build_ms"
        targeted = name in TARGETED
        config = config_for(workspace, scratch)
        for title, options, target in (
            ("default check", {}, 0.1),
            ("stat sweep only", {"notify": False}, None),
            ("check_files=False", {"check_files": False}, 0.05),
        ):
            compiler = Compiler(config_paths=[config], **options)
            repeat = median_ms(lambda: compiler.compile_pending(run), int(600 * reps))
            fresh = iter(others * 4)
            new_facts = median_ms(lambda: compiler.compile_pending(next(fresh)), int(600 * reps))
            row(f"{name}: warm repeat turn, {title}", repeat, openclaw, label, target if targeted else None)
            row(f"{name}: warm turn with new volatile facts, {title}", new_facts, openclaw, label)
            compiler.close()


# --------------------------------------------------------------------------- in-process CLI


def cli_in_process(scratch: Path, reps: float) -> None:
    run_file = scratch / "run.yaml"
    facts = json.loads(TURN.read_text(encoding="utf-8"))
    run_file.write_text(
        yaml.safe_dump(
            {
                "session": "main",
                "channel": facts["channel"],
                "chat_type": facts["chat_type"],
                "capabilities": facts["capabilities"],
                "tools": facts["tools"],
                "owners": facts["owners"],
                "extra_prompt": facts["extra_system_prompt"],
                "model": facts["model"],
                "reactions": "minimal",
                "tts_hint": facts["tts_hint"],
                "thinking": facts["thinking"],
            }
        )
    )
    for name in TARGETED:
        workspace = CORPUS / name
        if not workspace.is_dir():
            continue
        argv = ["render", "--config", str(config_for(workspace, scratch)), "--run", str(run_file)]
        sink = io.StringIO()

        def render() -> None:
            sink.seek(0)
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):  # the prompt and its warnings
                cli.main(argv)

        config = config_for(workspace, scratch)
        text = Compiler(config_paths=[config]).compile(_facts_of(run_file)).text
        sections = _section_templates(config, _facts_of(run_file))
        template, values, parts = _precompiled(text, workspace)
        measured, sections_ms = paired_ms(render, lambda: [t.render(c) for t, c in sections], int(3000 * reps))
        jinja_ms = median_ms(lambda: template.render(**values), int(3000 * reps))
        join_ms = median_ms(lambda: "".join(parts), int(2000 * reps))
        row(
            f"{name}: cli.main(['render', ...]) repeat, in process",
            measured,
            sections_ms,
            "its section templates, precompiled Jinja",
            2.0,
        )
        row(f"{name}: cli.main(['render', ...]) vs the final text as one template", measured, jinja_ms, "one template")
        row(f"{name}: the final text by str.join of its parts", join_ms, jinja_ms, "one template")


def _facts_of(path: Path) -> RunFacts:
    from promptc import load_run_facts

    return load_run_facts(path)


def _section_templates(config: Path, run: RunFacts) -> list[tuple[jinja2.Template, dict[str, object]]]:
    """Jinja's own share of one render: each section the prompt holds, as the template promptc
    compiled for it, with the context promptc gives it. Rendering them all (already compiled, no
    files read, no inputs parsed, no checks) is what the same prompt costs in Jinja alone; each
    output must be the prompt's text of that section."""
    request = Request(run=run, config_paths=(config,))
    sources = KeptSources(request.fixed())
    made: list[pipeline.Made] = []
    prompt, _ = pipeline.run_stages(sources, run, observe=made.append)
    (m,) = made
    facts = toolpolicy.with_config(run, m.config)
    routed = harness.route(m.loaded, facts)
    contexts = variables.build(m.config, facts, routed, m.contribution, m.shown_dir, m.user)
    sources.renderer.loader.partials = m.partials
    jobs = []
    for selection in m.selected:
        spec = selection.spec
        context = dict(contexts.stable if spec.side == "stable" else contexts.volatile)
        if "stable_files" in context:  # in cache-tier order, as the renderer gives them
            context["stable_files"] = order_files(context["stable_files"], m.config.cache)
        if not selection.active or selection.override is not None:
            continue
        if spec.when and not sources.renderer.gate_passes(spec, context):
            continue
        jobs.append((sources.renderer.compiled(spec.path, spec.source), context))
    texts = [normalise(t.render(c)) for t, c in jobs]
    shown = [s.text for s in prompt.sections]
    assert [t for t in texts if t] == shown, "the section templates must make the prompt's sections"
    return jobs


def _precompiled(text: str, workspace: Path) -> tuple[jinja2.Template, dict[str, str], list[str]]:
    """A Jinja template of the prompt text: its literal parts raw, the workspace files and skills
    as variables, compiled once; it must render the exact text."""
    compiler = Compiler(workspace=workspace)
    prompt = compiler.compile(turn_facts())
    pieces = sorted(
        {f.text for f in prompt.files if f.injected and f.text} | ({prompt.skills.text} - {""}), key=text.find
    )
    source, values, parts, position = [], {}, [], 0
    for index, piece in enumerate(p for p in pieces if text.find(p, position) >= 0):
        at = text.find(piece, position)
        source += ["{% raw %}" + text[position:at] + "{% endraw %}", f"{{{{ v{index} }}}}"]
        values[f"v{index}"] = piece
        parts += [text[position:at], piece]
        position = at + len(piece)
    source.append("{% raw %}" + text[position:] + "{% endraw %}")
    parts.append(text[position:])
    template = jinja2.Environment(autoescape=False, keep_trailing_newline=True).from_string("".join(source))
    assert template.render(**values) == text and "".join(parts) == text
    return template, values, parts


# --------------------------------------------------------------------------- cold start


def cold_start(scratch: Path, reps: float) -> None:
    python = sys.executable
    # Bytecode as an installed package has it: a PYTHONDONTWRITEBYTECODE environment (this
    # sandbox sets it) would otherwise compile every edited module from source on every run.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "PYTHONPATH": str(REPO)}
    okbest = CORPUS / "okbest2024-backup"
    commands = {
        "bare": [python, "-c", "import jinja2, yaml"],
        "render example": [
            python,
            "-m",
            "promptc",
            "render",
            "--config",
            str(REPO / "examples/config.yaml"),
            "--run",
            str(REPO / "examples/run.yaml"),
        ],
    }
    if okbest.is_dir():
        commands["render okbest"] = [python, "-m", "promptc", "render", "--workspace", str(okbest)]
        commands["context okbest"] = [python, "-m", "promptc", "context", "--workspace", str(okbest)]
        commands["render okbest, no parse cache"] = commands["render okbest"]
    # The parse cache (compiler/parsecache.py) in a directory of this run's, filled by one run
    # first, as an earlier run leaves it; the last command runs with it turned off.
    scratch_env = {**env, "PROMPTC_CACHE_DIR": str(scratch / "parse-cache")}
    envs = {name: scratch_env for name in commands} | {
        "render okbest, no parse cache": {**env, "PROMPTC_CACHE_DIR": ""}
    }
    for name, argv in commands.items():
        wall_ms(argv, envs[name])
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(max(5, int(15 * reps))):
        for name, argv in commands.items():  # interleaved, so a busy moment hits every command alike
            times[name].append(wall_ms(argv, envs[name]))
    median = {name: statistics.median(values) for name, values in times.items()}
    row(
        "cold `promptc render` (example)",
        median["render example"],
        median["bare"],
        'bare `python -c "import jinja2, yaml"`',
        2.5,
    )
    if "render okbest" in median:
        row("cold `promptc render` (okbest2024-backup)", median["render okbest"], median["bare"], "bare imports", 2.5)
        row(
            "cold `promptc context` with tokens (okbest2024-backup)",
            median["context okbest"],
            median["render okbest"],
            "cold render",
            1.5,
        )
        row(
            "cold `promptc render` (okbest2024-backup), parse cache off",
            median["render okbest, no parse cache"],
            median["bare"],
            "bare imports",
        )
    for name, argv in commands.items():
        peak = peak_rss_mib(argv, envs[name])
        if peak is not None:
            ROWS.append(Row(f"peak RSS, {name}", f"{peak:.1f} MiB", "", None))


# --------------------------------------------------------------------------- growth


def workspace_growth(scratch: Path, reps: float) -> None:
    """The same workspace with every file and every skill 1x, 4x and 16x (one-pass and warm turn)."""
    source = CORPUS / "openclaw-templates-2026.9.6"
    if not source.is_dir():
        return
    cold, warm = {}, {}
    for factor in (1, 4, 16):
        workspace = _scaled_workspace(source, scratch / f"x{factor}", factor)
        compiler = Compiler(workspace=workspace)
        cold[factor] = median_ms(
            lambda: Compiler(workspace=workspace, check_files=False).compile_pending(turn_facts()),
            int(20 * reps),
            warmup=1,
        )
        fresh = iter(dataclasses.replace(turn_facts(), extra_prompt=f"turn {i}") for i in range(100_000))
        warm[factor] = median_ms(lambda: compiler.compile_pending(next(fresh)), int(300 * reps))
    for factor in (4, 16):
        row(f"workspace {factor}x: first compile (new Compiler)", cold[factor], cold[1], "1x", float(factor))
        row(f"workspace {factor}x: warm turn, new facts", warm[factor], warm[1], "1x", float(factor))


def _scaled_workspace(source: Path, target: Path, factor: int) -> Path:
    target.mkdir(parents=True)
    for path in source.iterdir():
        if path.is_file():
            (target / path.name).write_text(
                path.read_text(encoding="utf-8", errors="replace") * factor, encoding="utf-8"
            )
    for copy in range(factor):
        shutil.copytree(source / "skills", target / "skills" / f"copy{copy}", symlinks=True)
    return target


def skills_growth(scratch: Path, reps: float) -> None:
    """10, 100 and 1,000 small skills: a warm turn should not care how many there are."""
    turns = {}
    for count in (10, 100, 1000):
        workspace = scratch / f"skills{count}"
        for index in range(count):
            skill = workspace / "skills" / f"s{index:04d}"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(
                f"---\nname: s{index:04d}\ndescription: Skill number {index}.\n---\nBody.\n"
            )
        (workspace / "AGENTS.md").write_text("Rules.\n")
        compiler = Compiler(workspace=workspace)
        turns[count] = median_ms(lambda: compiler.compile_pending(turn_facts()), int(600 * reps))
    row("warm repeat turn, 1,000 skills", turns[1000], turns[10], "10 skills", 1.5)
    row("warm repeat turn, 100 skills", turns[100], turns[10], "10 skills")


# --------------------------------------------------------------------------- bundle


MATRIX = """
agents: [main, helper, scout, scribe, critic]
sessions: [main, subagent, cron, heartbeat]
modes: [full, minimal]
providers:
  - {provider: anthropic, model: anthropic/claude-sonnet-4-5}
  - {provider: openai, model: openai/gpt-5.5}
  - {provider: openai, model: openai/gpt-4.1}
  - {provider: google, model: google/gemini-2.5-pro}
  - {provider: mistral, model: mistral/large}
channels: [telegram, discord, webchat, slack, {channel: whatsapp, chat_type: group}]
"""


def bundle(scratch: Path) -> None:
    workspace = CORPUS / "okbest2024-backup"
    if not workspace.is_dir():
        workspace = REPO / "examples" / "workspace"
    config, matrix = scratch / "bundle-config.yaml", scratch / "matrix.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "agents": {
                    "defaults": {"workspace": str(workspace), "heartbeat": {"enabled": True}},
                    "list": [{"id": a} for a in ("main", "helper", "scout", "scribe", "critic")],
                }
            }
        )
    )
    matrix.write_text(MATRIX)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    base = [sys.executable, "-m", "promptc", "bundle", "--matrix", str(matrix), "--config", str(config)]
    serial = wall_ms([*base, "--out", str(scratch / "bundle1"), "--jobs", "1"], env)
    parallel = wall_ms([*base, "--out", str(scratch / "bundle2"), "--jobs", "2"], env)
    row(f"1,000-variant bundle, --jobs 2 ({workspace.name})", parallel / 1000, 5.0, "target", 1.0, unit="s")
    row("1,000-variant bundle, --jobs 1", serial / 1000, parallel / 1000, "--jobs 2", unit="s")
    peak = peak_rss_mib([*base, "--out", str(scratch / "bundle3"), "--jobs", "1"], env)
    if peak is not None:
        ROWS.append(Row("peak RSS, bundle --jobs 1", f"{peak:.1f} MiB", "", None))


def bundle_turns(scratch: Path, reps: float) -> None:
    """A turn served from an open bundle next to the same turn from a warm Compiler (default check),
    measured in alternation: a repeat turn, and a turn with new volatile facts; the bundle reading
    HEARTBEAT.md from the workspace, as a runtime that keeps it fresh does, and as built."""
    from promptc import Bundle, Request
    from promptc.features import bundle as bundles

    workspace = CORPUS / TARGETED[0]
    if not workspace.is_dir():
        workspace = REPO / "examples" / "workspace"
    config, run = config_for(workspace, scratch), turn_facts()
    request = Request(config_paths=(config,), run=run)
    bundles.write(bundles.build([run], request), scratch / "turn-bundle")
    opened = Bundle.open(scratch / "turn-bundle")
    compiler = Compiler(config_paths=[config])
    count = int(600 * reps)
    served, warm = paired_ms(
        lambda: opened.compile(run, workspace=workspace), lambda: compiler.compile_pending(run), count
    )
    label = "warm Compiler repeat turn"
    row(f"{workspace.name}: repeat turn from an open bundle, HEARTBEAT.md read", served, warm, label, 1.0)
    served, warm = paired_ms(lambda: opened.compile(run), lambda: compiler.compile_pending(run), count)
    row(f"{workspace.name}: repeat turn from an open bundle, HEARTBEAT.md as built", served, warm, label, 1.0)
    others = [dataclasses.replace(run, extra_prompt=f"Group chat, turn {i}.") for i in range(4000)]
    mine, theirs = iter(others), iter(others)
    served, warm = paired_ms(
        lambda: opened.compile(next(mine), workspace=workspace), lambda: compiler.compile_pending(next(theirs)), count
    )
    label = "warm Compiler turn, new facts"
    row(f"{workspace.name}: turn with new volatile facts from an open bundle", served, warm, label, 1.0)
    compiler.close()


# --------------------------------------------------------------------------- report


def _machine() -> str:
    cpu = (
        next(
            (
                line.split(":", 1)[1].strip()
                for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")
            ),
            platform.processor(),
        )
        if Path("/proc/cpuinfo").exists()
        else platform.processor()
    )
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (
        f"machine: {cpu}, {cores} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}"
    )


def _print_table() -> None:
    print()
    print("| measure | value | baseline | ratio | target | |")
    print("|---|---:|---|---:|---:|---|")
    for r in ROWS:
        ratio = "" if r.ratio is None else f"{r.ratio:.3f}x"
        target = "" if r.target is None else f"<= {r.target:g}x"
        print(f"| {r.what} | {r.value} | {r.baseline} | {ratio} | {target} | {r.verdict()} |")


if __name__ == "__main__":
    main()
