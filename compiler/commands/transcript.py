"""`promptc transcript repair|sanitize|policy`: argparse wiring and the thin I/O around the pure core."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import Any

from .._lib.atomic import write_output
from .._lib.errors import Location, TranscriptError
from ..inputs import layers
from ..transcript import jsonline
from ..transcript import policy as policies
from ..transcript.encode import to_json
from ..transcript.images import DEFAULT_MAX_SIDE_PX
from ..transcript.repair import DEFAULT_MAX_LINE_BYTES, MIB, repair_file
from ..transcript.sanitize import SanitizeOptions, sanitize
from ..transcript.session import Session, parse_session, read_session, replay_messages


def configure(transcript: argparse.ArgumentParser) -> None:
    """Add the three transcript sub-commands."""
    commands = transcript.add_subparsers(dest="transcript_command", required=True, parser_class=type(transcript))

    repair = commands.add_parser("repair", help="fix session files on disk (atomic, with a backup)")
    repair.add_argument("files", nargs="+", metavar="FILE", type=Path, help="session files to repair in place")
    repair.add_argument(
        "--max-line-mib",
        type=_positive_int,
        metavar="N",
        default=DEFAULT_MAX_LINE_BYTES // MIB,
        help=f"copy lines longer than N MiB unread (default {DEFAULT_MAX_LINE_BYTES // MIB})",
    )
    repair.set_defaults(handler=run_repair)

    sanitize_cmd = commands.add_parser("sanitize", help="print the replay copy of a session for one provider")
    sanitize_cmd.add_argument(
        "file", metavar="FILE", type=Path, help="the session file (JSONL); - reads standard input"
    )
    _add_model_arguments(sanitize_cmd)
    sanitize_cmd.add_argument(
        "--out", type=Path, metavar="FILE", help="write the JSON here (atomically) instead of stdout; - is stdout"
    )
    sanitize_cmd.add_argument(
        "--image-max-dimension",
        type=_positive_int,
        metavar="N",
        help=f"longest image side in pixels (default: the config's imageMaxDimensionPx, {DEFAULT_MAX_SIDE_PX})",
    )
    sanitize_cmd.add_argument(
        "--config", action="append", type=Path, default=[], metavar="FILE", help="config file (repeatable, later wins)"
    )
    sanitize_cmd.add_argument(
        "--agent", default="main", metavar="ID", help="agent whose imageMaxDimensionPx applies (default: main)"
    )
    sanitize_cmd.set_defaults(handler=run_sanitize)

    policy = commands.add_parser("policy", help="show which replay transforms a provider gets, and why")
    _add_model_arguments(policy)
    policy.set_defaults(handler=run_policy)


def _add_model_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", required=True, metavar="P", help="provider id, e.g. anthropic")
    parser.add_argument("--model-api", required=True, metavar="A", help="model API, e.g. anthropic-messages")
    parser.add_argument("--model", required=True, metavar="M", help="model id, e.g. claude-sonnet-4-5")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def run_repair(args: argparse.Namespace) -> int:
    """0 when every file is clean or repaired, 1 when any was refused.

    Each file's line is printed as soon as it is done, so an error on a later file (which ends the
    command) does not hide what was already repaired and where its backup is.
    """
    for path in args.files:
        _require_file(path)
    refused = False
    for path in args.files:
        report = repair_file(path, max_line_bytes=args.max_line_mib * MIB)
        print(report.summary(), file=sys.stderr, flush=True)
        refused = refused or report.status == "refused"
    return 1 if refused else 0


def run_sanitize(args: argparse.Namespace) -> int:
    """Print (or write) `{"policy": {...}, "messages": [...]}` for the chosen provider."""
    chosen = policies.resolve(args.provider, args.model_api, args.model)
    history = replay_messages(_session(args.file).entries)
    options = SanitizeOptions(image_max_dimension_px=_image_limit(args))
    replay = sanitize(history, chosen, options)
    document = {
        "policy": {"name": chosen.name, "transforms": list(chosen.transforms)},
        "messages": [to_json(m) for m in replay],
    }
    text = _json_text(document)
    if args.out is None or str(args.out) == STDIO:
        sys.stdout.write(text)
    else:
        write_output(args.out, [text.encode("utf-8")], error=TranscriptError)
    print(f"{args.file}: {len(history)} messages in, {len(replay)} out (policy {chosen.name})", file=sys.stderr)
    return 0


STDIO = "-"
"""A session read from standard input (`sanitize -`), the JSON written to standard output (`--out -`)."""


def _session(path: Path) -> Session:
    if str(path) == STDIO:
        return parse_session(sys.stdin.buffer, Path("<stdin>"))
    _require_file(path)
    return read_session(path)


def _json_text(document: Any) -> str:
    """Indented JSON that is valid UTF-8: a lone surrogate read from a session becomes its `\\uXXXX`
    escape (it can only occur inside a JSON string, where the escape reads back as the same text)."""
    text = jsonline.dumps(document, indent=2) + "\n"
    return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def _image_limit(args: argparse.Namespace) -> int:
    """`--image-max-dimension`, else `agents.*.imageMaxDimensionPx` from the config layers."""
    if args.image_max_dimension is not None:
        return args.image_max_dimension
    return layers.resolve(layers.load(args.config), args.agent).image_max_dimension_px


def run_policy(args: argparse.Namespace) -> int:
    """Print the chosen family and one line per transform."""
    chosen = policies.resolve(args.provider, args.model_api, args.model)
    sys.stdout.write("".join(line + "\n" for line in policies.explain(chosen)))
    return 0


def _require_file(path: Path) -> None:
    """A session file is a regular file (through links); anything else is named for what it is."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise TranscriptError("no such session file", Location(str(path))) from None
    except OSError as exc:
        raise TranscriptError(f"cannot read session file: {exc.strerror or exc}", Location(str(path))) from exc
    if not stat.S_ISREG(mode):
        kind = _NODE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise TranscriptError(f"not a session file: it is {kind}", Location(str(path)))


_NODE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}
