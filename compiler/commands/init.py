"""`promptc init DIR`: seed a new workspace with our default bootstrap files (never overwrites)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..workspace import state
from .common import EXIT_OK, now_utc


def configure(parser: argparse.ArgumentParser) -> None:
    """Add init's argument."""
    parser.add_argument("dir", type=Path)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Write the default files that are not there yet and say which."""
    created = state.init(args.dir, now=now_utc())
    for name in created:
        print(f"created {args.dir / name}")
    if not created:
        print(f"{args.dir}: every default file already exists; nothing written")
    return EXIT_OK
