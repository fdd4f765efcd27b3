"""What the front end and every command share, light enough to load before any command does:
exit codes, the argument parser that raises instead of exiting, the one-line error printer.
(`promptc --version`, `--help` and a mistyped command need nothing more.)"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from .._lib.errors import PromptcError, UsageError

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2
"""0 ok; 1 a check found something; 2 bad input or usage."""


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so the front end decides the exit code; it keeps
    its subcommands' parsers, for the CLI reference."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.subcommand_groups: list[Any] = []
        """What `add_subparsers` returned: each group's `choices` maps a subcommand to its parser."""

    def add_subparsers(self, **kwargs: Any) -> Any:
        group = super().add_subparsers(**kwargs)
        self.subcommand_groups.append(group)
        return group

    def subcommands(self) -> dict[str, argparse.ArgumentParser]:
        """Every subcommand's parser by name, in the order they were added."""
        return {name: parser for group in self.subcommand_groups for name, parser in group.choices.items()}

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


MAX_PROBLEMS_SHOWN = 20
"""An error with more problems than this shows the first ones and counts the rest."""


def print_error(exc: PromptcError) -> None:
    """One `promptc: error:` line per problem (at most MAX_PROBLEMS_SHOWN, then a count)."""
    lines = exc.lines()
    shown = lines[:MAX_PROBLEMS_SHOWN]
    if len(lines) > len(shown):
        shown.append(f"and {len(lines) - len(shown)} more problems")
    sys.stderr.write("".join(f"promptc: error: {line}\n" for line in shown))
