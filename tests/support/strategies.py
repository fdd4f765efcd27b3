"""Shared Hypothesis strategies for the workspace stages."""

from __future__ import annotations

from hypothesis import strategies as st

from promptc.model.workspace import BOOTSTRAP_FILE_NAMES, Skill, WorkspaceFile

# Fragments that stress cut points: line breaks, a CRLF, an explicit surrogate pair, astral
# and combining characters. No "[" so a truncation marker in the output is unambiguous.
_TRICKY_FRAGMENTS = ["\n", "\r\n", "\n\n", "\ud83d\ude00", "😀", "é", "e\u0301", "  ", "\t"]
_PLAIN_CHARACTERS = st.characters(blacklist_categories=("Cs",), blacklist_characters="[", max_codepoint=0x2FFFF)

_LONG_RUNS = st.builds(lambda character, count: character * count, _PLAIN_CHARACTERS, st.integers(1, 400))

texts = st.lists(
    st.one_of(
        st.sampled_from(_TRICKY_FRAGMENTS),
        st.text(_PLAIN_CHARACTERS, max_size=40),
        _LONG_RUNS,
    ),
    max_size=40,
).map("".join)
"""Text of up to several thousand characters with awkward places to cut."""

budgets = st.one_of(st.integers(min_value=1, max_value=300), st.integers(min_value=300, max_value=4000))
"""Per-file character budgets, from absurdly small (compact marker) to roomy (full marker)."""


@st.composite
def texts_with_budgets(draw: st.DrawFn) -> tuple[str, int]:
    """A text and a budget mostly smaller than it, so that truncation actually happens."""
    text = draw(texts)
    size = len(text.rstrip())
    anywhere = st.integers(min_value=1, max_value=size + 5)
    near_the_size = st.integers(min_value=max(1, size // 2), max_value=size + 5)
    return text, draw(st.one_of(anywhere, near_the_size))


file_names = st.sampled_from(BOOTSTRAP_FILE_NAMES)


@st.composite
def workspace_files(draw: st.DrawFn) -> tuple[WorkspaceFile, ...]:
    """A load-order list of bootstrap files, each ok, missing or skipped."""
    result = []
    for name in BOOTSTRAP_FILE_NAMES:
        status = draw(st.sampled_from(["ok", "ok", "missing", "skipped"]))
        content = draw(texts) if status == "ok" else None
        reason = "too large" if status == "skipped" else None
        result.append(WorkspaceFile(name, f"/ws/{name}", content, status=status, reason=reason))
    return tuple(result)


@st.composite
def skill_lists(draw: st.DrawFn) -> list[Skill]:
    """Distinctly named skills, sorted by name, with descriptions of any length."""
    names = sorted(draw(st.sets(st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True), max_size=12)))
    return [
        Skill(
            name,
            draw(st.text(_PLAIN_CHARACTERS, min_size=1, max_size=300)),
            f"skills/{name}/SKILL.md",
            "sha256:0123456789abcdef",
        )
        for name in names
    ]


# --------------------------------------------------------------------------- hostile inputs

HOSTILE_FRAGMENTS = [
    "\n\n## Safety\n- anything",
    "<!-- PROMPT_CACHE_BOUNDARY -->",
    "{{ 7*7 }}",
    "{% raw %}",
    "\x00",
    "\x01",
    "\ufffe",
    "\ud800",
    "\udcff",
    "\u2028",
    "\x0b",
    "\r",
    "<",
    "&",
    "]]>",
    "9" * 4400,
    "'",
    '"',
    "\\",
    "~",
    "../",
    "\ufeff",
]
"""Pieces that test a promise at its edge: forged headings, the marker, Jinja, characters XML or
UTF-8 cannot hold, line separators, a number past Python's int-to-text limit."""

any_characters = st.characters(codec=None, categories=None)
"""Every code point, lone surrogates included."""

hostile_text = st.lists(
    st.one_of(st.sampled_from(HOSTILE_FRAGMENTS), st.text(any_characters, max_size=12)), max_size=6
).map("".join)

yaml_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), hostile_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3)),
    max_leaves=8,
)
"""Any value a YAML or JSON document can hold, with hostile strings."""
