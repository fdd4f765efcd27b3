"""`promptc render`: compile one prompt and print it in a format, or list its sections."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._lib.errors import UsageError
from ..emit import payloads
from .common import EXIT_OK, add_input_flags, compile_pending, emit, records_state, render_output

LIST_FORMATS = ("text", "json")
"""What `--list-sections` can print."""


def configure(parser: argparse.ArgumentParser) -> None:
    """Add render's flags."""
    add_input_flags(parser)
    formats = ", ".join(payloads.FORMATS)
    parser.add_argument(
        "--format",
        choices=list(payloads.FORMATS),
        default="text",
        help=f"output format: {formats} (default: text; with --list-sections: text or json)",
    )
    parser.add_argument(
        "--out", type=Path, metavar="FILE", help="write here (atomically) instead of stdout; - is stdout"
    )
    parser.add_argument(
        "--list-sections",
        action="store_true",
        help="list every section, active or not, why, its source file and the built-in it overrides",
    )
    parser.add_argument(
        "--no-state",
        action="store_true",
        help="a preview: record no workspace or session state (a --list-sections never does)",
    )
    parser.add_argument("--watch", action="store_true", help="re-render on every template, config or workspace change")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile, print, then record state (only once the prompt is out: a failed write must not
    mark a truncation warning as seen; a look or a preview records nothing)."""
    if args.list_sections and args.format not in LIST_FORMATS:
        raise UsageError(f"--format {args.format}: --list-sections prints {' or '.join(LIST_FORMATS)}")
    if args.watch:
        from . import watch

        return watch.run(args)
    prompt, update = compile_pending(args)
    emit(render_output(args, prompt), args.out)
    if records_state(args):
        update.write()
    return EXIT_OK
