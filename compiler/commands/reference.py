"""The generated files of the documentation: the reference pages and schemas the features make
(features/reference), and the command reference, made here from the parsers: `promptc --help` and
every command's and subcommand's own help, as argparse prints it, at a fixed width so the page does
not depend on the terminal. `docs/gen.py` writes them; a test fails when the committed ones are stale."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..features import reference
from ..features.reference.markdown import NOTICE
from .base import Parser

WIDTH = 100
"""The help's width in columns."""

INTRO = """# Commands

Every command with its flags, as `promptc COMMAND --help` prints it. Exit codes: 0 ok, 1 a check
found something (snapshot drift, lint findings, a bundle out of date), 2 bad input or usage. An
error is one line, `promptc: error: <file>:<line>:<col>: <what>`, and nothing is written.
"""


CLI_PAGE = "reference/cli.md"


def generated(top: argparse.ArgumentParser, commands: Sequence[argparse.ArgumentParser]) -> dict[str, str]:
    """Every generated file's text, by its path under docs/. The parsers are the front end's
    (`cli.top_parser()`, `cli.command_parsers()`): only the front end knows every command."""
    return {**reference.generated(), CLI_PAGE: page(top, commands)}


def page(top: argparse.ArgumentParser, commands: Sequence[argparse.ArgumentParser]) -> str:
    """The command reference page: the command list, then each command's help and its subcommands'."""
    with _width(WIDTH):
        parts = [NOTICE, INTRO, _block(top)]
        for parser in commands:
            parts += [_block(each) for each in _with_subcommands(parser)]
    return "".join(parts)


def _with_subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    if isinstance(parser, Parser):
        for sub in parser.subcommands().values():
            found += _with_subcommands(sub)
    return found


def _block(parser: argparse.ArgumentParser) -> str:
    """A command's help under a heading: `##` for a command, `###` for a subcommand."""
    heading = "#" * (2 + max(0, parser.prog.count(" ") - 1))
    return f"\n{heading} `{parser.prog}`\n\n```text\n{parser.format_help().rstrip()}\n```\n"


@contextmanager
def _width(columns: int) -> Iterator[None]:
    """argparse wraps help to the terminal's width, which it reads from COLUMNS."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(columns)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
