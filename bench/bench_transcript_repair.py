"""Benchmark (not a test): does `transcript repair` stream a ~50 MB session file?

Writes a session file with a few faults to a temp dir, then measures, each in a fresh child
process so peaks do not mix: an idle interpreter, `repair_file`, and a baseline that
`json.loads` every line into a list. Prints peak RSS (getrusage) and the peak of Python
allocations (tracemalloc, in a second child per phase), as ratios to the file size and to the
baseline.

With --long-line-mb N it measures one line of N MiB instead (plus a malformed line, so the file
is rewritten): repair must copy it unread under the default 64 MiB line cap, so its peak RSS stays
near the cap rather than a multiple of the line.

    python bench/bench_transcript_repair.py [--mb 50] [--long-line-mb 200]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024


def write_session(path: Path, target_bytes: int) -> int:
    """A realistic mix of turns, with one malformed line, empty error turn and blank user turn per ~1000 entries."""
    header = {"type": "session", "version": 2, "id": "bench", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n")
        n = 0
        while out.tell() < target_bytes:
            out.write(_line(n) + "\n")
            n += 1
    return path.stat().st_size


def _line(n: int) -> str:
    if n % 997 == 500:
        return '{"type":"message","id":"trunc'
    message = _message(n)
    return json.dumps(
        {
            "type": "message",
            "id": f"{n:08x}",
            "parentId": f"{n - 1:08x}" if n else None,
            "timestamp": "2026-01-01T00:00:01Z",
            "message": message,
        }
    )


def _message(n: int) -> dict:
    if n % 1009 == 3:
        return {"role": "assistant", "content": [], "stopReason": "error", "usage": {"input": 0}}
    if n % 1013 == 7:
        return {"role": "user", "content": [{"type": "text", "text": "  "}]}
    kind = n % 3
    if kind == 0:
        return {"role": "user", "content": f"question {n}: " + "please look at this " * 20, "timestamp": n}
    if kind == 1:
        return {
            "role": "assistant",
            "stopReason": "toolUse",
            "timestamp": n,
            "usage": {"input": 900, "output": 40},
            "content": [
                {"type": "text", "text": "Let me check. " * 10},
                {"type": "toolCall", "id": f"call_{n}", "name": "read", "arguments": {"path": f"/f/{n}"}},
            ],
        }
    return {
        "role": "toolResult",
        "toolCallId": f"call_{n - 1}",
        "toolName": "read",
        "isError": False,
        "timestamp": n,
        "content": [{"type": "text", "text": "file contents line\n" * 60}],
    }


def run_phase(phase: str, path: str, trace: bool) -> dict:
    """Runs inside the child: one phase, measured."""
    sys.path.insert(0, str(REPO))
    from promptc.transcript.repair import repair_file

    if trace:
        tracemalloc.start()
    started = time.perf_counter()
    if phase in ("repair", "long-line"):
        detail = repair_file(Path(path)).summary().split(": ", 1)[1]
    elif phase == "baseline":
        detail = f"{len(_load_every_line(path))} lines held in memory"
    else:
        detail = "interpreter with the repair module imported"
    seconds = time.perf_counter() - started
    traced = tracemalloc.get_traced_memory()[1] if trace else None
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"phase": phase, "seconds": seconds, "rss": rss_kib * 1024, "traced": traced, "detail": detail}


def _load_every_line(path: str) -> list:
    values = []
    with open(path, "rb") as lines:
        for line in lines:
            try:
                values.append(json.loads(line))
            except ValueError:
                continue  # the planted malformed lines
    return values


def measure(phase: str, path: Path, trace: bool) -> dict:
    child = subprocess.run(
        [sys.executable, __file__, "--phase", phase, "--file", str(path)] + (["--trace"] if trace else []),
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(child.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="session file size in MiB (default 50)")
    parser.add_argument("--long-line-mb", type=float, help="measure one line of this many MiB instead")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(run_phase(args.phase, args.file, args.trace)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        if args.long_line_mb:
            report_long_line(Path(tmp), int(args.long_line_mb * MIB))
        else:
            report(Path(tmp), int(args.mb * MIB))


def report(directory: Path, target: int) -> None:
    idle_path, path = directory / "idle.jsonl", directory / "session.jsonl"
    idle_path.write_text("")
    size = write_session(path, target)
    print(f"session file: {size / MIB:.1f} MiB")
    idle = measure("idle", idle_path, trace=False)
    baseline = measure("baseline", path, trace=False) | {"traced": measure("baseline", path, trace=True)["traced"]}
    repair_rss = measure("repair", path, trace=False)
    write_session(path, target)  # the first run repaired it; trace a run that has work to do
    repair = repair_rss | {"traced": measure("repair", path, trace=True)["traced"]}
    for row in (idle, baseline, repair):
        print(
            f"{row['phase']:>8}: {row['seconds']:6.2f} s  peak RSS {row['rss'] / MIB:7.1f} MiB"
            + (f"  traced peak {row['traced'] / MIB:7.2f} MiB" if row["traced"] is not None else "")
            + f"  ({row['detail']})"
        )
    over_idle = repair["rss"] - idle["rss"]
    print(f"repair peak RSS above an idle interpreter: {over_idle / MIB:.1f} MiB = {over_idle / size:.3f} x file size")
    print(
        f"repair traced peak: {repair['traced'] / size:.4f} x file size; "
        f"{repair['traced'] / baseline['traced']:.4f} x the json.loads baseline"
    )
    print(
        f"baseline peak RSS above idle: {(baseline['rss'] - idle['rss']) / size:.2f} x file size; "
        f"repair/baseline (above idle): {over_idle / (baseline['rss'] - idle['rss']):.3f}"
    )


def report_long_line(directory: Path, line_bytes: int) -> None:
    """Peak RSS of repairing a file whose one long line is over the line cap."""
    idle_path, path = directory / "idle.jsonl", directory / "long.jsonl"
    idle_path.write_text("")
    header = {"type": "session", "version": 2, "id": "bench", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w"}
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(header) + "\n" + '{"type":"message","id":"trunc\n')
        out.write('{"type":"message","id":"big","message":{"role":"user","content":"')
        for _ in range(line_bytes // MIB):
            out.write("x" * MIB)
        out.write('"}}\n')
    size = path.stat().st_size
    idle, repair = measure("idle", idle_path, trace=False), measure("long-line", path, trace=False)
    print(f"session file: {size / MIB:.1f} MiB, one line of {line_bytes / MIB:.0f} MiB")
    print(
        f"repair: {repair['seconds']:.2f} s, peak RSS {repair['rss'] / MIB:.1f} MiB "
        f"({(repair['rss'] - idle['rss']) / MIB:.1f} MiB above an idle interpreter)  ({repair['detail']})"
    )


if __name__ == "__main__":
    main()
