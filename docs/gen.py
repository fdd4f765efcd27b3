"""Write the documentation's generated files (docs/reference/*.md, docs/schemas/*.json) from
promptc's declarations: `python docs/gen.py`. With `--check`, write nothing and exit 1 when a
committed file differs from what the code makes now (tests/test_docs.py does the same)."""

from __future__ import annotations

import sys
from pathlib import Path

from promptc.commands import cli, reference

DOCS = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    stale = []
    for name, text in reference.generated(cli.top_parser(), cli.command_parsers()).items():
        path = DOCS / name
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(name)
        if "--check" not in argv:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for name in stale:
        print(f"{'stale' if '--check' in argv else 'wrote'}: docs/{name}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
