"""Swap a workspace directory for a link to another directory while it is compiled, and count the
compiles that read a file from outside the directory they resolved (issue 14.10). Not a test:
a race needs many tries, so it is a script (the README names it).

    python bench/race_workspace_swap.py [--compiles N]

A second process swaps `ws` for a symlink to `outside` and back as fast as it can. Each compile
resolves the workspace once; an injection is a prompt whose SOUL.md was reported under `ws` but
holds the text of `outside/SOUL.md`. A compile that notices the swap and fails is counted apart.
Expected: 0 injections.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from promptc import PromptcError, Request  # noqa: E402
from promptc.warm.compiler import compile_once  # noqa: E402

INSIDE, OUTSIDE = "the agent's own soul", "A SECRET FROM OUTSIDE THE WORKSPACE"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=2000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        ws, outside, away = _layout(Path(scratch))
        stop = multiprocessing.Event()
        swapper = multiprocessing.Process(target=_swap, args=(ws, outside, away, stop), daemon=True)
        swapper.start()
        try:
            counts = _compile_many(ws, outside, options.compiles)
        finally:
            stop.set()
            swapper.join()
    print(
        f"{options.compiles} compiles: {counts['clean']} read the workspace, {counts['outside']} resolved the link "
        f"(and read it as the workspace), {counts['refused']} noticed the swap and failed, "
        f"{counts['crashed']} failed with an internal error, {counts['injected']} injected an outside file"
    )
    sys.exit(1 if counts["injected"] else 0)


def _layout(scratch: Path) -> tuple[Path, Path, Path]:
    ws, outside = scratch / "ws", scratch / "outside"
    for directory, text in ((ws, INSIDE), (outside, OUTSIDE)):
        directory.mkdir()
        (directory / "SOUL.md").write_text(text + "\n", encoding="utf-8")
    return ws, outside, scratch / "ws-away"


def _swap(ws: Path, outside: Path, away: Path, stop) -> None:
    """ws is the real directory, then a link to `outside`, then the directory again."""
    while not stop.is_set():
        os.rename(ws, away)
        os.symlink(outside, ws)
        os.unlink(ws)
        os.rename(away, ws)


def _compile_many(ws: Path, outside: Path, count: int) -> dict[str, int]:
    counts = dict.fromkeys(("clean", "outside", "refused", "crashed", "injected"), 0)
    for _ in range(count):
        try:
            prompt, _ = compile_once(Request(workspace=ws, env={}, plugins=False))
        except PromptcError:
            counts["refused"] += 1
            continue
        except Exception:  # an internal error: the CLI would print one line and exit 2
            counts["crashed"] += 1
            continue
        soul = next((f for f in prompt.files if f.name == "SOUL.md"), None)
        if soul is None or soul.status != "ok":
            counts["refused"] += 1
        elif Path(soul.path).parent == outside.resolve():
            counts["outside"] += 1
        elif OUTSIDE in soul.text:
            counts["injected"] += 1
        else:
            counts["clean"] += 1
    return counts


if __name__ == "__main__":
    main()
