"""`promptc config explain KEY`: a config value and the layer (file:line) it came from."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import layers
from ..emit import payloads
from .common import EXIT_BAD_INPUT, EXIT_OK


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `config explain`."""
    sub = parser.add_subparsers(title="config commands", parser_class=type(parser))
    parser.set_defaults(handler=lambda args: _group_help(parser))
    explain = sub.add_parser("explain", help="show a key's value and where it came from")
    explain.add_argument("key")
    explain.add_argument("--config", action="append", type=Path, default=[], metavar="FILE")
    explain.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides")
    explain.add_argument("--agent", help="explain the effective value for this agent")
    explain.set_defaults(handler=run)


def _group_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


def run(args: argparse.Namespace) -> int:
    """Print the value and its origin."""
    configs = layers.load(args.config, args.overrides)
    found = layers.explain(configs, args.key, args.agent)
    print(f"{found.key} = {payloads.dumps(found.value).strip()}")
    print(f"  from {found.origin}")
    return EXIT_OK
