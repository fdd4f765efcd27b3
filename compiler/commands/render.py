"""`promptc render`: compile one prompt and print it in a format, or list its sections."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..emit import payloads
from .common import EXIT_OK, add_input_flags, compile_pending, emit, render_output


def configure(parser: argparse.ArgumentParser) -> None:
    """Add render's flags."""
    add_input_flags(parser)
    parser.add_argument("--format", choices=list(payloads.FORMATS), default="text", help="output format (default: text)")
    parser.add_argument("--out", type=Path, metavar="FILE", help="write here (atomically) instead of stdout")
    parser.add_argument("--list-sections", action="store_true", help="list every section, active or not, and why")
    parser.add_argument("--watch", action="store_true", help="re-render on every template, config or workspace change")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile, print, then record state (only once the prompt is out: a failed write must not
    mark a truncation warning as seen)."""
    if args.watch:
        from . import watch

        return watch.run(args)
    prompt, update = compile_pending(args)
    emit(render_output(args, prompt), args.out)
    update.write()
    return EXIT_OK
