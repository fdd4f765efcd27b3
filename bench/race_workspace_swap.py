"""Swap a workspace directory for a link to another directory while it is compiled, and count the
compiles that read a file from outside the directory they resolved (issue 14.10). Not a test:
a race needs many tries, so it is a script (the README names it).

    python bench/race_workspace_swap.py [--compiles N]

A second process swaps `ws` for a symlink to `outside` and back as fast as it can. Each compile
resolves the workspace once; an injection is a prompt whose SOUL.md was reported under `ws` but
holds the text of `outside/SOUL.md`. A compile that notices the swap and fails is counted apart.
Expected: 0 injections.

    python bench/race_workspace_swap.py --warm [--compiles N]

A warm Compiler (kernel notification on, then off) and `compile_prompt` serve turns while the link
`ws` is re-pointed between two workspaces every other turn; a stale turn is one that serves the
workspace the link no longer leads to. Expected: 0 stale turns.
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

from promptc import Compiler, PromptcError, Request, compile_prompt  # noqa: E402
from promptc.warm.compiler import compile_once  # noqa: E402

INSIDE, OUTSIDE = "the agent's own soul", "A SECRET FROM OUTSIDE THE WORKSPACE"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiles", type=int, default=2000)
    parser.add_argument("--warm", action="store_true", help="re-point a link under warm compiles instead")
    options = parser.parse_args()
    if options.warm:
        sys.exit(_warm(options.compiles))
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


def _warm(turns: int) -> int:
    """Each way of serving warm turns, `turns` turns each; 1 when any turn was stale."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for name in ("a", "b"):
            (root / name).mkdir()
            (root / name / "SOUL.md").write_text(f"the soul of {name}\n", encoding="utf-8")
        link = root / "ws"
        ways = {
            "Compiler, notify on": Compiler(workspace=link, env={}, plugins=False).compile,
            "Compiler, notify off": Compiler(workspace=link, env={}, plugins=False, notify=False).compile,
            "compile_prompt": lambda: compile_prompt(Request(workspace=link, env={}, plugins=False)),
        }
        stale_anywhere = False
        for way, serve in ways.items():
            stale = sum(_stale_turn(link, root / "ab"[turn // 2 % 2], serve) for turn in range(turns))
            print(f"{way}: {turns} turns, the link re-pointed every other turn, {stale} stale")
            stale_anywhere = stale_anywhere or stale > 0
    return 1 if stale_anywhere else 0


def _stale_turn(link: Path, target: Path, serve) -> bool:
    """Point `link` at `target` (in one rename) and serve a turn: whether it read another workspace."""
    fresh = link.with_name("ws.new")
    fresh.symlink_to(target, target_is_directory=True)
    os.replace(fresh, link)
    return f"the soul of {target.name}" not in serve().text


if __name__ == "__main__":
    main()
