"""`promptc snapshot gen|check`: regenerate the committed prompt snapshots, or check them and
their expectations (with a review report of the change on request)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .._lib.atomic import write_output
from .._lib.errors import UsageError
from ..features import snapshot
from .common import EXIT_FOUND, EXIT_OK

COLORS = ("auto", "always", "never")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `snapshot gen|check`."""
    parser.set_defaults(handler=_no_command)
    sub = parser.add_subparsers(title="snapshot commands", parser_class=type(parser))
    gen = sub.add_parser("gen", help="(re)write every scenario's expected outputs and delete stale ones")
    _add_common(gen, _gen)
    check = sub.add_parser(
        "check", help="exit 1 when a committed snapshot differs from the generated output or an expectation fails"
    )
    _add_common(check, _check)
    check.add_argument(
        "--report",
        type=Path,
        metavar="FILE",
        help="also write a review report of the change: FILE.md (fits a pull-request comment) or FILE.html",
    )
    check.add_argument(
        "--color",
        choices=COLORS,
        default="auto",
        help="word-level diffs in colour: auto (when stdout is a terminal and NO_COLOR is unset), always, never",
    )


def _add_common(command: argparse.ArgumentParser, handler: object) -> None:
    command.add_argument("--dir", type=Path, default=Path("snapshots"), help="snapshots directory (default: snapshots)")
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
    print(snapshot.gen_summary(snapshot.gen(args.dir, args.templates)), end="")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    report = args.report
    if report is not None and report.suffix.lower() not in snapshot.REPORT_FORMATS:
        raise UsageError(f"--report: name a file ending in {', '.join(snapshot.REPORT_FORMATS)}; got '{report}'")
    result = snapshot.check(args.dir, args.templates)
    if report is not None:
        write_output(report, [snapshot.document(args.dir, result, report).encode("utf-8")])
    if result.passed:
        print(snapshot.current(result))
        return EXIT_OK
    print(snapshot.format_check(result, color=use_color(args.color)), end="")
    return EXIT_FOUND


def use_color(choice: str) -> bool:
    """`always` and `never` as said; `auto`: stdout is a terminal and NO_COLOR is unset or empty."""
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
