"""`promptc bundle`: compile every variant of a matrix into a content-addressed bundle, or check one."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..features.bundle import BundleError, build, load_matrix, verify, write
from ..warm import batch
from .common import (
    EXIT_FOUND,
    EXIT_OK,
    add_input_flags,
    request_from_args,
)


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
        raise BundleError("--out -: a bundle is a directory, it cannot go to standard output")
    request = request_from_args(args)  # its run facts are the base of every variant
    variants = load_matrix(args.matrix, request.run)
    built = build(variants, request, args.jobs)
    counts = f"{len(variants)} variants, {len(built.stable)} distinct stable parts"
    if args.check:
        problems = verify(built, args.out)
        for problem in problems:
            print(problem)
        print(f"promptc: bundle {args.out} is {'out of date' if problems else 'current'} ({counts})")
        return EXIT_FOUND if problems else EXIT_OK
    removed = write(built, args.out)
    print(f"promptc: bundle written to {args.out}: {counts} ({removed} stale removed)")
    return EXIT_OK
