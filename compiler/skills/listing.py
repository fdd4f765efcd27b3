"""The skills block: which discovered skills are eligible, and the `<available_skills>` listing
within the skills budget. Discovery itself is discover.py."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeGuard

from .._lib import fsutil
from .._lib.errors import one_line
from .._lib.reads import Recorder
from .._lib.resources import shipped_yaml
from .._lib.text import replace_surrogates
from ..model.config import ResolvedConfig
from ..model.workspace import Skill, SkillEntry, SkillsBlock
from .bundled import bundled_dir
from .discover import MAX_DEPTH, MAX_EXTRA_DEPTH, NESTED_ROOT, discover, shown_path

METADATA_NAMESPACES = ("openclaw", "clawdbot")
"""Sub-mappings of `metadata` that may carry `os` / `requires` (both spellings occur in the wild)."""
PLATFORM_ALIASES = {"macos": "darwin", "mac": "darwin", "osx": "darwin", "windows": "win32"}
NOTICES = "skills_notice.yaml"
MAX_REQUIREMENTS = 64
"""`requires` names one skill may list (bins, anyBins, env and config together); a skill with
more is ineligible, so a workspace cannot make every compile check thousands of binaries."""


# --------------------------------------------------------------------------- eligibility


def eligibility(
    skill: Skill,
    cfg: ResolvedConfig,
    *,
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    platform: str,
) -> str | None:
    """None when the skill may be listed, else the first reason it may not."""
    if skill.name in cfg.skills.disabled:
        return "disabled in config"
    if cfg.skills.allowlist is not None and skill.name not in cfg.skills.allowlist:
        return "not in the agent's skills allowlist"
    if _hidden_from_model(skill):
        return "hidden from the model (disable-model-invocation)"
    if _metadata_value(skill, "always") is True:  # OpenClaw: listed wherever its OS allows
        return _os_mismatch(skill, platform)
    listed = requirements(skill)
    if (count := sum(map(len, listed.values()))) > MAX_REQUIREMENTS:
        return f"too many requirements ({count}; at most {MAX_REQUIREMENTS} are checked)"
    checks = (
        lambda: _os_mismatch(skill, platform),
        lambda: _missing("binaries not on PATH", listed["bins"], lambda b: which(b) is None),
        lambda: _missing_any_bin(listed["anyBins"], which),
        lambda: _missing("environment variables unset", listed["env"], lambda v: not env.get(v)),
        lambda: _missing("config values not set", listed["config"], lambda p: not cfg.lookup(p)),
    )
    return next((reason for check in checks if (reason := check()) is not None), None)


REQUIREMENT_KINDS = ("bins", "anyBins", "env", "config")


def requirements(skill: Skill) -> dict[str, tuple[str, ...]]:
    """The names `requires` lists, by kind (a single string counts as one name)."""
    requires = _metadata_value(skill, "requires")
    if not _is_mapping(requires):
        return {kind: () for kind in REQUIREMENT_KINDS}
    return {kind: _names(requires.get(kind)) for kind in REQUIREMENT_KINDS}


def requirement_count(skill: Skill) -> int:
    """How many names the skill's `requires` lists, all kinds together."""
    return sum(map(len, requirements(skill).values()))


def _metadata_value(skill: Skill, key: str) -> Any:
    """`metadata.<key>`, else `metadata.openclaw.<key>`, else `metadata.clawdbot.<key>`."""
    metadata = skill.metadata.get("metadata")
    if not _is_mapping(metadata):
        return None
    candidates = [metadata] + [metadata.get(space) for space in METADATA_NAMESPACES]
    for candidate in candidates:
        if _is_mapping(candidate) and key in candidate:
            return candidate[key]
    return None


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """isinstance(value, Mapping), with the common case (parsed metadata is plain dicts) first:
    the ABC check costs a microsecond, and a listing asks thousands of times."""
    return type(value) is dict or isinstance(value, Mapping)


def _names(value: Any) -> tuple[str, ...]:
    """A string or list of strings as a tuple of names; anything else as none."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    return ()


TRUE_WORDS = frozenset({"true", "yes", "1"})
"""How a frontmatter flag may say yes when it is written as text."""


def _hidden_from_model(skill: Skill) -> bool:
    """`disable-model-invocation: true`: the skill is for a person to invoke, never listed."""
    flag = skill.metadata.get("disable-model-invocation")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() in TRUE_WORDS)


def _os_mismatch(skill: Skill, platform: str) -> str | None:
    """A reason when the skill names operating systems and this platform is not one of them."""
    wanted = {PLATFORM_ALIASES.get(name.lower(), name.lower()) for name in _names(_metadata_value(skill, "os"))}
    if not wanted or platform.lower() in wanted:
        return None
    return f"only for {', '.join(sorted(wanted))}"


def _missing(label: str, names: tuple[str, ...], is_missing: Callable[[str], bool]) -> str | None:
    """`label: a, b` for the names that fail, or None."""
    failing = [name for name in names if is_missing(name)]
    return f"{label}: {', '.join(failing)}" if failing else None


def _missing_any_bin(candidates: tuple[str, ...], which: Callable[[str], str | None]) -> str | None:
    """`requires.anyBins`: at least one of them must be on PATH."""
    if not candidates or any(which(name) is not None for name in candidates):
        return None
    return f"none of these binaries on PATH: {', '.join(candidates)}"


# --------------------------------------------------------------------------- the listed block


def build(
    cfg: ResolvedConfig,
    workspace_root: Path,
    *,
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    platform: str,
    tracker: Recorder | None = None,
    parsed: MutableMapping[str, tuple[Mapping[str, Any] | None, str | None]] | None = None,
    workspace_identity: fsutil.Identity | None = None,
    shown_root: str | None = None,
) -> SkillsBlock:
    """The `<available_skills>` block for this agent and every skill's fate.

    Roots, lowest precedence first as OpenClaw merges them: `skills.load.extraDirs` (the config
    stage made them absolute), the bundled skills folder (`skills.load.bundledDir`), then
    `<workspace>/skills`. A workspace skill may not lead out of the workspace, another root's
    skill not out of that root, except into `skills.load.allowSymlinkTargets`. A location inside
    the workspace is shown under `shown_root`, the workspace directory the prompt names (the
    directory read when None), so the model is given a path it can read as it is; any other
    location is shown as found.
    """
    workspace_root = Path(os.path.abspath(workspace_root))
    extra = [Path(directory) for directory in cfg.skills.extra_dirs]
    bundled, found_by = bundled_dir(cfg.skills.bundled_dir, env, which)
    others = extra + ([bundled] if bundled is not None else [])
    skipped: list[tuple[str, str]] = []
    found, diagnostics = discover(
        others + [workspace_root / "skills"],
        tracker,
        bases=[*others, workspace_root],
        identities=[*[None] * len(others), workspace_identity],
        allowed=allowed_targets(cfg),
        parsed=parsed,
        skipped=skipped,
        depths=[*map(_extra_depth, extra), *([MAX_DEPTH] * (len(others) - len(extra))), MAX_DEPTH],
    )
    diagnostics += tuple(f"{d}: skills.load.extraDirs entry is not a directory" for d in extra if not d.is_dir())
    if bundled is not None and not bundled.is_dir():
        diagnostics += (f"{bundled}: skills.load.bundledDir is not a directory",)
    diagnostics += tuple(
        f"{s.location}: lists {count} requirements (at most {MAX_REQUIREMENTS}); skill not eligible"
        for s in found
        if (count := requirement_count(s)) > MAX_REQUIREMENTS
    )
    diagnostics = tuple(one_line(d) for d in diagnostics)  # a path or a name may hold a line break
    shown_as = str(workspace_root) if shown_root is None else shown_root
    shown = [_displayed(skill, workspace_root, shown_as) for skill in found]
    reasons = {skill.name: eligibility(skill, cfg, env=env, which=which, platform=platform) for skill in shown}
    eligible = [skill for skill in shown if reasons[skill.name] is None]
    candidates = eligible[: cfg.skills.max_in_prompt]
    listing = fit_listing(candidates, len(eligible), cfg.skills.max_prompt_chars)
    listed = {skill.name for skill in candidates[: listing.count]}
    within_count = {skill.name for skill in candidates}
    entries = tuple(_entry(skill, reasons[skill.name], listed, within_count) for skill in shown)
    shown_skipped = tuple((shown_path(Path(path), workspace_root), why) for path, why in skipped)
    shown_bundled = None if bundled is None else f"{bundled} (from {found_by})"
    return SkillsBlock(listing.text, entries, listing.note, diagnostics, shown_skipped, listing.compact, shown_bundled)


def _extra_depth(root: Path) -> int:
    """How deep an extra root is searched: as deep as the workspace's when it is itself named
    `skills`, else two levels (a configured folder is often a project, not a skills tree)."""
    return MAX_DEPTH if root.name == NESTED_ROOT else MAX_EXTRA_DEPTH


def allowed_targets(cfg: ResolvedConfig) -> tuple[str, ...]:
    """`skills.load.allowSymlinkTargets`, resolved: where a skill link may lead outside its root."""
    configured = cfg.lookup("skills.load.allowSymlinkTargets") or ()
    return tuple(os.path.realpath(path) for path in configured)


def _displayed(skill: Skill, workspace_root: Path, shown_root: str) -> Skill:
    """The skill with its location under `shown_root` when inside the workspace (POSIX slashes)."""
    root = str(workspace_root).rstrip("/") + "/"
    if os.sep == "/" and skill.location.startswith(root):  # the walk names paths as strings under the root
        inside = skill.location[len(root) :]
    elif (location := Path(skill.location)).is_relative_to(workspace_root):
        inside = location.relative_to(workspace_root).as_posix()
    else:
        return skill
    shown = f"{shown_root.rstrip('/')}/{inside}"
    return Skill(skill.name, skill.description, shown, skill.version, skill.metadata)


def _entry(skill: Skill, ineligible: str | None, listed: set[str], within_count: set[str]) -> SkillEntry:
    """How one skill fared: listed, ineligible, over the count limit, or cut by the budget. Its
    name and reason are one printable line (a report shows them so; the prompt keeps the name)."""
    if skill.name in listed:
        reason = None
    elif ineligible is not None:
        reason = one_line(f"ineligible: {ineligible}")
    elif skill.name in within_count:
        reason = "skills budget"
    else:
        reason = "over maxSkillsInPrompt"
    return SkillEntry(one_line(skill.name), skill.location, skill.version, skill.name in listed, reason)


@dataclass(frozen=True, slots=True)
class Listing:
    """The rendered list and how much of it survived the budget."""

    text: str
    """The note line (if any) and the `<available_skills>` block; empty when nothing fits."""
    count: int
    """How many of the candidate skills are listed."""
    note: str | None
    """What was cut, when anything was."""
    compact: bool = False
    """Whether the list is in its compact form: names and locations, no descriptions."""


def fit_listing(skills: Sequence[Skill], eligible_total: int, max_chars: int) -> Listing:
    """The fullest listing within `max_chars`, in OpenClaw's order of fallbacks: every candidate
    with its description; else every candidate in the compact form (no descriptions); else the
    longest prefix of the candidates that fits in the compact form. The note line counts, and so
    does the room OpenClaw's budget gives the lines that introduce the list (INTRO_CHARS).
    """
    if not skills:
        return Listing("", 0, None)
    full = [_element_length(skill, with_description=True) for skill in skills]
    compact = list(accumulate((_element_length(skill, with_description=False) for skill in skills), initial=0))
    whole = len(skills)

    def fits(count: int, is_compact: bool) -> bool:
        elements = compact[count] if is_compact else sum(full[:count])
        return _list_length(count, elements, _note(count, eligible_total, is_compact), is_compact) <= max_chars

    if fits(whole, False):
        count, is_compact = whole, False
    else:
        # Fewer skills always take less room: the sizes that fit come first.
        prefix = bisect.bisect_left(range(1, whole), True, key=lambda n: not fits(n, True))
        count, is_compact = (whole if fits(whole, True) else prefix), True
    note = _note(count, eligible_total, is_compact)
    return Listing(_render(skills[:count], is_compact, note) if count else "", count, note, is_compact)


_LIST_TAGS = len("<available_skills>") + len("</available_skills>")
INTRO_CHARS = {False: 421, True: 414}
"""Characters, by form (compact or not), that OpenClaw's skills budget spends above a non-empty
list: two blank lines, four lines on how to use the list (the compact form's names no
description, 7 characters fewer) and a blank line, each with its line break. promptc's Skills
section says the same in its own bullets, which it prints outside the block, so the budget keeps
that room for them: the same list is cut where OpenClaw cuts it."""


def _list_length(count: int, elements: int, note: str | None, compact: bool) -> int:
    """What the budget counts for `count` skills whose elements (each with its line breaks) take
    `elements` characters: len(_render(...)) plus INTRO_CHARS when any skill is listed (the
    budget search measures listings without building them)."""
    if count == 0:
        return len(note) if note else 0
    return (len(note) + 1 if note else 0) + INTRO_CHARS[compact] + _LIST_TAGS + 1 + elements


def _element_length(skill: Skill, *, with_description: bool) -> int:
    """Characters of one skill's lines in the listing, each line with its line break."""
    return sum(len(line) + 1 for line in _skill_lines(skill, skill.description if with_description else ""))


def _render(skills: Sequence[Skill], compact: bool, note: str | None) -> str:
    """The note (when something is cut) and the XML block of the given skills."""
    lines = ["<available_skills>"]
    for skill in skills:
        lines.extend(_skill_lines(skill, "" if compact else skill.description))
    lines.append("</available_skills>")
    return "\n".join(([note] if note else []) + lines)


def _skill_lines(skill: Skill, description: str) -> list[str]:
    """One `<skill>` element, indented two spaces, its fields four (an empty field is left out)."""
    fields = [
        ("name", skill.name),
        ("description", description),
        ("location", skill.location),
        ("version", skill.version),
    ]
    inner = [f"    <{tag}>{xml_escape(value)}</{tag}>" for tag, value in fields if value]
    return ["  <skill>", *inner, "  </skill>"]


@cache
def notices() -> Mapping[str, str]:
    """The note lines' wording (templates/skills_notice.yaml), by case."""
    return shipped_yaml(NOTICES)


def _note(count: int, eligible_total: int, compact: bool) -> str | None:
    """One line saying what the budget changed in the list, or None when nothing was."""
    if count < eligible_total:
        case = "fewer_compact" if compact else "fewer"
    elif compact:
        case = "compact"
    else:
        return None
    return notices()[case].format(listed=count, total=eligible_total)


_XML_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&apos;",
    # Line breaks are legal XML, but one field is one line of the list: keep them as references.
    "\n": "&#10;",
    "\r": "&#13;",
    "\x85": "&#133;",
    "\u2028": "&#8232;",
    "\u2029": "&#8233;",
}
_XML_FORBIDDEN = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
"""Code points XML 1.0 cannot hold at all, not even as a reference (C0 controls but tab, LF
and CR; surrogates; U+FFFE and U+FFFF)."""
_XML_TABLE = {**dict.fromkeys(_XML_FORBIDDEN, "\ufffd"), **{ord(k): v for k, v in _XML_ESCAPES.items()}}


_XML_SPECIAL = re.compile(r"[&<>\"'\n\r\x85\u2028\u2029\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Any character xml_escape changes (most fields hold none: they are returned as they are)."""


def xml_escape(text: str) -> str:
    """Text safe inside one XML element on one line: the five special characters and line
    breaks as references, characters XML forbids replaced by U+FFFD."""
    if _XML_SPECIAL.search(text) is None:
        return text
    return replace_surrogates(text).translate(_XML_TABLE)
