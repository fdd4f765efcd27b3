"""`promptc templates`: list the built-in sections, and eject one (with the partials it uses)
into a template dir as a starting point for editing."""

from __future__ import annotations

import argparse
from pathlib import Path

import jinja2
from jinja2 import meta

from .._lib import atomic, fsutil
from .._lib.errors import Location, TemplateError, UsageError, did_you_mean
from .._lib.resources import templates_root
from ..sections import catalogue
from ..sections.catalogue import SectionSpec
from ..sections.environment import ENV
from ..sections.sectionfile import MAX_TEMPLATE_BYTES
from .common import EXIT_OK

DEFAULT_DIR = Path("templates")
"""Where `eject` writes when `--to` is not given."""


def configure(templates: argparse.ArgumentParser) -> None:
    """Add the list and eject sub-commands."""
    commands = templates.add_subparsers(dest="templates_command", required=True, parser_class=type(templates))
    listing = commands.add_parser("list", help="list the built-in sections: id, order, side, modes, file")
    listing.set_defaults(handler=_list)
    eject = commands.add_parser("eject", help="copy a built-in section and the partials it uses into a template dir")
    eject.add_argument("section", metavar="ID", help="the built-in section's id (see templates list)")
    eject.add_argument(
        "--to", type=Path, default=DEFAULT_DIR, metavar="DIR", help=f"the template dir (default {DEFAULT_DIR})"
    )
    eject.set_defaults(handler=_eject)


def _builtins() -> list[SectionSpec]:
    return [spec for spec in catalogue.load([]).sections if spec.origin == "builtin"]


def _list(args: argparse.Namespace) -> int:
    rows = [(spec.id, str(spec.order), spec.side, ",".join(sorted(spec.modes)), spec.label) for spec in _builtins()]
    header = ("id", "order", "side", "modes", "file")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    return EXIT_OK


def _eject(args: argparse.Namespace) -> int:
    builtins = {spec.id: spec for spec in _builtins()}
    spec = builtins.get(args.section)
    if spec is None:
        hint = did_you_mean(args.section, sorted(builtins), " (promptc templates list shows them)")
        raise UsageError(f"no built-in section '{args.section}'{hint}")
    copies = [(Path(spec.path), Path(Path(spec.path).name))]
    copies += [(templates_root() / name, Path(name)) for name in _partials_used(spec.path, set())]
    targets = [(source, args.to / relative) for source, relative in copies]
    existing = [str(target) for _, target in targets if target.exists() or target.is_symlink()]
    if existing:
        raise UsageError(f"will not overwrite {', '.join(existing)} (move it away or pick another --to DIR)")
    for source, target in targets:
        data, _ = fsutil.read_regular(source, MAX_TEMPLATE_BYTES)
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_chunks_atomic(target, [data])
        print(f"wrote {target}")
    return EXIT_OK


def _partials_used(path: str, seen: set[str]) -> list[str]:
    """The partials a built-in template includes or imports, and theirs, in first-use order."""
    source = Path(path).read_text(encoding="utf-8")
    try:
        names = list(meta.find_referenced_templates(ENV.parse(source)))
    except jinja2.TemplateSyntaxError as exc:  # a built-in always parses; say so plainly if not
        raise TemplateError(f"template syntax error: {exc.message}", Location(path, exc.lineno, 1)) from exc
    found = []
    for name in names:
        if name is None or name in seen:
            continue
        seen.add(name)
        found += [name, *_partials_used(str(templates_root() / name), seen)]
    return found
