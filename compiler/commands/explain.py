"""`promptc config explain KEY`: a config value and the layer (file:line) it came from; `promptc
config show`: the whole resolved config of one agent."""

from __future__ import annotations

import argparse
import sys

from ..emit import payloads
from ..features import configshow
from ..inputs import explain, layers
from .common import EXIT_BAD_INPUT, EXIT_OK, add_config_flags, config_sources


def configure(parser: argparse.ArgumentParser) -> None:
    """Add `config explain`."""
    sub = parser.add_subparsers(title="config commands", parser_class=type(parser))
    parser.set_defaults(handler=lambda args: _group_help(parser))
    command = sub.add_parser("explain", help="show a key's value and where it came from")
    command.add_argument(
        "key",
        help='dotted key; brackets for a part with dots or slashes: agents.defaults.models["openai/gpt-5.5"].alias',
    )
    add_config_flags(command)
    command.add_argument(
        "--agent",
        metavar="ID",
        help="the agent's effective value of an agent setting (agents.defaults.X, or X alone; default: the default agent)",
    )
    command.set_defaults(handler=run)
    shown = sub.add_parser("show", help="show the resolved config of one agent")
    add_config_flags(shown)
    shown.add_argument("--agent", metavar="ID", help="the agent (default: the first agents.list entry, or main)")
    shown.add_argument(
        "--format", choices=configshow.FORMATS, default="yaml", help="output format: yaml or json (default: yaml)"
    )
    shown.add_argument("--origins", action="store_true", help="name the layer (file:line:col) of every value")
    shown.set_defaults(handler=show)


def _group_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


def run(args: argparse.Namespace) -> int:
    """Print the value and its origin (and what was looked up, when the key stands for more)."""
    paths, stdin_layers = config_sources(args.config)
    configs = layers.load(paths, args.overrides, stdin_layers)
    found = explain.explain(configs, args.key, args.agent)
    print(f"{found.key} = {payloads.dumps(found.value).strip()}")
    if found.looked_up != found.key:
        print(f"  as {found.looked_up}")
    print(f"  from {found.origin}")
    return EXIT_OK


def show(args: argparse.Namespace) -> int:
    """Print the resolved config."""
    paths, stdin_layers = config_sources(args.config)
    configs = layers.load(paths, args.overrides, stdin_layers)
    sys.stdout.write(configshow.show(configs, args.agent, args.format, args.origins))
    return EXIT_OK
