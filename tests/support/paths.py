"""Where the tests find the repository's files, and the shared corpus of real workspaces beside
the checkout (absent from some checkouts: the tests that read it skip)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The checkout's root: README.md, pyproject.toml, compiler/, templates/."""
EXAMPLES = REPO / "examples"
"""The example config, run facts, workspace and trace the README uses."""
SNAPSHOTS = REPO / "snapshots"
"""The committed snapshot scenarios, their fixtures and expected outputs."""
CORPUS = REPO.parent / "shared" / "corpus"
"""Real OpenClaw workspaces, one folder each, checked out beside the repository."""
