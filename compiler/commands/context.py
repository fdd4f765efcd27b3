"""`promptc context`: what goes into the prompt, file by file and section by section."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..emit import context, payloads
from ..warm import compiler as engine
from .common import EXIT_OK, add_input_flags, emit, request_from_args


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
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the prompt map, one self-contained HTML page, here"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile and print the report. A look, not a turn: no workspace or session state is
    recorded, so a second look shows what the first did (a `once` notice included)."""
    request = request_from_args(args)
    prompt, _ = engine.compile_pending(request)
    read = context.read_from(request, prompt)
    if args.format == "json":
        emit(payloads.dumps(context.report(prompt)), args.out)
    else:
        emit(context.format_text(prompt, detail=args.detail, read=read), args.out)
    if args.html is not None:
        from ..features.report import mappage  # the page's code only when a page is asked for

        emit(mappage.page(prompt, read), args.html)
    return EXIT_OK
