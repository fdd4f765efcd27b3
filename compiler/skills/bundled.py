"""Where OpenClaw's bundled skills are: the directory `skills.load.bundledDir` names, or, for
`auto`, the `skills/` folder of an installed `openclaw` package found from the run's environment."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path

from .._lib import fsutil

AUTO = "auto"
"""The `bundledDir` value that asks for the installed package's folder."""
OVERRIDE_VARIABLE = "OPENCLAW_BUNDLED_SKILLS_DIR"
"""OpenClaw's own setting for its bundled skills folder; `auto` takes it first, as OpenClaw does."""
COMMAND = "openclaw"
PACKAGE = "openclaw"
MAX_MANIFEST_BYTES = 1024 * 1024
"""The largest package.json read while looking for the package (a real one is a few KiB)."""
MAX_LEVELS_UP = 6
"""How far above the command's real file the package root is looked for (npm puts the command
at the package root, other installers a level or two below it)."""


def bundled_dir(
    setting: str | None, env: Mapping[str, str], which: Callable[[str], str | None]
) -> tuple[Path | None, str | None]:
    """(the bundled skills folder or None, how it was found): None for no setting; the setting
    itself for a directory; for `auto`, the override variable, else the package of the command."""
    if setting is None:
        return None, None
    if setting != AUTO:
        return Path(setting), "skills.load.bundledDir"
    override = env.get(OVERRIDE_VARIABLE, "").strip()
    if override:
        return Path(os.path.abspath(override)), f"${OVERRIDE_VARIABLE}"
    command = which(COMMAND)
    found = None if command is None else package_skills(Path(os.path.realpath(command)))
    return found, None if found is None else f"the `{COMMAND}` command on PATH ({command})"


def package_skills(executable: Path) -> Path | None:
    """The `skills/` folder of the `openclaw` package holding `executable`: the nearest folder
    above it whose package.json names the package and that has a `skills/` folder."""
    for folder in list(executable.parents)[:MAX_LEVELS_UP]:
        if _names_package(folder / "package.json") and (folder / "skills").is_dir():
            return folder / "skills"
    return None


def _names_package(manifest: Path) -> bool:
    try:
        data = json.loads(fsutil.read_regular(manifest, MAX_MANIFEST_BYTES)[0])
    except (OSError, ValueError, fsutil.Refused):
        return False
    return isinstance(data, dict) and data.get("name") == PACKAGE
