"""Every real workspace in the shared corpus loads, filters and fits its budgets."""

from __future__ import annotations

import pytest

from promptc.model.config import Budgets, HeartbeatConfig
from promptc.model.runfacts import SESSION_KINDS, RunFacts
from promptc.skills import listing as skillblock
from promptc.workspace import budget, filters, heartbeat
from promptc.workspace import loader as workspace

from support.factories import make_config
from support.paths import CORPUS

FOLDERS = sorted(path.name for path in CORPUS.iterdir() if path.is_dir()) if CORPUS.is_dir() else []
NEEDS_CORPUS = pytest.mark.skipif(not FOLDERS, reason=f"the shared corpus is not at {CORPUS}")
EVERY_FOLDER = FOLDERS or [pytest.param("absent", marks=NEEDS_CORPUS)]
RUNS = [RunFacts(session=kind, light_context=light) for kind in SESSION_KINDS for light in (False, True)]
CONFIGS = [make_config(), make_config(heartbeat=HeartbeatConfig(enabled=True))]
DEFAULTS = Budgets()


def files_of(folder: str):
    return {file.name: file for file in workspace.load(CORPUS / folder)}


@pytest.mark.parametrize("folder", EVERY_FOLDER)
def test_every_session_kind_fits_the_default_budgets(folder: str) -> None:
    loaded = workspace.load(CORPUS / folder)
    for cfg in CONFIGS:
        for run in RUNS:
            kept = filters.apply(loaded, cfg, run, setup_complete=False, workspace=CORPUS / folder)
            result = budget.apply(kept, DEFAULTS)
            assert [file.name for file in result] == [file.name for file in kept]
            assert all(file.injected_chars <= DEFAULTS.max_chars for file in result)
            assert sum(file.injected_chars for file in result) <= DEFAULTS.total_max_chars
            for file in result:
                if file.frontmatter is not None:
                    assert not file.text.startswith("---"), file.name


@pytest.mark.parametrize("folder", EVERY_FOLDER)
def test_skills_list_fits_its_budget_and_is_sorted(folder: str) -> None:
    block = skillblock.build(make_config(), CORPUS / folder, env={}, which=lambda name: None, platform="linux")
    assert len(block.text) <= make_config().skills.max_prompt_chars
    names = [entry.name for entry in block.entries]
    assert names == sorted(names)
    listed = [entry.name for entry in block.entries if entry.included]
    assert block.text.count("<skill>") == len(listed)


@NEEDS_CORPUS
def test_known_facts_of_particular_workspaces() -> None:
    # Character counts from the corpus's own STATS.md (files without BOM or CRLF).
    okbest = files_of("okbest2024-backup")
    assert okbest["MEMORY.md"].raw_chars == 98_508
    memory = budget.apply([okbest["MEMORY.md"]], DEFAULTS)[0]
    assert memory.status == "truncated" and memory.injected_chars <= 20_000

    drew = files_of("drew-and-keanu-archive")
    assert drew["MEMORY.md"].status == "missing" and "memory.md" not in drew  # its memory.md is not read

    lowercase = files_of("yuemo-claw-lowercase")
    assert lowercase["AGENTS.md"].status == "missing"
    assert lowercase["MEMORY.md"].status == "missing" and lowercase["MEMORY.md"].diagnostics

    pespringer = files_of("pespringer-recon")
    assert (pespringer["BOOTSTRAP.md"].status, pespringer["BOOTSTRAP.md"].content) == ("ok", "")


@NEEDS_CORPUS
def test_crlf_and_frontmatter_cases_are_normalised() -> None:
    llwxw = files_of("llwxw")
    assert "\r" not in llwxw["SOUL.md"].content
    assert llwxw["MEMORY.md"].frontmatter["version"] == 2.0
    assert not llwxw["MEMORY.md"].content.startswith("---")
    for name, file in files_of("openclaw-templates-2026.2.1").items():
        if file.status == "ok":
            assert file.frontmatter is not None and "summary" in file.frontmatter, name


@NEEDS_CORPUS
@pytest.mark.parametrize(
    ("folder", "empty"),
    [
        ("0xbutchai", True),
        ("archer-clawbot", True),
        ("ws-717986230", True),
        ("openclaw-templates-2026.2.1", True),
        ("nicola-king", False),
        ("daxian10086-backup", False),
    ],
)
def test_comment_only_heartbeat_files_are_effectively_empty(folder: str, empty: bool) -> None:
    assert heartbeat.is_effectively_empty(files_of(folder)["HEARTBEAT.md"].content) is empty


@NEEDS_CORPUS
def test_a_cut_agents_md_spends_its_budget_as_openclaws_does() -> None:
    # nick353-clawdbot-save's AGENTS.md (28,703 characters) is cut to 20,000. OpenClaw 2026.7.1's
    # cut, with its digest, holds 19,185 UTF-16 units of it; the digest's unused share, handed to
    # the head and tail round after round, brings promptc's within 1% of that (a single round
    # left 18,392 characters).
    agents = files_of("nick353-clawdbot-save")["AGENTS.md"]
    cut = budget.apply([agents], DEFAULTS)[0]
    units = len(cut.text.encode("utf-16-le")) // 2
    assert cut.status == "truncated" and abs(units - 19_185) <= 191 and len(cut.text) <= 20_000
