"""What every command shares: exit codes, the argparse subclass, the compile input flags and output.

Command modules import this one; it imports none of them.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import NoReturn

from .. import engine, fsutil, pipeline
from ..config import runfacts
from ..emit import context, payloads
from ..errors import RunFactsError, UsageError
from ..freshness import LRU
from ..fsutil import write_output
from ..model import Prompt, RunFacts
from ..sections.text import replace_surrogates

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2
"""0 ok; 1 a check found something; 2 bad input or usage (SPEC 10)."""

RUN_FACT_FLAGS = ("agent", "session", "mode", "harness", "channel", "chat-type", "model")
"""Run facts that can be given as flags, overriding the `--run` file."""


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so the front end decides the exit code."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def add_input_flags(parser: argparse.ArgumentParser) -> None:
    """Flags that describe one compile: config, run facts, workspace, templates."""
    group = parser.add_argument_group("inputs")
    group.add_argument("--config", action="append", type=Path, default=[], metavar="FILE", help="config file (repeatable, later wins)")
    group.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides", help="override one config key")
    group.add_argument("--run", type=Path, metavar="FILE", help="run facts (YAML or JSON)")
    group.add_argument("--workspace", type=Path, metavar="DIR", help="workspace to read (default: the config's)")
    group.add_argument("--templates", action="append", type=Path, default=[], metavar="DIR", help="user template dir (repeatable)")
    group.add_argument("--contributions", action="append", type=Path, default=[], metavar="FILE", help="provider contribution file")
    group.add_argument("--session-state", type=Path, metavar="FILE", help="session state for the 'once' warning mode")
    facts = parser.add_argument_group("run-fact overrides")
    for flag in RUN_FACT_FLAGS:
        facts.add_argument(f"--{flag}", metavar=flag.upper().replace("-", "_"))


def request_from_args(args: argparse.Namespace) -> pipeline.Request:
    """Build a compile request from parsed flags."""
    flags = {flag.replace("-", "_"): getattr(args, flag.replace("-", "_")) for flag in RUN_FACT_FLAGS}
    return pipeline.Request(
        run=run_facts(args.run, flags),
        config_paths=tuple(args.config),
        overrides=tuple(args.overrides),
        workspace=args.workspace,
        template_dirs=tuple(args.templates),
        contribution_paths=tuple(args.contributions),
        session_state=args.session_state,
        now=now_utc(),
    )


_RUN_FILES: LRU[tuple, RunFacts] = LRU(8)
"""Run facts by (file bytes, flags): a process calling `main` every turn parses an unchanged
run file once. Keyed on the content, so an edit is always seen; bounded."""


def run_facts(path: Path | None, flags: dict[str, str | None]) -> RunFacts:
    """The `--run` file (read safely) with the run-fact flags over it."""
    if path is None:
        return runfacts.load(None, flags)
    data = fsutil.read_input(path, RunFactsError)
    key = (os.path.abspath(path), data, tuple(sorted(flags.items())))
    if key not in _RUN_FILES:
        _RUN_FILES[key] = runfacts.load(path, flags)
    return _RUN_FILES[key]


def compile_pending(args: argparse.Namespace) -> tuple[Prompt, pipeline.StateUpdate]:
    """Compile the request the flags describe, through a warm Compiler (see engine.py)."""
    return engine.compile_pending(request_from_args(args))


def now_utc() -> str:
    """The current time for state files (never used in prompt text)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def emit(text: str, out: Path | None) -> None:
    """Print, or write to `--out` (atomically for a file, also behind a symlink; in place for a
    device or FIFO). Lone surrogates (an undecodable file name in a warning) become U+FFFD, so
    the output is always valid UTF-8."""
    text = replace_surrogates(text)
    if out is None:
        sys.stdout.write(text)
    else:
        write_output(out, [text.encode("utf-8")])


def render_output(args: argparse.Namespace, prompt: Prompt) -> str:
    """What `render` (and `render --watch`) prints: the section list, or the prompt in `--format`."""
    if args.list_sections:
        return context.section_list(prompt)
    return payloads.serialise(payloads.FORMATS[args.format](prompt))
