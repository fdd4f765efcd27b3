"""`promptc init DIR`: seed a new workspace with our default bootstrap files (never overwrites)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..workspace import state
from .common import EXIT_OK, now_utc


def configure(parser: argparse.ArgumentParser) -> None:
    """Add init's argument."""
    parser.add_argument("dir", type=Path, metavar="DIR", help="the workspace folder (created if needed)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Write the default files that are not there yet; say which were created, which were kept
    as they are, and why BOOTSTRAP.md was left out of a workspace that is not new."""
    created = state.init(args.dir, now=now_utc())
    for name in state.SEEDED_TEMPLATE_NAMES:
        path = args.dir / name
        if name in created:
            print(f"created {path}")
        elif path.exists():
            print(f"kept    {path} (already there; never overwritten)")
        else:
            print(f"skipped {path} (the first-run guide goes only into a new workspace)")
    if not created:
        print(f"{args.dir}: nothing written")
    return EXIT_OK
