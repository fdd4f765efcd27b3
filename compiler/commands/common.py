"""What every command shares: the compile input flags, the request they make, and output; the
exit codes, the raising parser and the error printer from `base` (re-exported).

Command modules import this one; it imports none of them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .. import pipeline
from .._lib import fsutil
from .._lib.errors import ConfigError, RunFactsError, UsageError
from .._lib.fsutil import write_output
from .._lib.lru import LRU
from .._lib.text import replace_surrogates
from ..emit import payloads
from ..inputs import layers, runfacts, yamlsrc
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


def request_from_args(args: argparse.Namespace) -> Request:
    """Build a compile request from parsed flags (`-` inputs read from standard input)."""
    flags = run_fact_flags(args)
    _one_stdin(args)
    paths, stdin_layers = config_sources(args.config)
    return Request(
        run=run_facts(args.run, flags, tuple(args.vars)),
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


def config_sources(paths: list[Path]) -> tuple[tuple[Path, ...], tuple[layers.Layer, ...]]:
    """The `--config` files, and `--config -` as a layer read from standard input. The stdin
    layer applies after the files, so it must be the last `--config`."""
    if not any(str(path) == STDIN for path in paths):
        return tuple(paths), ()
    if str(paths[-1]) != STDIN or sum(str(path) == STDIN for path in paths) > 1:
        raise UsageError("--config -: standard input must be the last --config, and given once")
    text = stdin_text()
    if text not in _STDIN_LAYERS:
        _STDIN_LAYERS[text] = layers.layer_from(yamlsrc.parse(text, "<stdin>", ConfigError), "<stdin>", Path.cwd())
    return tuple(paths[:-1]), (_STDIN_LAYERS[text],)


_STDIN_TEXT: LRU[int, str] = LRU(2)
"""Standard input, read once per stream (a watch loop builds its request on every change)."""
_STDIN_LAYERS: LRU[str, layers.Layer] = LRU(2)


def stdin_text() -> str:
    """All of standard input, read once."""
    key = id(sys.stdin)
    if key not in _STDIN_TEXT:
        _STDIN_TEXT[key] = replace_surrogates(sys.stdin.read())
    return _STDIN_TEXT[key]


_RUN_FILES: LRU[tuple, RunFacts] = LRU(8)
"""Run facts by (file bytes, flags): a process calling `main` every turn parses an unchanged
run file once. Keyed on the content, so an edit is always seen; bounded."""


def run_facts(path: Path | None, flags: dict[str, str | None], var_flags: tuple[str, ...] = ()) -> RunFacts:
    """The `--run` file (read safely; `-` is standard input) with the run-fact flags over it."""
    if path is None:
        return runfacts.load(None, flags, var_flags)
    if str(path) == STDIN:
        return runfacts.load_text(stdin_text(), "<stdin>", flags, var_flags)
    data = fsutil.read_input(path, RunFactsError)
    key = (os.path.abspath(path), data, tuple(sorted(flags.items())), var_flags)
    if key not in _RUN_FILES:
        _RUN_FILES[key] = runfacts.load(path, flags, var_flags)
    return _RUN_FILES[key]


def compile_pending(args: argparse.Namespace) -> tuple[Prompt, pipeline.StateUpdate]:
    """Compile the request the flags describe, through a warm Compiler (see engine.py)."""
    return engine.compile_pending(request_from_args(args))


def now_utc() -> str:
    """The current time for state files (never used in prompt text)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # a third of datetime's cost: every render asks


_CLEAN: list[str] = [""]
"""The last text emit checked for lone surrogates: a warm render printing the same prompt
again (render_output hands back the same string) is not scanned again."""


def emit(text: str, out: Path | None) -> None:
    """Print (`--out -` too), or write to `--out` (atomically for a file, also behind a
    symlink; in place for a device or FIFO). Lone surrogates (an undecodable file name in a
    warning) become U+FFFD, so the output is always valid UTF-8."""
    if text is not _CLEAN[0]:
        text = _CLEAN[0] = replace_surrogates(text)
    if out is None or str(out) == STDIN:
        sys.stdout.write(text)
    else:
        write_output(out, [text.encode("utf-8")])


_RENDERED: list[tuple[Prompt, tuple[bool, str], str]] = []
"""The last prompt render_output formatted (held, so `is` can recognise it), how, and the text."""


def render_output(args: argparse.Namespace, prompt: Prompt) -> str:
    """What `render` (and `render --watch`) prints: the section list (as text or JSON), or the
    prompt in `--format`. A warm Compiler hands back the same Prompt for a repeat turn, and
    then this is the same string as last time."""
    how = (bool(args.list_sections), args.format)
    if _RENDERED and _RENDERED[0][0] is prompt and _RENDERED[0][1] == how:
        return _RENDERED[0][2]
    if args.list_sections:
        from ..emit import context  # the report's module (and the token counter) only for the list

        text = payloads.dumps(context.section_rows(prompt)) if args.format == "json" else context.section_list(prompt)
    else:
        text = payloads.serialise(payloads.FORMATS[args.format](prompt))
    _RENDERED[:] = [(prompt, how, text)]
    return text


def records_state(args: argparse.Namespace) -> bool:
    """Whether this render records workspace and session state once its output is out: a
    section list (a look, not a turn) and `--no-state` (a preview) never do."""
    return not (args.list_sections or args.no_state)
