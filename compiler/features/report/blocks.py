"""A compiled prompt as the prompt map draws it: every section and workspace file as a block in
prompt order, each with its tokens, its cache tier and its source; what was cut and where; and
what is not in the prompt (sections, files, skills) with the reason."""

from __future__ import annotations

from dataclasses import dataclass

from ... import tiers as cache_tiers
from ...emit import context, tokens
from ...model.prompt import Prompt, PromptUnit, RenderedSection
from ...model.units import DYNAMIC_UNIT, FILE_PREFIX, HEAD_SUFFIX, JOIN, SECTION_PREFIX
from ...model.workspace import ContextFile
from ...workspace.truncate import marker_start

STABLE, BOUNDARY, VOLATILE = "stable", "boundary", "volatile"
"""Where a block sits: above the cache boundary, the boundary marker itself, below it."""


@dataclass(frozen=True, slots=True)
class Block:
    """One piece of the prompt text, in prompt order; the blocks' texts, each followed by its
    separator, give the whole prompt back."""

    key: str
    """Unique within the map: the cache unit's name, `section:<id>`, or `boundary`."""
    label: str
    """How a person names it: the section's title or the file name."""
    kind: str
    """`section`, `file` or `boundary`."""
    side: str
    """STABLE (above the boundary marker), BOUNDARY (the marker) or VOLATILE (below it)."""
    tier: int | None
    """The 1-based cache tier it is cached in; None when it is sent uncached on every turn."""
    text: str
    """Its text exactly as in the prompt."""
    separator: str
    """What follows it in the prompt (the last block: nothing)."""
    tokens: int
    """Tokens of its text and separator, counted as the map's `method` says."""
    source: str
    """The template file (`builtin:<file>`, a user path, `provider:<slot>`) or the workspace file."""
    cut_at: int | None = None
    """For a cut workspace file: where in `text` its cut-marker line starts."""
    file: ContextFile | None = None
    """The workspace file the block holds (its status and sizes), if any."""


@dataclass(frozen=True, slots=True)
class Tier:
    """One cache tier as the map reports it."""

    index: int
    """1-based."""
    ttl: str
    """The lifetime its breakpoint asks for."""
    tokens: int
    """Tokens of its blocks."""


@dataclass(frozen=True, slots=True)
class PromptMap:
    """Everything the prompt map page shows."""

    prompt: Prompt
    """The compiled prompt (facts, skills, warnings)."""
    read: context.ReadFrom
    """Where its inputs were read from."""
    method: str
    """How tokens were counted (`exact (o200k_base via bpe-openai)`, an estimate, ...)."""
    blocks: tuple[Block, ...]
    """Every piece of the prompt text, in prompt order."""
    tiers: tuple[Tier, ...]
    """The cache tiers, in order."""
    breakpoints: int
    """Breakpoints the Anthropic and Bedrock payloads carry: tiers too short to cache are merged
    into the next one, and a session kind sent uncached has none."""

    @property
    def total(self) -> int:
        """Tokens of the whole prompt, block by block."""
        return sum(b.tokens for b in self.blocks)

    def side_tokens(self, side: str) -> int:
        """Tokens above the boundary (STABLE), of the marker (BOUNDARY) or below it (VOLATILE)."""
        return sum(b.tokens for b in self.blocks if b.side == side)


def build(prompt: Prompt, read: context.ReadFrom) -> PromptMap:
    """The map of a compiled prompt."""
    model = prompt.model
    tier_of = {name: tier.index for tier in prompt.tiers for name in tier.units}
    files = {f.name: f for f in prompt.files}
    sections = {s.id: s for s in prompt.sections}
    pieces = _stable_pieces(prompt, sections, files) + _boundary(prompt) + _volatile_pieces(prompt)
    blocks = tuple(_block(piece, tier_of, model) for piece in _with_separators(pieces))
    tiers = tuple(Tier(t.index, t.ttl, sum(b.tokens for b in blocks if b.tier == t.index)) for t in prompt.tiers)
    sent = cache_tiers.merged(prompt.tiers, cache_tiers.min_tokens(model)) if prompt.breakpoints else ()
    return PromptMap(prompt, read, tokens.describe(model), blocks, tiers, len(sent))


@dataclass(frozen=True, slots=True)
class _Piece:
    """A block before its separator and tokens are known."""

    key: str
    label: str
    kind: str
    side: str
    text: str
    source: str
    file: ContextFile | None = None
    separator: str = ""


def _stable_pieces(prompt: Prompt, sections: dict[str, RenderedSection], files: dict[str, ContextFile]) -> list[_Piece]:
    """The stable part's cache units (a per-file section is split into its head and its files)."""
    pieces = []
    for unit in prompt.units:
        if unit.name == DYNAMIC_UNIT:
            continue  # below the boundary: the volatile part shows it, in its place
        pieces.append(_unit_piece(unit, sections, files))
    if not prompt.units:  # no tiers (none mode): the stable sections whole
        pieces += [_section_piece(s, STABLE) for s in prompt.sections if s.side == STABLE]
    return pieces


def _unit_piece(unit: PromptUnit, sections: dict[str, RenderedSection], files: dict[str, ContextFile]) -> _Piece:
    if unit.name.startswith(SECTION_PREFIX):
        section = sections[unit.name.removeprefix(SECTION_PREFIX)]
        return _Piece(unit.name, section.title, "section", STABLE, unit.text, section.source, separator=unit.separator)
    name = unit.name.removeprefix(FILE_PREFIX).removesuffix(HEAD_SUFFIX)
    file = files.get(name)
    label = f"{name} (kept head)" if unit.name.endswith(HEAD_SUFFIX) else name
    source = file.path if file else name
    return _Piece(unit.name, label, "file", STABLE, unit.text, source, file, unit.separator)


def _section_piece(section: RenderedSection, side: str) -> _Piece:
    return _Piece(SECTION_PREFIX + section.id, section.title, "section", side, section.text, section.source)


def _boundary(prompt: Prompt) -> list[_Piece]:
    if prompt.boundary is None:
        return []
    return [
        _Piece(BOUNDARY, "Cache boundary marker", BOUNDARY, BOUNDARY, prompt.boundary, "prompt.cacheBoundaryMarker")
    ]


def _volatile_pieces(prompt: Prompt) -> list[_Piece]:
    return [_section_piece(s, VOLATILE) for s in prompt.sections if s.side == VOLATILE]


def _with_separators(pieces: list[_Piece]) -> list[_Piece]:
    """Every piece but the last followed by the blank line that joins parts of the prompt (a cache
    unit keeps its own separator: the kept head of a cut file is followed by one line break)."""
    shown = []
    for position, piece in enumerate(pieces):
        last = position == len(pieces) - 1
        separator = "" if last else piece.separator or JOIN
        shown.append(
            _Piece(piece.key, piece.label, piece.kind, piece.side, piece.text, piece.source, piece.file, separator)
        )
    return shown


def _block(piece: _Piece, tier_of: dict[str, int], model: str | None) -> Block:
    return Block(
        key=piece.key,
        label=piece.label,
        kind=piece.kind,
        side=piece.side,
        tier=tier_of.get(piece.key),
        text=piece.text,
        separator=piece.separator,
        tokens=context.token_count(piece.text + piece.separator, model),
        source=piece.source,
        cut_at=_cut_at(piece),
        file=piece.file,
    )


def _cut_at(piece: _Piece) -> int | None:
    """Where the cut-marker line of a truncated file starts in its block: after the kept head, or
    at the start of the block that follows a kept head of its own."""
    if piece.file is None or piece.file.status != "truncated" or piece.key.endswith(HEAD_SUFFIX):
        return None
    found = marker_start(piece.file.name, "\n\n" + piece.text)  # a marker may open the block
    return None if found is None else found - 2
