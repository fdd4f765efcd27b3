"""What every command shares: the compile input flags, the request they make, and output; the
exit codes, the raising parser and the error printer from `base` (re-exported).

Command modules import this one; it imports none of them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .. import pipeline
from .._lib.atomic import write_output
from .._lib.errors import ConfigError, UsageError
from .._lib.text import replace_surrogates
from ..emit import payloads
from ..inputs import layers, runfacts, yamlsrc
from ..model.config import Layer
from ..model.facts import Declared
from ..model.prompt import Prompt
from ..model.request import Request
from ..model.runfacts import FACTS, RunFacts
from ..warm import compiler as engine
from .base import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, Parser, print_error  # noqa: F401 - shared by the commands

RUN_FACT_FLAGS: tuple[Declared, ...] = tuple(d for d in FACTS if d.fact.flag is not None)
"""Run facts that can be given as flags, overriding the `--run` file (their declarations say which)."""
STDIN = "-"
"""`--config -` and `--run -` read standard input; `--out -` writes standard output."""


def add_input_flags(parser: argparse.ArgumentParser) -> None:
    """Flags that describe one compile: config, run facts, workspace, templates."""
    group = parser.add_argument_group("inputs")
    add_config_flags(group)
    group.add_argument("--run", type=Path, metavar="FILE", help="run facts (YAML or JSON; - reads standard input)")
    group.add_argument(
        "--var",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        dest="vars",
        help="a user variable's value for this turn, as text (repeatable; wins over the run file and config)",
    )
    group.add_argument("--workspace", type=Path, metavar="DIR", help="workspace to read (default: the config's)")
    group.add_argument(
        "--templates",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="user template dir, searched before prompt.templateDirs and the built-ins (repeatable)",
    )
    group.add_argument(
        "--contributions",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="provider contribution file (repeatable)",
    )
    group.add_argument("--session-state", type=Path, metavar="FILE", help="session state for the 'once' warning mode")
    facts = parser.add_argument_group("run-fact overrides (win over the --run file)")
    for declared in RUN_FACT_FLAGS:
        choices, summary = declared.choices, declared.fact.flag
        metavar = "{" + ",".join(choices) + "}" if choices else declared.name.upper()
        shown = f"{summary}: one of {', '.join(choices)}" if choices else summary
        facts.add_argument(runfacts.flag_name(declared.name), metavar=metavar, help=shown, dest=declared.name)


def add_config_flags(group: argparse._ActionsContainer) -> None:
    """`--config` and `--set`, shared with `config explain`."""
    group.add_argument(
        "--config",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="config file (repeatable, later wins; - reads standard input, last)",
    )
    group.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override one config key; the value is read as YAML (repeatable)",
    )


class Stdin:
    """Standard input, read whole the first time it is asked for (`--config -` or `--run -`). One
    command reads it once; `render --watch` keeps one across its re-renders."""

    def __init__(self) -> None:
        self._text: str | None = None

    def text(self) -> str:
        if self._text is None:
            self._text = replace_surrogates(sys.stdin.read())
        return self._text


def request_from_args(args: argparse.Namespace, stdin: Stdin | None = None) -> Request:
    """Build a compile request from parsed flags (`-` inputs read from standard input)."""
    stdin = stdin or Stdin()
    _one_stdin(args)
    paths, stdin_layers = config_sources(args.config, stdin)
    return Request(
        run=run_facts(args.run, run_fact_flags(args), tuple(args.vars), stdin),
        config_paths=paths,
        config_layers=stdin_layers,
        overrides=tuple(args.overrides),
        workspace=args.workspace,
        template_dirs=tuple(args.templates),
        contribution_paths=tuple(args.contributions),
        session_state=args.session_state,
        now=now_utc(),
    )


def run_fact_flags(args: argparse.Namespace) -> dict[str, str | None]:
    """The run-fact flags as given (None: not given), by fact name."""
    return {declared.name: getattr(args, declared.name) for declared in RUN_FACT_FLAGS}


def _one_stdin(args: argparse.Namespace) -> None:
    if str(args.run) == STDIN and any(str(path) == STDIN for path in args.config):
        raise UsageError("standard input can be read once: give --config - or --run -, not both")


def config_sources(paths: list[Path], stdin: Stdin | None = None) -> tuple[tuple[Path, ...], tuple[Layer, ...]]:
    """The `--config` files, and `--config -` as a layer read from standard input. The stdin
    layer applies after the files, so it must be the last `--config`."""
    if not any(str(path) == STDIN for path in paths):
        return tuple(paths), ()
    if str(paths[-1]) != STDIN or sum(str(path) == STDIN for path in paths) > 1:
        raise UsageError("--config -: standard input must be the last --config, and given once")
    text = (stdin or Stdin()).text()
    layer = layers.layer_from(yamlsrc.parse(text, "<stdin>", ConfigError), "<stdin>", Path.cwd())
    return tuple(paths[:-1]), (layer,)


def run_facts(
    path: Path | None, flags: dict[str, str | None], var_flags: tuple[str, ...] = (), stdin: Stdin | None = None
) -> RunFacts:
    """The `--run` file (`-` is standard input) with the run-fact flags over it."""
    if path is not None and str(path) == STDIN:
        return runfacts.load_text((stdin or Stdin()).text(), "<stdin>", flags, var_flags)
    return runfacts.load(path, flags, var_flags)


def compile_pending(args: argparse.Namespace) -> tuple[Prompt, pipeline.StateUpdate]:
    """Compile the request the flags describe, through a warm Compiler (`promptc.compile_prompt`'s cache)."""
    return engine.compile_pending(request_from_args(args))


def now_utc() -> str:
    """The current time for state files (never used in prompt text)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def emit(text: str, out: Path | None) -> None:
    """Print (`--out -` too), or write to `--out` (atomically for a file, also behind a
    symlink; in place for a device or FIFO). Lone surrogates (an undecodable file name in a
    warning) become U+FFFD, so the output is always valid UTF-8."""
    text = replace_surrogates(text)
    if out is None or str(out) == STDIN:
        sys.stdout.write(text)
    else:
        write_output(out, [text.encode("utf-8")])


def render_output(args: argparse.Namespace, prompt: Prompt) -> str:
    """What `render` (and `render --watch`) prints: the section list (as text or JSON), or the
    prompt in `--format`."""
    if args.list_sections:
        from ..emit import context  # the report's module (and the token counter) only for the list

        return payloads.dumps(context.section_rows(prompt)) if args.format == "json" else context.section_list(prompt)
    if args.ping:
        return payloads.dumps(payloads.keep_warm_ping(prompt, args.format))
    return payloads.serialise(payloads.FORMATS[args.format](prompt))


def records_state(args: argparse.Namespace) -> bool:
    """Whether this render records workspace and session state once its output is out: a
    section list (a look, not a turn), a keep-warm ping and `--no-state` (a preview) never do."""
    return not (args.list_sections or args.no_state or args.ping)
