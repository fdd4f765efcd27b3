"""The `promptc` front end: the only place that prints errors and picks exit codes.

Each command lives in its own module, imported only when that command runs, so starting
`promptc render` never loads the transcript, lint or snapshot code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .._lib.errors import PromptcError, UsageError, did_you_mean
from .base import EXIT_BAD_INPUT, EXIT_OK, Parser, print_error

COMMANDS: dict[str, tuple[str, str]] = {
    "render": ("render", "compile the prompt"),
    "context": ("context", "report what goes into the prompt and how big it is"),
    "report": ("report", "write the prompt map: an HTML page of where the prompt's tokens go"),
    "config": ("explain", "inspect resolved config"),
    "init": ("init", "seed a new workspace with default files"),
    "lint": ("lint", "check section templates: metadata, variables, reachability"),
    "templates": ("templates", "list the built-in sections; copy one out to edit"),
    "snapshot": ("snapshot", "generate or check the committed prompt snapshots"),
    "bundle": ("bundle", "compile every variant of a matrix into a content-addressed bundle"),
    "cache": ("cache", "simulate provider prompt caches over a session trace; say why a cache tier changed"),
    "transcript": ("transcript", "repair or sanitise stored session transcripts"),
    "schema": ("schema", "print the JSON Schema of a file promptc reads, for editors"),
}
"""Command name -> (module in this package, one-line help), in the order `--help` lists them."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (never calls sys.exit)."""
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(words)
    except PromptcError as exc:
        print_error(exc)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help exits through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise
    except Exception as exc:  # a bug of ours: still one line, unless asked for the traceback
        if os.environ.get("PROMPTC_DEBUG"):
            raise
        print(
            f"promptc: error: internal error ({type(exc).__name__}: {exc}); set PROMPTC_DEBUG=1 for details",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT


def main_exit() -> None:
    """Console-script entry point: UTF-8 output whatever the locale, quiet on a closed pipe."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="backslashreplace")
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`promptc render | head`): not our error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_OK
    sys.exit(code)


def _dispatch(words: list[str]) -> int:
    if not words or words[0] in ("-h", "--help"):
        top_parser().print_help(sys.stdout if words else sys.stderr)
        return EXIT_OK if words else EXIT_BAD_INPUT
    if words[0] == "--version":
        from .._lib.resources import version

        print(f"promptc {version()}")
        return EXIT_OK
    args = _parsed(_command_name(words[0]), tuple(words[1:]))
    if not hasattr(args, "handler"):
        raise UsageError(f"choose a {words[0]} command")
    code: int = args.handler(args)
    return code


def _command_name(word: str) -> str:
    if word in COMMANDS:
        return word
    if word.startswith("-"):
        raise UsageError(f"unknown option {word!r} (options go after the command: promptc COMMAND --help)")
    hint = did_you_mean(word, COMMANDS, f" (commands: {', '.join(COMMANDS)})")
    raise UsageError(f"unknown command {word!r}{hint}")


def top_parser() -> argparse.ArgumentParser:
    """The command list for `promptc --help` (the commands' own flags are not built for it)."""
    parser = Parser(prog="promptc", description="Compile agent system prompts from section templates.")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        commands.add_parser(name, help=summary)
    return parser


def _parsed(name: str, words: tuple[str, ...]) -> argparse.Namespace:
    return command_parser(name).parse_args(words)


def command_parser(name: str) -> argparse.ArgumentParser:
    """One command's parser (its module is imported only now, when the command runs)."""
    module_name, summary = COMMANDS[name]
    parser = Parser(prog=f"promptc {name}", description=summary)
    importlib.import_module(f"{__package__}.{module_name}").configure(parser)
    return parser


def command_parsers() -> list[argparse.ArgumentParser]:
    """Every command's parser, in the order `--help` lists them, for the command reference (each
    command's module is imported)."""
    return [command_parser(name) for name in COMMANDS]
