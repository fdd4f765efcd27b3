"""`promptc report`: the prompt map, one self-contained HTML page of where the prompt's tokens go."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..emit import context
from ..features.report import mappage
from ..warm import compiler as engine
from .common import EXIT_OK, add_input_flags, emit, request_from_args


def configure(parser: argparse.ArgumentParser) -> None:
    """Add report's flags: the render inputs and where the page goes."""
    add_input_flags(parser)
    parser.add_argument(
        "--out", type=Path, metavar="FILE", required=True, help="write the HTML page here (atomically); - is stdout"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Compile and write the page. A look, not a turn: no workspace or session state is recorded."""
    request = request_from_args(args)
    prompt, _ = engine.compile_pending(request)
    emit(mappage.page(prompt, context.read_from(request, prompt)), args.out)
    return EXIT_OK
