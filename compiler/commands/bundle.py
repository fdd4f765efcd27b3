"""`promptc bundle`: compile every variant of a matrix into a content-addressed bundle (or one shard
of it), check one, or merge shards."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._lib.errors import UsageError
from .._lib.text import plural
from ..features import bundle
from ..warm import batch
from .common import EXIT_FOUND, EXIT_OK, add_input_flags, request_from_args


def configure(parser: argparse.ArgumentParser) -> None:
    """Add bundle's own flags, then the input flags `render` has; `merge` combines shards."""
    parser.add_argument(
        "--matrix",
        type=Path,
        metavar="FILE",
        help=f"YAML lists: {', '.join(key for key, _ in bundle.AXES)}; {bundle.LIMIT_KEY} (default"
        f" {bundle.MAX_VARIANTS:,}) caps the variants",
    )
    _out_flag(parser, required=False)  # required, but `merge` has its own
    parser.add_argument("--check", action="store_true", help="verify the bundle in --out instead of writing it")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=batch.default_jobs(),
        metavar="N",
        help="worker processes (default: the CPU count; a small matrix uses one)",
    )
    parser.add_argument(
        "--shard", type=_shard, metavar="I/N", help="build only the I-th of N slices of the matrix (see merge)"
    )
    add_input_flags(parser)
    parser.set_defaults(handler=_bundle)
    sub = parser.add_subparsers(title="bundle commands", parser_class=type(parser))
    merge = sub.add_parser("merge", help="combine the shard directories `--shard` wrote into one bundle")
    merge.add_argument("shards", nargs="+", type=Path, metavar="DIR", help="every shard directory, 1/N to N/N")
    _out_flag(merge, required=True)
    merge.set_defaults(handler=_merge)


def _out_flag(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument(
        "--out", type=Path, required=required, metavar="DIR", help="bundle directory (replaced atomically; not -)"
    )


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return int(text)


def _shard(text: str) -> bundle.Shard:
    try:
        return bundle.shards.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _checked_out(out: Path) -> None:
    if str(out) == "-":
        raise bundle.BundleError("--out -: a bundle is a directory, it cannot go to standard output")


def _bundle(args: argparse.Namespace) -> int:
    missing = [flag for flag, value in (("--matrix", args.matrix), ("--out", args.out)) if value is None]
    if missing:
        raise UsageError(
            f"the following arguments are required: {', '.join(missing)} (or: promptc bundle merge DIR... --out DIR)"
        )
    _checked_out(args.out)
    request = request_from_args(args)  # its run facts are the base of every variant
    planned = bundle.plan(args.matrix, request, args.shard)
    workers = batch.workers_for(len(planned.selected), args.jobs)
    where = f"shard {args.shard}: {len(planned.selected):,} of " if args.shard else ""
    processes = f"{workers} worker processes" if workers > 1 else "one process"
    print(
        f"promptc: bundle: {where}{plural(planned.matrix.count, 'variant')} ({planned.matrix.describe()}), {processes}"
    )
    outcome = bundle.run(planned, request, args.out, jobs=args.jobs, check=args.check)
    counts = f"{plural(outcome.variants, 'variant')}, {plural(outcome.distinct, 'distinct stable part')}"
    what = f"shard {args.shard}" if args.shard else "bundle"
    if not args.check:
        print(f"promptc: {what} written to {args.out}: {counts} ({outcome.removed} stale removed)")
        return EXIT_OK
    for problem in outcome.problems:
        print(problem)
    print(f"promptc: {what} {args.out} is {'out of date' if outcome.problems else 'current'} ({counts})")
    return EXIT_FOUND if outcome.problems else EXIT_OK


def _merge(args: argparse.Namespace) -> int:
    _checked_out(args.out)
    outcome = bundle.merge(args.shards, args.out)
    counts = f"{plural(outcome.variants, 'variant')}, {plural(outcome.distinct, 'distinct stable part')}"
    print(
        f"promptc: bundle written to {args.out}: {counts}, from {plural(len(args.shards), 'shard')} ({outcome.removed} stale removed)"
    )
    return EXIT_OK
