"""`promptc render --watch`: print the prompt again after every change to its inputs, each later
render after a rule line naming the time and what changed, and say on stderr what the change did
to the stable part."""

from __future__ import annotations

import argparse
import sys
import threading
import time

from .._lib.errors import PromptcError
from ..features import watch
from ..model.prompt import Prompt
from ..pipeline import StateUpdate
from .common import STDIN, Stdin, emit, print_error, records_state, render_output, request_from_args


def run(
    args: argparse.Namespace,
    *,
    stop_after: int | None = None,
    timeout: float | None = None,
    ready: threading.Event | None = None,
) -> int:
    """Watch what the flags name (standard input is read once, for every render)."""
    stdin = Stdin()
    printer = _Printer(args)
    return watch.run(
        lambda: request_from_args(args, stdin),
        named(args),
        printer.show,
        printer.refuse,
        stop_after=stop_after,
        timeout=timeout,
        ready=ready,
    )


def named(args: argparse.Namespace) -> watch.Named:
    """What the flags name for the watcher."""
    given = (*args.config, *([args.run] if args.run else []), *args.contributions)
    written = (args.out, args.session_state)
    return watch.Named(
        templates=tuple(args.templates),
        files=tuple(path for path in given if str(path) != STDIN),
        workspace=args.workspace,
        written=tuple(path for path in written if path is not None and str(path) != STDIN),
    )


class _Printer:
    """Prints each render: from the second on, after a rule line when it goes to stdout."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.printed = 0

    def show(self, previous: Prompt | None, prompt: Prompt, update: StateUpdate, changed: list[str]) -> None:
        to_stdout = self.args.out is None or str(self.args.out) == STDIN
        if self.printed and to_stdout:
            sys.stdout.write(watch.rule_line(time.strftime("%H:%M:%S"), changed))
        emit(render_output(self.args, prompt), self.args.out)
        self.printed += 1
        sys.stdout.flush()
        if records_state(self.args):
            update.write()
        trigger = f"{', '.join(changed)} changed; " if changed else ""
        print(f"promptc: {trigger}{watch.stable_summary(previous, prompt)}", file=sys.stderr, flush=True)

    def refuse(self, error: PromptcError) -> None:
        print_error(error)
        sys.stderr.flush()
