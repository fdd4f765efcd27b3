"""`promptc bundle`: compile every variant of a matrix into a content-addressed bundle, or check one."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..features import bundle
from ..warm import batch
from .common import EXIT_FOUND, EXIT_OK, add_input_flags, request_from_args


def configure(parser: argparse.ArgumentParser) -> None:
    """Add bundle's own flags, then the input flags `render` has."""
    parser.add_argument(
        "--matrix",
        type=Path,
        required=True,
        metavar="FILE",
        help="YAML lists: agents, sessions, modes, providers, channels, chat_types",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="bundle directory (replaced atomically; not -)"
    )
    parser.add_argument("--check", action="store_true", help="verify the bundle in --out instead of writing it")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=batch.default_jobs(),
        metavar="N",
        help="worker processes (default: the CPU count; a small matrix uses one)",
    )
    add_input_flags(parser)
    parser.set_defaults(handler=_bundle)


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _bundle(args: argparse.Namespace) -> int:
    if str(args.out) == "-":
        raise bundle.BundleError("--out -: a bundle is a directory, it cannot go to standard output")
    request = request_from_args(args)  # its run facts are the base of every variant
    outcome = bundle.run(args.matrix, request, args.out, jobs=args.jobs, check=args.check)
    counts = f"{outcome.variants} variants, {outcome.distinct} distinct stable parts"
    if not args.check:
        print(f"promptc: bundle written to {args.out}: {counts} ({outcome.removed} stale removed)")
        return EXIT_OK
    for problem in outcome.problems:
        print(problem)
    print(f"promptc: bundle {args.out} is {'out of date' if outcome.problems else 'current'} ({counts})")
    return EXIT_FOUND if outcome.problems else EXIT_OK
