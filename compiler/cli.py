"""The `promptc` command line: the only place that prints and picks exit codes.

Exit codes: 0 ok; 1 a check found something; 2 bad input or usage (SPEC 10).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from . import config, pipeline, runfacts, workspace
from .emit import payloads
from .errors import PromptcError, UsageError
from .fsutil import write_text_atomic

EXIT_OK, EXIT_FOUND, EXIT_BAD_INPUT = 0, 1, 2
EXTRA_COMMANDS: list = []
"""Registrars of commands that live in their own modules (filled at the bottom of this file)."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() decides the exit code."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit code (never calls sys.exit)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        if not hasattr(args, "handler"):
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        return args.handler(args)
    except PromptcError as exc:
        print(f"promptc: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help and --version exit through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        raise
    except Exception as exc:  # a bug of ours: still one line, unless asked for the traceback
        if os.environ.get("PROMPTC_DEBUG"):
            raise
        print(f"promptc: error: internal error ({type(exc).__name__}: {exc}); set PROMPTC_DEBUG=1 for details", file=sys.stderr)
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


def build_parser() -> argparse.ArgumentParser:
    """The whole command tree."""
    parser = _Parser(prog="promptc", description="Compile agent system prompts from section templates.")
    commands = parser.add_subparsers(title="commands", parser_class=_Parser)
    _add_render(commands)
    _add_context(commands)
    _add_config(commands)
    _add_init(commands)
    for register in EXTRA_COMMANDS:
        register(commands)
    return parser


# --------------------------------------------------------------------------- shared input flags


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
    for flag in ("agent", "session", "mode", "harness", "channel", "chat-type", "model"):
        facts.add_argument(f"--{flag}", metavar=flag.upper().replace("-", "_"))


def request_from_args(args: argparse.Namespace) -> pipeline.Request:
    """Build a compile request from parsed flags."""
    flags = {key: getattr(args, key) for key in ("agent", "session", "mode", "harness", "channel", "chat_type", "model")}
    return pipeline.Request(
        run=runfacts.load(args.run, flags),
        config_paths=tuple(args.config),
        overrides=tuple(args.overrides),
        workspace=args.workspace,
        template_dirs=tuple(args.templates),
        contribution_paths=tuple(args.contributions),
        session_state=args.session_state,
        now=now_utc(),
    )


def now_utc() -> str:
    """The current time for state files (never used in prompt text)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def emit(text: str, out: Path | None) -> None:
    """Print, or write atomically to `--out`."""
    if out is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(out, text)


# --------------------------------------------------------------------------- render


def _add_render(commands: Any) -> None:
    parser = commands.add_parser("render", help="compile the prompt")
    add_input_flags(parser)
    parser.add_argument("--format", choices=sorted(payloads.FORMATS), default="text")
    parser.add_argument("--out", type=Path, metavar="FILE", help="write here (atomically) instead of stdout")
    parser.add_argument("--list-sections", action="store_true", help="list every section, active or not, and why")
    parser.add_argument("--watch", action="store_true", help="re-render on every template, config or workspace change")
    parser.set_defaults(handler=_render)


def _render(args: argparse.Namespace) -> int:
    if args.watch:
        from . import watch

        return watch.run(args)
    prompt, update = pipeline.compile_pending(request_from_args(args))
    if args.list_sections:
        emit(format_section_list(prompt), args.out)
    else:
        emit(payloads.FORMATS[args.format](prompt), args.out)
    update.write()  # only once the prompt is out: a failed write must not mark a warning as seen
    return EXIT_OK


def format_section_list(prompt: Any) -> str:
    """One line per section in catalogue order: rendered or omitted, and why."""
    chars = {s.id: f"{s.side}, {len(s.text)} chars" for s in prompt.sections}
    width = max(len(section_id) for section_id, _, _ in prompt.outline)
    lines = []
    for section_id, rendered, why in prompt.outline:
        state = "active" if rendered else "inactive"
        detail = f"{why}; {chars[section_id]}" if rendered else why
        lines.append(f"{section_id:<{width}}  {state:<8}  {detail}\n")
    return "".join(lines)


# --------------------------------------------------------------------------- context


def _add_context(commands: Any) -> None:
    parser = commands.add_parser("context", help="report what goes into the prompt and how big it is")
    add_input_flags(parser)
    parser.add_argument("--detail", action="store_true", help="per-section and per-skill detail")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--out", type=Path, metavar="FILE")
    parser.set_defaults(handler=_context)


def _context(args: argparse.Namespace) -> int:
    from .emit import context

    prompt, update = pipeline.compile_pending(request_from_args(args))
    if args.format == "json":
        emit(payloads.dumps(context.report(prompt)), args.out)
    else:
        emit(context.format_text(prompt, detail=args.detail), args.out)
    update.write()
    return EXIT_OK


# --------------------------------------------------------------------------- config


def _add_config(commands: Any) -> None:
    parser = commands.add_parser("config", help="inspect resolved config")
    sub = parser.add_subparsers(title="config commands", parser_class=_Parser)
    parser.set_defaults(handler=lambda args: _group_help(parser))
    explain = sub.add_parser("explain", help="show a key's value and where it came from")
    explain.add_argument("key")
    explain.add_argument("--config", action="append", type=Path, default=[], metavar="FILE")
    explain.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="overrides")
    explain.add_argument("--agent", help="explain the effective value for this agent")
    explain.set_defaults(handler=_explain)


def _group_help(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_BAD_INPUT


def _explain(args: argparse.Namespace) -> int:
    configs = config.load(args.config, args.overrides)
    found = config.explain(configs, args.key, args.agent)
    print(f"{found.key} = {payloads.dumps(found.value).strip()}")
    print(f"  from {found.origin}")
    return EXIT_OK


# --------------------------------------------------------------------------- init


def _add_init(commands: Any) -> None:
    parser = commands.add_parser("init", help="seed a new workspace with default files")
    parser.add_argument("dir", type=Path)
    parser.set_defaults(handler=_init)


def _init(args: argparse.Namespace) -> int:
    created = workspace.init(args.dir, now=now_utc())
    for name in created:
        print(f"created {args.dir / name}")
    if not created:
        print(f"{args.dir}: every default file already exists; nothing written")
    return EXIT_OK


# --------------------------------------------------------------------------- commands in their own modules

from . import bundle, lint, snapshot  # noqa: E402
from .transcript import cli as transcript_cli  # noqa: E402

EXTRA_COMMANDS += [snapshot.register, bundle.register, lint.register, transcript_cli.register]
