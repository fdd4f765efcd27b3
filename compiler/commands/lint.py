"""`promptc lint`: check section templates and the partials they use; every problem is one
`file:line:col: message` line."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..features.lint import config_inputs, lint
from .common import EXIT_FOUND, EXIT_OK, config_sources


def configure(parser: argparse.ArgumentParser) -> None:
    """Add lint's flags."""
    parser.add_argument(
        "--templates",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="user template dir, searched before the built-ins (repeatable)",
    )
    parser.add_argument(
        "--config",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="config file whose prompt.templateDirs and prompt.variables are used too (repeatable; later wins; - reads standard input)",
    )
    parser.set_defaults(handler=_lint)


def _lint(args: argparse.Namespace) -> int:
    dirs, variables = config_inputs(*config_sources(args.config))
    result = lint([*args.templates, *dirs], variables)
    for finding in result.findings:
        print(finding)
    if result.findings:
        count, files = len(result.findings), len({f.path for f in result.findings})
        print(f"promptc lint: {_plural(count, 'problem')} in {_plural(files, 'file')}")
        return EXIT_FOUND
    print(f"promptc lint: clean ({_plural(result.files, 'section')} and {_plural(result.partials, 'partial')} checked)")
    return EXIT_OK


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
