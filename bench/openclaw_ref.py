"""Run OpenClaw's real prompt builder (through the shared harness) and promptc on the same turn.

Shared by `bench/openclaw_compare.py` and `bench/derive_section_order.py`; neither runs in CI.
OpenClaw must be installed (see ../shared/tools/openclaw-ref/README.md). Harness results are
cached per (workspace, kind, mode, facts) because one harness run costs about two seconds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from promptc import Request, RunFacts, Tool  # noqa: E402
from promptc._lib.resources import templates_root  # noqa: E402
from promptc._lib.text import normalise  # noqa: E402
from promptc.inputs import layers  # noqa: E402
from promptc.warm.compiler import compile_once as compile_pending  # noqa: E402

try:  # the file tags arrived with issue 10; older checkouts have none
    from promptc.sections.variables import file_fence
except ImportError:  # pragma: no cover

    def file_fence(name: str, text: str) -> tuple[str, str]:
        return "", ""


import yaml  # noqa: E402

SHARED = Path(os.environ.get("PROMPTC_SHARED", REPO.parent / "shared"))
HARNESS = SHARED / "tools" / "openclaw-ref" / "harness.mjs"
CORPUS = SHARED / "corpus"
TURN_FACTS = HARNESS.parent / "examples" / "turn.json"
ORDER_TABLE = templates_root() / "section_order.yaml"
KINDS = ("main", "subagent", "cron", "heartbeat")
MEMORY_IN_GROUPS_KNOWN = "memoryInGroups" in (templates_root() / "defaults.yaml").read_text()
MODES = ("full", "minimal", "none")
BUNDLED_DIR_KNOWN = "bundledDir" in "".join(p.read_text() for p in (REPO / "compiler" / "inputs").rglob("*.py"))
FILE_HEADING = re.compile(r"^## (/.*/)?(?P<name>[^/]+\.md)$")


def openclaw_dir() -> Path:
    """The installed `openclaw` package, where the harness looks for it by default."""
    found = Path(os.environ.get("OPENCLAW_REF_DIR", "/tmp/openclaw-ref"))
    return found / "node_modules" / "openclaw" if (found / "node_modules" / "openclaw").is_dir() else found


def default_plugin_skill_dirs() -> list[Path]:
    """The skill folders of the plugins shipped with OpenClaw that are on unless configured off
    (`enabledByDefault` in their manifest), in OpenClaw's order (by plugin folder)."""
    found = []
    for manifest in sorted((openclaw_dir() / "dist" / "extensions").glob("*/openclaw.plugin.json")):
        data = json.loads(manifest.read_text())
        if data.get("enabledByDefault") is True:
            found += [manifest.parent / entry for entry in data.get("skills", ()) if (manifest.parent / entry).is_dir()]
    return [Path(os.path.normpath(path)) for path in found]


def cache_dir() -> Path:
    return Path(os.environ.get("OPENCLAW_COMPARE_CACHE", Path(tempfile.gettempdir()) / "openclaw-compare-cache"))


def openclaw(workspace: Path, facts: dict[str, Any], kind: str, mode: str, *, prompt: bool = False) -> dict[str, Any]:
    """The harness's JSON for one case (cached on disk)."""
    text = json.dumps(facts, sort_keys=True)
    key = hashlib.sha256(f"{workspace}|{kind}|{mode}|{prompt}|{text}".encode()).hexdigest()[:24]
    cached = cache_dir() / f"{key}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        handle.write(text)
    args = ["node", str(HARNESS), str(workspace), handle.name, "--kind", kind, "--mode", mode]
    try:
        out = subprocess.run(args + ([] if prompt else ["--no-prompt"]), capture_output=True, text=True, check=True)
    finally:
        os.unlink(handle.name)
    cache_dir().mkdir(parents=True, exist_ok=True)
    cached.write_text(out.stdout)
    return json.loads(out.stdout)


def turn_facts() -> dict[str, Any]:
    return json.loads(TURN_FACTS.read_text())


def workspace_skills_facts() -> dict[str, Any]:
    """The example turn with the skills each builder finds itself (the workspace's and OpenClaw's
    bundled ones) in place of the facts' one listed skill."""
    facts = {key: value for key, value in turn_facts().items() if key != "skills"}
    return {**facts, "skills_source": "workspace"}


SKILL_NAME = re.compile(r"<name>(.*?)</name>")


def listed_skills(text: str) -> set[str]:
    """The skill names in a prompt's `<available_skills>` block (XML-escaped as both write them)."""
    block = re.search(r"<available_skills>.*?</available_skills>", text, re.S)
    return set(SKILL_NAME.findall(block.group(0))) if block else set()


# --------------------------------------------------------------------------- promptc side


def _skill_dir() -> Path:
    """A skills root holding the one skill the harness facts list, so both builders list one skill."""
    root = Path(tempfile.gettempdir()) / "openclaw-compare-skills"
    skill = root / "weather" / "SKILL.md"
    if not skill.exists():
        skill.parent.mkdir(parents=True, exist_ok=True)
        skill.write_text("---\nname: weather\ndescription: Get current weather & forecasts\n---\nUse a weather API.\n")
    return root


def promptc_request(workspace: Path, facts: dict[str, Any], kind: str, mode: str) -> Request:
    """The harness facts as a promptc request: run facts plus the config OpenClaw implies."""
    runtime = facts.get("runtime", {})
    reactions = facts.get("reactions")
    run = RunFacts(
        session=kind,  # type: ignore[arg-type]
        mode=mode,  # type: ignore[arg-type]
        channel=facts.get("channel"),
        chat_type=facts.get("chat_type"),
        capabilities=tuple(facts.get("capabilities", ())),
        tools=tuple(
            Tool(t["name"], t.get("summary", "")) if isinstance(t, dict) else Tool(t) for t in facts.get("tools", ())
        ),
        owners=tuple(facts.get("owners", ())),
        extra_prompt=facts.get("extra_system_prompt"),
        model=facts.get("model"),
        reactions=reactions.get("level") if isinstance(reactions, dict) else reactions,
        tts_hint=facts.get("tts_hint"),
        thinking=facts.get("thinking"),
        host=runtime.get("host"),
        os=runtime.get("os"),
        arch=runtime.get("arch"),
        shell=runtime.get("shell"),
    )
    tree = {
        "agents": {
            "defaults": {
                "workspace": str(workspace),
                "userTimezone": facts.get("timezone"),
                # OpenClaw without a config keeps HEARTBEAT.md in every main turn.
                "heartbeat": {"enabled": True},
                # ... and MEMORY.md in group chats too.
                **({"memoryInGroups": True} if MEMORY_IN_GROUPS_KNOWN else {}),
            }
        },
    }
    if facts.get("skills_source") == "workspace":
        # OpenClaw's own discovery: the workspace's skills and its bundled ones, checked against
        # this process's environment (the harness runs with it too).
        # The skills of the plugins OpenClaw turns on by default are extra roots to it as well.
        env = dict(os.environ)
        tree["skills"] = {"load": {"extraDirs": [str(d) for d in default_plugin_skill_dirs()]}}
        if BUNDLED_DIR_KNOWN and (openclaw_dir() / "skills").is_dir():
            tree["skills"]["load"]["bundledDir"] = str(openclaw_dir() / "skills")
    else:
        tree["agents"]["defaults"]["skills"] = [s["name"] for s in facts.get("skills", ())]
        tree["skills"] = {"load": {"extraDirs": [str(_skill_dir())]}}
        env = {"PATH": os.environ.get("PATH", "")}  # the workspace's own weather skill may need curl
    located = _located(tree)
    layer = layers.layer_from(located, "openclaw-compare", REPO)
    return Request(run=run, config_layers=(layer,), workspace=workspace, plugins=False, env=env, platform="linux")


def _located(tree: dict[str, Any]):
    from promptc.inputs import yamlsrc

    return yamlsrc.parse(yaml.safe_dump(tree), "openclaw-compare", Exception)


def promptc(workspace: Path, facts: dict[str, Any], kind: str, mode: str):
    """promptc's Prompt for the same case (nothing is written)."""
    prompt, _ = compile_pending(promptc_request(workspace, facts, kind, mode))
    return prompt


# --------------------------------------------------------------------------- comparison


def order_table() -> dict[str, Any]:
    return yaml.safe_load(ORDER_TABLE.read_text())


def heading_to_id(table: dict[str, Any]) -> dict[str, str]:
    """OpenClaw heading -> our section id (a stable `# Project Context` wins over the dynamic one)."""
    mapping: dict[str, str] = {}
    for section, row in table["sections"].items():
        headings = row["openclaw"] if isinstance(row["openclaw"], list) else [row["openclaw"]]
        for heading in headings:
            if heading:
                mapping.setdefault(heading, section)
    return mapping


def openclaw_structure(result: dict[str, Any], table: dict[str, Any]) -> tuple[list[str], set[tuple[str, str]]]:
    """(section ids in order, {(file, side)}) of a harness result."""
    ids, files, side, mapping = [], set(), "stable", heading_to_id(table)
    headings = result["headings"]
    for index, heading in enumerate(headings):
        match = FILE_HEADING.match(heading)
        if match:
            files.add((match.group("name"), side))
            continue
        section = mapping.get(heading, f"?{heading}")
        if heading == "# Project Context" and _next_file(headings, index) == "HEARTBEAT.md":
            section = "dynamic_context"
        if section == "dynamic_context":
            side = "volatile"
        if section in (
            "authorized_senders",
            "messaging",
            "runtime",
            "reactions",
            "heartbeats",
            "group_context",
            "voice",
        ):
            side = "volatile"
        ids.append(section)
    return ids, files


def _next_file(headings: list[str], index: int) -> str | None:
    following = headings[index + 1 : index + 2]
    match = FILE_HEADING.match(following[0]) if following else None
    return match.group("name") if match else None


def literal_headings(prompt) -> list[str]:
    """The `#` / `##` heading that opens each rendered section, as text."""
    firsts = (s.text.split("\n", 1)[0] for s in prompt.sections)
    return [line for line in firsts if re.match(r"^#{1,2} ", line)]


def openclaw_literal_headings(result: dict[str, Any]) -> list[str]:
    """OpenClaw's structural headings without the file headings."""
    return [h for h in result["headings"] if not FILE_HEADING.match(h)]


def promptc_structure(prompt, table: dict[str, Any]) -> tuple[list[str], set[tuple[str, str]]]:
    """(ids of rendered sections OpenClaw has a heading for, {(file, side)}) of a promptc prompt."""
    with_heading = {section for section, row in table["sections"].items() if row["openclaw"]}
    ids = [s.id for s in prompt.sections if s.id in with_heading]
    files = {
        (f.name, "volatile" if f.dynamic else "stable")
        for f in prompt.files
        if f.injected and normalise(f.text) in prompt.text
    }
    return ids, files


def openclaw_guidance(result: dict[str, Any]) -> str:
    """OpenClaw's prompt without file headings, bodies and the skills list."""
    text, headings = result["prompt"], result["headings"]
    for index, heading in enumerate(headings):
        if not FILE_HEADING.match(heading):
            continue
        start = text.index("\n" + heading + "\n") + 1
        following = [h for h in headings[index + 1 :]]
        end = len(text)
        for nxt in following:
            found = text.find("\n" + nxt + "\n", start + len(heading))
            if found != -1:
                end = found
                break
        text = text[:start] + text[end + 1 :]
    return re.sub(r"<available_skills>.*?</available_skills>\n?", "", text, flags=re.S)


def promptc_guidance(prompt) -> str:
    """promptc's prompt without file headings, file bodies (with their tags) and the skills list."""
    text = prompt.text
    for f in prompt.files:
        if f.injected:
            body = normalise(f.text)
            opening, closing = file_fence(f.name, f.text)
            text = text.replace(f"\n## {f.name}\n{opening}\n{body}\n{closing}", "", 1)
    if prompt.skills.text:
        text = text.replace(prompt.skills.text, "", 1)
    return text


def replace(run: RunFacts, **changes: Any) -> RunFacts:
    return dataclasses.replace(run, **changes)
