"""Discover skills, decide which are eligible, and list them within the skills budget (SPEC 6)."""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import frontmatter as python_frontmatter  # the python-frontmatter distribution

from ..model import ResolvedConfig, Skill, SkillEntry, SkillsBlock
from ..sections.text import replace_surrogates
from . import frontmatter

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 6
"""Deepest directory level (below a root) searched for SKILL.md."""
MAX_SKILL_BYTES = 256_000
SKIPPED_DIRS = frozenset({"node_modules"})
METADATA_NAMESPACES = ("openclaw", "clawdbot")
"""Sub-mappings of `metadata` that may carry `os` / `requires` (both spellings occur in the wild)."""
PLATFORM_ALIASES = {"macos": "darwin", "mac": "darwin", "osx": "darwin", "windows": "win32"}
ELLIPSIS = "..."
MIN_DESCRIPTION_CHARS = len(ELLIPSIS) + 1


# --------------------------------------------------------------------------- discovery


def discover(roots: Sequence[Path]) -> tuple[tuple[Skill, ...], tuple[str, ...]]:
    """Skills under each root's `**/SKILL.md`, sorted by name, plus diagnostics.

    A later root overrides an earlier one by name; within one root the first path in sorted
    order wins. A skill without a description is skipped with a diagnostic.
    """
    by_name: dict[str, Skill] = {}
    diagnostics: list[str] = []
    for root in roots:
        found: dict[str, Skill] = {}
        for path in _skill_files(Path(root)):
            skill = _read_skill(path, diagnostics)
            if skill is None:
                continue
            if skill.name in found:
                diagnostics.append(
                    f"{path}: duplicate skill name {skill.name!r}; {found[skill.name].location} kept"
                )
                continue
            found[skill.name] = skill
        by_name.update(found)
    return tuple(by_name[name] for name in sorted(by_name)), tuple(diagnostics)


def _skill_files(root: Path) -> Iterator[Path]:
    """Every SKILL.md at most MAX_DEPTH directories below `root`, in sorted path order."""
    if root.is_dir():
        yield from _walk(root, depth=0, visited=set())


def _walk(directory: Path, depth: int, visited: set[tuple[int, int]]) -> Iterator[Path]:
    """Depth-first, sorted; hidden dirs and node_modules skipped; symlink loops cut."""
    try:
        identity = os.stat(directory)
    except OSError:
        return
    if (identity.st_dev, identity.st_ino) in visited:
        return
    visited.add((identity.st_dev, identity.st_ino))
    candidate = directory / SKILL_FILE
    if os.path.isfile(candidate):
        yield candidate
    if depth == MAX_DEPTH:
        return
    for child in sorted(_subdirectories(directory)):
        yield from _walk(child, depth + 1, visited)


def _subdirectories(directory: Path) -> list[Path]:
    """Searchable child directories (unreadable directories count as empty)."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    return [
        Path(entry.path)
        for entry in entries
        if entry.is_dir() and not entry.name.startswith(".") and entry.name not in SKIPPED_DIRS
    ]


_SKILL_CACHE: dict[str, tuple[tuple[int, int, int, int], Skill | None, tuple[str, ...]]] = {}
"""path -> (stat key, parsed skill, diagnostics): SKILL.md files are re-parsed only on change."""


def _read_skill(path: Path, diagnostics: list[str]) -> Skill | None:
    """One SKILL.md as a Skill, or None with a diagnostic saying why it is skipped."""
    try:
        stat = path.stat()
    except OSError as error:
        diagnostics.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        return None
    key = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)
    cached = _SKILL_CACHE.get(str(path))
    if cached is None or cached[0] != key:
        found: list[str] = []
        cached = _SKILL_CACHE[str(path)] = (key, _parse_skill(path, stat.st_size, found), tuple(found))
    diagnostics.extend(cached[2])
    return cached[1]


def _parse_skill(path: Path, size: int, diagnostics: list[str]) -> Skill | None:
    """Read and parse one SKILL.md of known size."""
    if size > MAX_SKILL_BYTES:
        diagnostics.append(f"{path}: larger than {MAX_SKILL_BYTES} bytes; skipped")
        return None
    try:
        raw = path.read_bytes()
    except OSError as error:
        diagnostics.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        return None
    found, problem = skill_metadata(_normalise(raw))
    metadata = found or {}
    description = _single_line(metadata.get("description"))
    if not description:
        why = problem or "no `description` in its frontmatter"
        diagnostics.append(f"{path}: {why}; skill skipped")
        return None
    name = _single_line(metadata.get("name")) or path.parent.name
    return Skill(name, description, str(path), skill_version(raw), metadata)


_METADATA_BLOCK = python_frontmatter.YAMLHandler()


def skill_metadata(text: str) -> tuple[Mapping[str, Any] | None, str | None]:
    """A SKILL.md's frontmatter mapping, or None and why not.

    python-frontmatter finds and cuts the block; its normalisation of the body does not matter
    here, because a skill contributes only its metadata (its version hashes the raw bytes). The
    block is read by the same safe YAML rules as workspace frontmatter.
    """
    if not _METADATA_BLOCK.detect(text):
        return None, None
    try:
        block, _ = _METADATA_BLOCK.split(text)
    except ValueError:
        return None, "frontmatter opened on line 1 is never closed"
    return frontmatter.parse_block(block)


def _normalise(raw: bytes) -> str:
    """Decode like a workspace file: UTF-8, BOM dropped, bad bytes replaced, LF newlines."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _single_line(value: Any) -> str:
    """A frontmatter text value with whitespace runs collapsed; '' for anything not text."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def skill_version(raw: bytes) -> str:
    """`sha256:` + the first 16 hex digits of the SHA-256 of the raw SKILL.md bytes."""
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


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
    checks = (
        _os_mismatch(skill, platform),
        _missing("binaries not on PATH", _requirement(skill, "bins"), lambda b: which(b) is None),
        _missing_any_bin(skill, which),
        _missing(
            "environment variables unset", _requirement(skill, "env"), lambda v: not env.get(v)
        ),
        _missing(
            "config values not set", _requirement(skill, "config"), lambda p: not cfg.lookup(p)
        ),
    )
    return next((reason for reason in checks if reason is not None), None)


def _metadata_value(skill: Skill, key: str) -> Any:
    """`metadata.<key>`, else `metadata.openclaw.<key>`, else `metadata.clawdbot.<key>`."""
    metadata = skill.metadata.get("metadata")
    if not isinstance(metadata, Mapping):
        return None
    candidates = [metadata] + [metadata.get(space) for space in METADATA_NAMESPACES]
    for candidate in candidates:
        if isinstance(candidate, Mapping) and key in candidate:
            return candidate[key]
    return None


def _requirement(skill: Skill, kind: str) -> tuple[str, ...]:
    """The names listed under `requires.<kind>` (a single string counts as one name)."""
    requires = _metadata_value(skill, "requires")
    if not isinstance(requires, Mapping):
        return ()
    return _names(requires.get(kind))


def _names(value: Any) -> tuple[str, ...]:
    """A string or list of strings as a tuple of names; anything else as none."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    return ()


def _os_mismatch(skill: Skill, platform: str) -> str | None:
    """A reason when the skill names operating systems and this platform is not one of them."""
    wanted = {
        PLATFORM_ALIASES.get(name.lower(), name.lower())
        for name in _names(_metadata_value(skill, "os"))
    }
    if not wanted or platform.lower() in wanted:
        return None
    return f"only for {', '.join(sorted(wanted))}"


def _missing(label: str, names: tuple[str, ...], is_missing: Callable[[str], bool]) -> str | None:
    """`label: a, b` for the names that fail, or None."""
    failing = [name for name in names if is_missing(name)]
    return f"{label}: {', '.join(failing)}" if failing else None


def _missing_any_bin(skill: Skill, which: Callable[[str], str | None]) -> str | None:
    """`requires.anyBins`: at least one of them must be on PATH."""
    candidates = _requirement(skill, "anyBins")
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
) -> SkillsBlock:
    """The `<available_skills>` block for this agent and every skill's fate.

    Roots: `skills.load.extraDirs` (lowest first; the config stage made them absolute), then
    `<workspace>/skills`. Locations inside the workspace are shown relative to it.
    """
    workspace_root = Path(os.path.abspath(workspace_root))
    extra = [Path(directory) for directory in cfg.skills.extra_dirs]
    found, diagnostics = discover(extra + [workspace_root / "skills"])
    diagnostics += tuple(f"{d}: skills.load.extraDirs entry is not a directory" for d in extra if not d.is_dir())
    shown = [_displayed(skill, workspace_root) for skill in found]
    reasons = {
        skill.name: eligibility(skill, cfg, env=env, which=which, platform=platform)
        for skill in shown
    }
    eligible = [skill for skill in shown if reasons[skill.name] is None]
    candidates = eligible[: cfg.skills.max_in_prompt]
    listing = fit_listing(candidates, len(eligible), cfg.skills.max_prompt_chars)
    listed = {skill.name for skill in candidates[: listing.count]}
    within_count = {skill.name for skill in candidates}
    entries = tuple(_entry(skill, reasons[skill.name], listed, within_count) for skill in shown)
    return SkillsBlock(listing.text, entries, listing.note, diagnostics)


def _displayed(skill: Skill, workspace_root: Path) -> Skill:
    """The skill with its location relative to the workspace when inside it (POSIX slashes)."""
    location = Path(skill.location)
    if location.is_relative_to(workspace_root):
        shown = location.relative_to(workspace_root).as_posix()
        return Skill(skill.name, skill.description, shown, skill.version, skill.metadata)
    return skill


def _entry(
    skill: Skill, ineligible: str | None, listed: set[str], within_count: set[str]
) -> SkillEntry:
    """How one skill fared: listed, ineligible, over the count limit, or cut by the budget."""
    if skill.name in listed:
        reason = None
    elif ineligible is not None:
        reason = f"ineligible: {ineligible}"
    elif skill.name in within_count:
        reason = "skills budget"
    else:
        reason = "over maxSkillsInPrompt"
    return SkillEntry(skill.name, skill.location, skill.version, skill.name in listed, reason)


@dataclass(frozen=True)
class Listing:
    """The rendered list and how much of it survived the budget."""

    text: str
    """The note line (if any) and the `<available_skills>` block; empty when nothing fits."""
    count: int
    """How many of the candidate skills are listed."""
    note: str | None
    """What was cut, when anything was."""


_LISTING_CACHE: OrderedDict[tuple, Listing] = OrderedDict()
"""Recent listings: the budget search renders the block many times, so remember the answer."""


def fit_listing(skills: Sequence[Skill], eligible_total: int, max_chars: int) -> Listing:
    """The fullest listing within `max_chars`: all descriptions, then shortened ones, then none,
    then the largest prefix of skills without descriptions.
    """
    key = (tuple((s.name, s.description, s.location, s.version) for s in skills), eligible_total, max_chars)
    listing = _LISTING_CACHE.get(key)
    if listing is None:
        listing = _LISTING_CACHE[key] = _fit_listing(skills, eligible_total, max_chars)
        if len(_LISTING_CACHE) > 64:
            _LISTING_CACHE.popitem(last=False)
    return listing


def _fit_listing(skills: Sequence[Skill], eligible_total: int, max_chars: int) -> Listing:
    if not skills:
        return Listing("", 0, None)

    def fits(count: int, description_chars: int | None) -> bool:
        return len(_render(skills, count, description_chars, eligible_total)) <= max_chars

    count, description_chars = _choose_cut(len(skills), _longest_description(skills), fits)
    if count == 0:
        return Listing("", 0, _note(0, eligible_total, 0))
    text = _render(skills, count, description_chars, eligible_total)
    return Listing(text, count, _note(count, eligible_total, description_chars))


def _choose_cut(
    total: int, longest: int, fits: Callable[[int, int | None], bool]
) -> tuple[int, int | None]:
    """(count, description limit): None keeps descriptions whole, 0 omits them."""
    if fits(total, None):
        return total, None
    shortened = _largest(MIN_DESCRIPTION_CHARS, longest - 1, lambda chars: fits(total, chars))
    if shortened is not None:
        return total, shortened
    if fits(total, 0):
        return total, 0
    return _largest(1, total - 1, lambda count: fits(count, 0)) or 0, 0


def _largest(low: int, high: int, ok: Callable[[int], bool]) -> int | None:
    """The largest value in [low, high] for which the monotone test `ok` holds, or None."""
    best = None
    while low <= high:
        middle = (low + high) // 2
        if ok(middle):
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best


def _longest_description(skills: Sequence[Skill]) -> int:
    """Length of the longest description."""
    return max(len(skill.description) for skill in skills)


def _render(
    skills: Sequence[Skill], count: int, description_chars: int | None, eligible_total: int
) -> str:
    """The note (when something is cut) and the XML block for the first `count` skills."""
    lines = ["<available_skills>"]
    for skill in skills[:count]:
        lines.extend(_skill_lines(skill, _shorten(skill.description, description_chars)))
    lines.append("</available_skills>")
    note = _note(count, eligible_total, description_chars)
    return "\n".join(([note] if note else []) + lines)


def _skill_lines(skill: Skill, description: str) -> list[str]:
    """One `<skill>` element, indented two spaces, its fields four."""
    fields = [
        ("name", skill.name),
        ("description", description),
        ("location", skill.location),
        ("version", skill.version),
    ]
    inner = [f"    <{tag}>{xml_escape(value)}</{tag}>" for tag, value in fields if value]
    return ["  <skill>", *inner, "  </skill>"]


def _shorten(description: str, limit: int | None) -> str:
    """The description cut to `limit` characters with `...`; whole for None, '' for 0."""
    if limit is None or len(description) <= limit:
        return description
    if limit == 0:
        return ""
    return description[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def _note(count: int, eligible_total: int, description_chars: int | None) -> str | None:
    """One line saying what was left out of the list, or None when nothing was."""
    parts = []
    if count < eligible_total:
        parts.append(f"{count} of {eligible_total} eligible skills listed")
    if description_chars == 0:
        parts.append("descriptions omitted")
    elif description_chars is not None:
        parts.append(f"descriptions shortened to {description_chars} characters")
    return f"(Skills list shortened: {'; '.join(parts)}.)" if parts else None


_XML_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;",
    # Line breaks are legal XML, but one field is one line of the list: keep them as references.
    "\n": "&#10;", "\r": "&#13;", "\x85": "&#133;", "\u2028": "&#8232;", "\u2029": "&#8233;",
}  # fmt: skip
_XML_FORBIDDEN = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
"""Code points XML 1.0 cannot hold at all, not even as a reference (C0 controls but tab, LF
and CR; surrogates; U+FFFE and U+FFFF)."""
_XML_TABLE = {**dict.fromkeys(_XML_FORBIDDEN, "\ufffd"), **{ord(k): v for k, v in _XML_ESCAPES.items()}}


def xml_escape(text: str) -> str:
    """Text safe inside one XML element on one line: the five special characters and line
    breaks as references, characters XML forbids replaced by U+FFFD."""
    return replace_surrogates(text).translate(_XML_TABLE)
