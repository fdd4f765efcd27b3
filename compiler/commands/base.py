"""What the front end and every command share, light enough to load before any command does:
exit codes, the argument parser that raises instead of exiting, the one-line error printer.
(`promptc --version`, `--help` and a mistyped command need nothing more.)"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from .._lib.errors import PromptcError, UsageError

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2
"""0 ok; 1 a check found something; 2 bad input or usage."""


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so the front end decides the exit code."""

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
