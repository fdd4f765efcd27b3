"""Script (not a test): kill -9 a `transcript repair` while it writes, then check the next repair cleans up.

Writes a session file of about --mb MiB with a few faults (bench_transcript_repair's), starts
`python -m promptc transcript repair FILE` in a child process, waits until the child's temp file
(`.FILE.repair-<host>-<pid>-<hex>.tmp`) holds --kill-at of the file, and sends it SIGKILL. Then it
checks that the session file is byte for byte what it was, that the temp file was left behind and
no backup was made yet, and runs the repair again: the leftover must be gone, the file repaired,
and the new backup the only file beside it. Exits 0 when every check holds, 1 otherwise.

    python bench/kill_repair.py [--mb 100] [--kill-at 0.5]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_transcript_repair import write_session  # the benchmark's file: realistic turns, a few faults

REPO = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as source:
        while chunk := source.read(MIB):
            sha.update(chunk)
    return sha.hexdigest()


def repair_command(path: Path) -> list[str]:
    return [sys.executable, "-m", "promptc", "transcript", "repair", str(path)]


def kill_while_writing(path: Path, fraction: float) -> tuple[bool, str]:
    """Start a repair and SIGKILL it once its temp file is `fraction` full; (killed mid-write, detail)."""
    size = path.stat().st_size
    child = subprocess.Popen(repair_command(path), cwd=REPO, stderr=subprocess.PIPE)
    pattern = f".{path.name}.repair-*-{child.pid}-*.tmp"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        temps = list(path.parent.glob(pattern))
        if temps and temps[0].stat().st_size >= fraction * size:
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
            return True, f"killed pid {child.pid} with {temps[0].stat().st_size / MIB:.1f} MiB written"
        time.sleep(0.002)
    child.wait()
    return False, f"the repair ended before it could be killed (exit {child.returncode})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="session file size in MiB (default 100)")
    parser.add_argument("--kill-at", type=float, default=0.5, help="share of the temp file written at the kill")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "s1.jsonl"
        write_session(path, int(args.mb * MIB))
        before = digest(path)
        killed, detail = kill_while_writing(path, args.kill_at)
        print(detail)
        left = sorted(p.name for p in path.parent.iterdir() if p != path)
        checks = [
            ("the repair was killed while writing", killed),
            ("the session file is unchanged", digest(path) == before),
            ("its temp file was left behind", any(name.endswith(".tmp") for name in left)),
            ("no backup was made before the rename", not any(".bak-" in name for name in left)),
        ]
        second = subprocess.run(repair_command(path), cwd=REPO, capture_output=True, text=True)
        print(second.stderr.strip())
        after = sorted(p.name for p in path.parent.iterdir() if p != path)
        checks += [
            ("the next repair succeeded", second.returncode == 0 and "repaired" in second.stderr),
            ("it removed the leftover temp file", "removed 1 stale temp file" in second.stderr),
            ("no temp file is left", not any(name.endswith(".tmp") for name in after)),
            ("only its backup is left beside the file", len(after) == 1 and ".bak-" in after[0]),
            ("the file was repaired", digest(path) != before),
        ]
    for name, held in checks:
        print(f"{'ok  ' if held else 'FAIL'} {name}")
    return 0 if all(held for _, held in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
