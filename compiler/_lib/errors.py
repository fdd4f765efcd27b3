"""One error type for everything a user can get wrong, each carrying where it happened."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

_BREAKS = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters written as escapes (`\\n`), so
    an error that quotes a user's value is still one line."""
    return _BREAKS.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def did_you_mean(
    word: str,
    choices: Iterable[str],
    otherwise: str = "",
    *,
    cutoff: float = 0.6,
    any_case: bool = False,
    prefix: str = "",
) -> str:
    """` (did you mean 'x'?)` for the choice closest to a misspelt name, else `otherwise`.
    `any_case`: a choice equal but for case counts too. difflib is imported only here, when a
    name is wrong: a cold start does not need it."""
    import difflib

    names = list(choices)
    match = difflib.get_close_matches(word, names, n=1, cutoff=cutoff)
    if not match and any_case:
        match = [name for name in names if name.lower() == word.lower()]
    return f" (did you mean '{prefix}{match[0]}'?)" if match else otherwise


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a user's file; any part may be unknown."""

    path: str | None = None
    """The file, as the user named it (or as we found it)."""
    line: int | None = None
    """1-based line number."""
    column: int | None = None
    """1-based column number."""

    def __str__(self) -> str:
        parts = [self.path or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            parts.append(str(self.column if self.column is not None else 1))
        return one_line(":".join(parts))


class PromptcError(Exception):
    """Bad input or usage. The CLI prints `promptc: error: <location>: <message>` and exits 2.

    An error can carry `more` problems found in the same pass (every metadata problem of every
    section file, every problem of a config file): the CLI prints one line per problem, and
    `str()` stays one line, naming the first and counting the rest.
    """

    def __init__(self, message: str, location: Location | None = None, more: Sequence[PromptcError] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.more = tuple(more)

    def __reduce__(self) -> tuple:
        # Pickled with its location and the problems it gathered (a worker process sends errors back).
        return (type(self), (self.message, self.location, self.more))

    def __str__(self) -> str:
        extra = f" (and {len(self.more)} more {'problem' if len(self.more) == 1 else 'problems'})" if self.more else ""
        return self.line() + extra

    def line(self) -> str:
        """This problem alone, on one line: `<location>: <message>`."""
        if self.location is None:
            return one_line(self.message)
        return f"{self.location}: {one_line(self.message)}"

    def lines(self) -> list[str]:
        """One line per problem, this one first."""
        return [self.line(), *(problem.line() for problem in self.more)]

    @classmethod
    def gathered(cls, problems: Sequence[PromptcError]) -> PromptcError:
        """One error of this kind holding every problem (the first is its own message)."""
        first, *rest = problems
        return cls(first.message, first.location, rest)


class ConfigError(PromptcError):
    """A config file or `--set` override is malformed, unknown or out of range."""


class RunFactsError(PromptcError):
    """The per-turn run facts are malformed."""


class TemplateError(PromptcError):
    """A section template has bad metadata, bad syntax or reads a variable it may not."""


class WorkspaceError(PromptcError):
    """The workspace cannot be used at all (missing directory, unreadable state file)."""


class HookError(PromptcError):
    """A bootstrap hook failed; the message names the hook."""


class TranscriptError(PromptcError):
    """A session transcript cannot be read or repaired."""


class UsageError(PromptcError):
    """The command line itself is wrong."""
