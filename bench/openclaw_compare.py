"""Compare promptc with OpenClaw's real builder over the corpus x session kinds x modes.

Not part of CI: it needs OpenClaw installed (../shared/tools/openclaw-ref/README.md) and node.
Both builders get the harness's example turn (`examples/turn.json`); promptc gets the config
OpenClaw implies without one (heartbeats on, so HEARTBEAT.md is loaded; the facts' time zone;
only the facts' one skill). Reports, per case:

- headings: our rendered sections that have an OpenClaw heading (templates/section_order.yaml)
  against OpenClaw's structural headings, as id sequences (file headings aside); and the heading
  lines themselves, word for word;
- files: the set of (file, side) injected;
- the built-in guidance size for okbest2024-backup main/full: the prompt minus file headings,
  file bodies and the skills list.

    python bench/openclaw_compare.py [--workers 2] [--show N] [--only WORKSPACE]

Harness results are cached in $OPENCLAW_COMPARE_CACHE (default: a temp dir).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import openclaw_ref as ref


def cases(only: str | None) -> list[tuple[Path, str, str]]:
    workspaces = sorted(p for p in ref.CORPUS.iterdir() if p.is_dir() and (only is None or p.name == only))
    return [(ws, kind, mode) for ws in workspaces for kind in ref.KINDS for mode in ref.MODES]


def warm_cache(all_cases: list[tuple[Path, str, str]], facts: dict, workers: int) -> None:
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda case: ref.openclaw(case[0], facts, case[1], case[2]), all_cases))


def compare(all_cases, facts, table, show: int) -> None:
    heading_ok = files_ok = literal_ok = 0
    shown = 0
    for ws, kind, mode in all_cases:
        prompt, result = ref.promptc(ws, facts, kind, mode), ref.openclaw(ws, facts, kind, mode)
        ours_ids, ours_files = ref.promptc_structure(prompt, table)
        theirs_ids, theirs_files = ref.openclaw_structure(result, table)
        literal_ok += ref.literal_headings(prompt) == ref.openclaw_literal_headings(result)
        heading_ok += ours_ids == theirs_ids
        files_ok += ours_files == theirs_files
        if (ours_ids != theirs_ids or ours_files != theirs_files) and shown < show:
            shown += 1
            print(f"- {ws.name} {kind}/{mode}")
            if ours_ids != theirs_ids:
                print(f"    ours:   {' '.join(ours_ids)}\n    theirs: {' '.join(theirs_ids)}")
            if ours_files != theirs_files:
                print(
                    f"    files only ours: {sorted(ours_files - theirs_files)}; only theirs: {sorted(theirs_files - ours_files)}"
                )
    total = len(all_cases)
    print(f"section headings match (through the order table): {heading_ok}/{total}")
    print(f"heading lines match word for word: {literal_ok}/{total}")
    print(f"injected files and sides match: {files_ok}/{total}")


def guidance(facts) -> None:
    ws = ref.CORPUS / "okbest2024-backup"
    ours = ref.promptc_guidance(ref.promptc(ws, facts, "main", "full"))
    theirs = ref.openclaw_guidance(ref.openclaw(ws, facts, "main", "full", prompt=True))
    print(
        f"okbest2024-backup main/full guidance chars (prompt minus files and skills): promptc {len(ours)}, OpenClaw {len(theirs)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=10, help="print this many differing cases")
    parser.add_argument("--only", help="one corpus workspace")
    args = parser.parse_args(argv)
    if not ref.HARNESS.is_file() or not ref.CORPUS.is_dir():
        parser.error(f"needs the shared harness and corpus under {ref.SHARED} (set PROMPTC_SHARED)")
    facts, table = ref.turn_facts(), ref.order_table()
    all_cases = cases(args.only)
    warm_cache(all_cases, facts, args.workers)
    compare(all_cases, facts, table, args.show)
    if args.only in (None, "okbest2024-backup"):
        guidance(facts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
