"""`promptc snapshot gen|check`: regenerate or check the committed prompt snapshots."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._lib.errors import UsageError
from ..features import snapshot
from .common import EXIT_FOUND, EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `snapshot gen|check`."""
    parser.set_defaults(handler=_no_command)
    sub = parser.add_subparsers(title="snapshot commands", parser_class=type(parser))
    for name, handler, summary in (
        ("gen", _gen, "(re)write every scenario's expected outputs and delete stale files"),
        ("check", _check, "exit 1 when a committed snapshot differs from the generated output"),
    ):
        command = sub.add_parser(name, help=summary)
        command.add_argument(
            "--dir", type=Path, default=Path("snapshots"), help="snapshots directory (default: snapshots)"
        )
        command.add_argument(
            "--templates",
            action="append",
            type=Path,
            default=[],
            metavar="DIR",
            help="user template dir searched before each scenario's own (repeatable)",
        )
        command.set_defaults(handler=handler)


def _no_command(_args: argparse.Namespace) -> int:
    raise UsageError("choose a snapshot command: gen or check")


def _gen(args: argparse.Namespace) -> int:
    drift = snapshot.gen(args.dir, args.templates)
    print(
        f"promptc: snapshots written: {drift.scenarios} scenarios, {drift.files} files"
        f" ({len(drift.outdated)} updated, {len(drift.stale)} stale removed)"
    )
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    drift = snapshot.check(args.dir, args.templates)
    if drift.clean:
        print(f"promptc: snapshots are current ({drift.scenarios} scenarios, {drift.files} files)")
        return EXIT_OK
    print(snapshot.format_drift(drift), end="")
    return EXIT_FOUND
