"""`promptc schema NAME`: print the JSON Schema of one of promptc's input files."""

from __future__ import annotations

import argparse
import sys

from ..features import schemas
from .base import EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the schema name."""
    parser.add_argument(
        "name",
        choices=list(schemas.SCHEMAS),
        help=", ".join(f"{name} ({schema.what})" for name, schema in schemas.SCHEMAS.items()),
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema as JSON."""
    sys.stdout.write(schemas.text(args.name))
    return EXIT_OK
