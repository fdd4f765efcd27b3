"""`promptc context`: what goes into the prompt, file by file and section by section."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..emit import context, payloads
from .common import EXIT_OK, add_input_flags, compile_pending, emit


def configure(parser: argparse.ArgumentParser) -> None:
    """Add context's flags."""
    add_input_flags(parser)
    parser.add_argument("--detail", action="store_true", help="per-section and per-skill detail")
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format: text or json (default: text)"
    )
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="write here (atomically) instead of stdout; - is stdout"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile and print the report. A look, not a turn: no workspace or session state is
    recorded, so a second look shows what the first did (a `once` notice included)."""
    prompt, _ = compile_pending(args)
    if args.format == "json":
        emit(payloads.dumps(context.report(prompt)), args.out)
    else:
        emit(context.format_text(prompt, detail=args.detail), args.out)
    return EXIT_OK
