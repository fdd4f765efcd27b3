"""`promptc render`: compile one prompt and print it in a format, or list its sections; then a short
summary of its warnings on standard error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._lib.errors import UsageError
from .._lib.text import replace_surrogates
from ..emit import payloads
from ..model.prompt import Prompt
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
    parser.add_argument(
        "--quiet", action="store_true", help="print no warnings summary on standard error (the output is the same)"
    )
    parser.add_argument("--watch", action="store_true", help="re-render on every template, config or workspace change")
    parser.add_argument(
        "--ping",
        action="store_true",
        help="print this prompt's keep-warm ping request instead (--format anthropic or bedrock; records no state)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile, print, record state (only once the prompt is out: a failed write must not mark a
    truncation warning as seen; a look or a preview records nothing), then summarise the
    warnings on standard error unless `--quiet`: they never change the output or the exit code."""
    if args.list_sections and args.format not in LIST_FORMATS:
        raise UsageError(f"--format {args.format}: --list-sections prints {' or '.join(LIST_FORMATS)}")
    if args.ping and (args.list_sections or args.watch):
        raise UsageError(
            f"--ping prints one request: not with {'--list-sections' if args.list_sections else '--watch'}"
        )
    if args.ping and args.format not in payloads.PING_PROVIDERS:
        raise UsageError(f"--ping: a keep-warm ping is a request in --format {' or '.join(payloads.PING_PROVIDERS)}")
    if args.watch:
        from . import watch

        return watch.run(args)
    prompt, update = compile_pending(args)
    emit(render_output(args, prompt), args.out)
    if records_state(args):
        update.write()
    if not args.quiet:
        _warn(prompt)
    return EXIT_OK


def _warn(prompt: Prompt) -> None:
    """The warnings summary on standard error (after the output, so a reader of both sees it last)."""
    if prompt.warnings or prompt.skills.note:
        from ..features.report import summary  # its code only when there is something to say

        sys.stdout.flush()
        sys.stderr.write(replace_surrogates(summary.text(prompt)))
