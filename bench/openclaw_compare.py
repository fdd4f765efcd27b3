"""Compare promptc with OpenClaw's real builder over the corpus x session kinds x modes.

Not part of CI: it needs OpenClaw installed (../shared/tools/openclaw-ref/README.md) and node.
Both builders get the harness's example turn (`examples/turn.json`) without its one listed
skill: each finds the skills itself (OpenClaw's `buildWorkspaceSkillsPrompt`; promptc with
`skills.load.bundledDir` set to the installed package's `skills/` and the skill folders of the
plugins OpenClaw turns on by default as extra roots, checked against this process's
environment, which the harness shares). Both are given the same workspace path (promptc also
as `agents.defaults.workspace`, the directory its prompt names), so a workspace skill's
location is the same absolute path, of the same length, on both sides. promptc gets the config
OpenClaw implies without one (heartbeats on, so HEARTBEAT.md is loaded; MEMORY.md in group
chats too; the facts' time zone).
Reports, per case:

- headings: our rendered sections that have an OpenClaw heading (templates/section_order.yaml)
  against OpenClaw's structural headings, as id sequences (file headings aside); and the heading
  lines themselves, word for word;
- files: the set of (file, side) injected;
- skills (full and minimal modes): the names listed by both, by promptc only, by OpenClaw only;
- file sizes (full and minimal modes): the same files injected, each within 1% of OpenClaw's size
  (UTF-16 code units on both sides, as OpenClaw counts), twice: as bodies (a leading frontmatter
  block and CRs not counted on OpenClaw's side, since promptc strips the one and turns CRLF into
  LF by design), and as each builder injects the file;
- the built-in guidance size for okbest2024-backup main/full: the prompt minus file headings,
  file bodies and the skills list; and how many of OpenClaw's instructions there
  (tests/support/guidance.py) promptc's prompt carries.

    python bench/openclaw_compare.py [--workers 2] [--show N] [--only WORKSPACE] [--kinds main,cron]

Harness results are cached in $OPENCLAW_COMPARE_CACHE (default: a temp dir).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openclaw_ref as ref


def cases(only: str | None, kinds: str | None = None) -> list[tuple[Path, str, str]]:
    workspaces = sorted(p for p in ref.CORPUS.iterdir() if p.is_dir() and (only is None or p.name == only))
    chosen = ref.KINDS if kinds is None else tuple(kinds.split(","))
    return [(ws, kind, mode) for ws in workspaces for kind in chosen for mode in ref.MODES]


def warm_cache(all_cases: list[tuple[Path, str, str]], facts: dict, workers: int) -> None:
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda case: ref.openclaw(case[0], facts, case[1], case[2], prompt=True), all_cases))


SIZE_TOLERANCE = 0.01
"""How far an injected file's size may be from OpenClaw's, as a share of OpenClaw's size."""
SIZED_MODES = ("full", "minimal")


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def injected_sizes(prompt) -> dict[str, int]:
    """promptc's injected files (missing-file markers aside) -> size in UTF-16 code units."""
    return {f.name: utf16_length(f.text) for f in prompt.files if f.injected and f.status != "missing"}


FRONTMATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)\s*", re.S)
"""A leading YAML frontmatter block: promptc never injects it, OpenClaw does."""


def openclaw_sizes(result, *, bodies: bool = False) -> dict[str, int]:
    """OpenClaw's injected files (missing ones aside) -> the size its prompt shows.

    The harness counts a file before OpenClaw's last clean-up (its legacy heartbeat block
    removed, runs of empty lines squeezed); for a file it did not cut, that clean-up is redone
    here on the file as read, so both sides count what the prompt holds. `bodies`: what both
    inject of a file's body, as promptc decides to inject it: without a leading frontmatter
    block, CRLF and lone CR counted as one LF (an uncut file only: a cut one keeps its count).
    """
    return {f["name"]: _shown_size(f, bodies) for f in result["files"] if f["injected"] and not f["missing"]}


def _shown_size(file: dict, bodies: bool) -> int:
    if file["truncated"]:
        return file["injectedChars"]
    try:
        with open(file["path"], encoding="utf-8", newline="") as handle:  # CRs as they are
            text = handle.read().removeprefix("\ufeff").rstrip()
    except (OSError, UnicodeDecodeError):
        return file["injectedChars"]
    if utf16_length(text) != file["rawChars"]:  # the loader changed it: keep its count
        return file["injectedChars"]
    block = _openclaw_heartbeat_block()
    cleaned = text.replace(block, "") if block else text
    if bodies:
        cleaned = FRONTMATTER.sub("", cleaned.replace("\r\n", "\n").replace("\r", "\n"), count=1)
    return utf16_length(re.sub(r"\n{3,}", "\n\n", cleaned))


@functools.cache
def _openclaw_heartbeat_block() -> str | None:
    """The legacy heartbeat block OpenClaw strips from injected files, read from its installed
    dist (so its text is not repeated here)."""
    dist = ref.openclaw_dir() / "dist"
    for chunk in sorted(dist.glob("system-prompt-config-*.js")):
        found = re.search(r'DEFAULT_HEARTBEAT_PROMPT_CONTEXT_BLOCK = ("(?:[^"\\]|\\.)*")', chunk.read_text())
        if found:
            return json.loads(found.group(1))
    return None


def size_differences(ours: dict[str, int], theirs: dict[str, int]) -> list[str]:
    """What differs: a file on one side only, or a size more than 1% away."""
    out = [f"{name} only {'ours' if name in ours else 'theirs'}" for name in sorted(set(ours) ^ set(theirs))]
    for name in sorted(set(ours) & set(theirs)):
        if abs(ours[name] - theirs[name]) > SIZE_TOLERANCE * max(theirs[name], 1):
            out.append(f"{name} {ours[name]} vs {theirs[name]}")
    return out


@dataclasses.dataclass
class Tally:
    """Counts over the cases, and the differences each kind of mismatch showed."""

    total: int = 0
    headings: int = 0
    literal: int = 0
    files: int = 0
    sized: int = 0
    sizes: int = 0
    bodies: int = 0
    skills: int = 0


def skills_line(ours: set[str], theirs: set[str]) -> str:
    """Skills listed by both, by promptc only and by OpenClaw only, for one case."""
    line = f"skills both {len(ours & theirs)}"
    if ours - theirs:
        line += f", only promptc {sorted(ours - theirs)}"
    if theirs - ours:
        line += f", only OpenClaw {sorted(theirs - ours)}"
    return line


def compare_sized(prompt, result, tally: Tally) -> str:
    """One full/minimal case's line: its skills and its injected file sizes."""
    tally.sized += 1
    ours_skills, theirs_skills = ref.listed_skills(prompt.text), ref.listed_skills(result["prompt"])
    tally.skills += ours_skills == theirs_skills
    ours = injected_sizes(prompt)
    differences = size_differences(ours, openclaw_sizes(result))
    tally.sizes += not differences
    body_differences = size_differences(ours, openclaw_sizes(result, bodies=True))
    tally.bodies += not body_differences
    if not differences:
        sizes = "files within 1%"
    elif not body_differences:
        sizes = f"files within 1% as bodies (as injected: {'; '.join(differences)})"
    else:
        sizes = f"files differ as bodies: {'; '.join(body_differences)}"
    return f"{skills_line(ours_skills, theirs_skills)}; {sizes}"


def compare_structure(prompt, result, table, tally: Tally) -> list[str]:
    """Headings and file sides of one case; the lines that say what differs."""
    ours_ids, ours_files = ref.promptc_structure(prompt, table)
    theirs_ids, theirs_files = ref.openclaw_structure(result, table)
    tally.literal += ref.literal_headings(prompt) == ref.openclaw_literal_headings(result)
    tally.headings += ours_ids == theirs_ids
    tally.files += ours_files == theirs_files
    out = []
    if ours_ids != theirs_ids:
        out.append(f"    sections ours:   {' '.join(ours_ids)}\n    sections theirs: {' '.join(theirs_ids)}")
    if ours_files != theirs_files:
        only_ours, only_theirs = sorted(ours_files - theirs_files), sorted(theirs_files - ours_files)
        out.append(f"    files only ours: {only_ours}; only theirs: {only_theirs}")
    return out


def compare(all_cases, facts, table, show: int) -> Tally:
    tally, shown = Tally(), 0
    print("per case (full/minimal): skills listed by both / only one; injected files")
    for ws, kind, mode in all_cases:
        prompt, result = ref.promptc(ws, facts, kind, mode), ref.openclaw(ws, facts, kind, mode, prompt=True)
        tally.total += 1
        if mode in SIZED_MODES:
            print(f"- {ws.name} {kind}/{mode}: {compare_sized(prompt, result, tally)}")
        structure = compare_structure(prompt, result, table, tally)
        if structure and shown < show:
            shown += 1
            print(f"- {ws.name} {kind}/{mode} structure:", *structure, sep="\n")
    return tally


def percent(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / max(total, 1):.1f}%)"


def summary(tally: Tally) -> None:
    print(f"section headings match (through the order table): {tally.headings}/{tally.total}")
    print(f"heading lines match word for word: {tally.literal}/{tally.total}")
    print(f"injected files and sides match: {tally.files}/{tally.total}")
    print(f"same listed skills: {percent(tally.skills, tally.sized)}")
    print(f"same injected files within 1%, bodies (frontmatter and CRs aside): {percent(tally.bodies, tally.sized)}")
    print(f"same injected files within 1%, as each builder injects them: {percent(tally.sizes, tally.sized)}")


def guidance_points() -> dict[str, str]:
    """The table of OpenClaw's instructions and promptc's phrases (tests/support/guidance.py)."""
    sys.path.insert(0, str(ref.REPO / "tests"))
    from support.guidance import POINTS

    return POINTS


def guidance(facts) -> None:
    ws = ref.CORPUS / "okbest2024-backup"
    prompt = ref.promptc(ws, facts, "main", "full")
    points = guidance_points()
    missing = [point for point, phrase in points.items() if phrase not in prompt.text]
    print(f"okbest2024-backup main/full guidance points present: {len(points) - len(missing)}/{len(points)}")
    if missing:
        print(f"    missing: {', '.join(missing)}")
    ours = ref.promptc_guidance(prompt)
    theirs = ref.openclaw_guidance(ref.openclaw(ws, facts, "main", "full", prompt=True))
    print(
        f"okbest2024-backup main/full guidance chars (prompt minus files and skills): promptc {len(ours)}, OpenClaw {len(theirs)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=10, help="print this many differing cases")
    parser.add_argument("--only", help="one corpus workspace")
    parser.add_argument("--kinds", help="session kinds, comma-separated (default: all four)")
    args = parser.parse_args(argv)
    if not ref.HARNESS.is_file() or not ref.CORPUS.is_dir():
        parser.error(f"needs the shared harness and corpus under {ref.SHARED} (set PROMPTC_SHARED)")
    facts, table = ref.workspace_skills_facts(), ref.order_table()
    all_cases = cases(args.only, args.kinds)
    warm_cache(all_cases, facts, args.workers)
    summary(compare(all_cases, facts, table, args.show))
    if args.only in (None, "okbest2024-backup") and args.kinds is None:
        guidance(facts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
