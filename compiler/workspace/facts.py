"""Probe the workspace directory for facts the prompt states besides its files (is it a git repo)."""

from __future__ import annotations

from pathlib import Path

from ..model.workspace import WorkspaceFacts

GIT_MARKER = ".git"
"""A directory (a normal clone) or a file (a linked worktree or submodule) of this name marks a repo."""


def probe(root: Path) -> WorkspaceFacts:
    """Whether the workspace root holds its own `.git` entry.

    Only the root itself counts: a workspace that merely sits somewhere inside another
    repository (a fixture in a source checkout, a folder under a dotfiles repo) is not the
    agent's repository, and its prompt must not change with where it happens to be copied.
    """
    marker = Path(root) / GIT_MARKER
    return WorkspaceFacts(git_repo=marker.is_dir() or marker.is_file(), looked_at=(str(marker),))
