"""The limits page names every limit the package declares, each with its default, its setting and
what it bounds; a new limit constant without an entry fails here, so it cannot go undocumented.
(tests/test_docs.py checks that the committed page is the one the code makes now.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from promptc.features.reference import limitsref

from support.paths import REPO

PACKAGE = REPO / "compiler"
LIMIT_NAME = re.compile(r"^(DEFAULT_)?MAX_[A-Z_]+$|^[A-Z_]+_(DEPTH|LIMIT)$")
"""The names a limit constant takes."""
NOT_LIMITS = {
    # How much of a result is shown, not a bound on what is read or done.
    "commands.base.MAX_PROBLEMS_SHOWN",
    "features.report.mappage.MAX_SQUARES",
    "features.snapshot.reviewdoc.MAX_MARKDOWN",
    # Folders of promptc's own package taken into the parse cache's fingerprint: no user input.
    "warm.parsecache.PACKAGE_DEPTH",
}
"""Constants named like limits that are not on the page, each with why."""


def declared(root: Path) -> set[str]:
    """Every module-level constant below `root` named like a limit, as `package.module.NAME`."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        for statement in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
            found |= {f"{module}.{t.id}" for t in targets if isinstance(t, ast.Name) and LIMIT_NAME.match(t.id)}
    return found


LISTED = [limit for group in limitsref.GROUPS for limit in group.limits]


def test_every_limit_constant_is_on_the_page_or_excluded_with_a_reason():
    on_page = {limitsref.where(limit) for limit in LISTED}
    assert declared(PACKAGE) - on_page - NOT_LIMITS == set()
    assert declared(PACKAGE) >= NOT_LIMITS, "an exclusion names a constant that no longer exists"
    assert len(on_page) == len(LISTED), "a limit is listed twice"


def test_the_finder_sees_a_new_limit(tmp_path):
    (tmp_path / "feature").mkdir()
    source = "MAX_THINGS = 5\n'''Things.'''\nWALK_DEPTH: int = 3\nSHOWN = 4\ndef f():\n    MAX_LOCAL = 1\n"
    (tmp_path / "feature" / "mod.py").write_text(source, encoding="utf-8")
    assert declared(tmp_path) == {"feature.mod.MAX_THINGS", "feature.mod.WALK_DEPTH"}


def test_every_entry_has_a_value_a_setting_and_a_description():
    for limit in LISTED:
        assert isinstance(getattr(limit.module, limit.name), int), limitsref.where(limit)
        assert limitsref.description(limit), f"{limitsref.where(limit)} has no docstring"
        assert limit.setting.startswith(("fixed: ", "`")), limitsref.where(limit)


def test_the_page_shows_defaults_in_units_and_the_settings_that_change_them():
    page = limitsref.page()
    assert "| `_lib.fsutil.MAX_INPUT_BYTES` | 4 MiB (4,194,304 bytes) | fixed: " in page
    assert "| `features.bundle.matrix.MAX_VARIANTS` | 10,000 | `max_variants` in the matrix file |" in page
    assert "| `sections.limits.MAX_STEPS` | 1,000,000 | fixed: " in page
    assert "| `transcript.repair.DEFAULT_MAX_LINE_BYTES` | 64 MiB (67,108,864 bytes) | `promptc transcript" in page
    assert "| `warm.freshness.RECHECK_LIMIT` | 4 MiB (4,194,304 bytes) |" in page


def test_a_description_is_the_docstring_right_after_the_constant():
    from promptc.features.cache import trace

    assert limitsref.docstrings(trace)["MAX_TRACE_BYTES"].startswith("The largest trace file read")
    assert "MAX_EDITED_BYTES" in limitsref.docstrings(trace)
