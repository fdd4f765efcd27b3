"""Token counts for reports: exact with the `tokens` extra for the OpenAI models whose encoding
is known, an o200k count labelled as an estimate for every other model, else bytes / 4.

The one encoding needed is built from the rank file the `bpe-openai` wheel ships, read directly
(importing bpe_openai builds every encoding it has, then o200k would be built a second time),
once per process and without the network.
"""

from __future__ import annotations

import binascii
import importlib.util
import os
import threading
import zlib
from dataclasses import dataclass
from typing import Any

ENCODING_NAME = "o200k_base"
"""The encoding used when the model's own is not known."""
BYTES_PER_TOKEN = 4
OPENAI_PROVIDERS = frozenset({"openai", "openai-codex", "codex", "azure-openai", "azure-openai-responses"})
"""Providers that serve OpenAI's own models, whose tokenizers tiktoken names."""

# The split patterns and special tokens of the two encodings the wheel ships, as tiktoken
# defines them (tests/test_tokens.py checks that counts agree with bpe-openai's own tokenizer).
_LETTERS_UPPER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"
_LETTERS_LOWER = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
_CONTRACTIONS = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
PATTERNS: dict[str, str] = {
    "o200k_base": "|".join([
        rf"[^\r\n\p{{L}}\p{{N}}]?{_LETTERS_UPPER}*{_LETTERS_LOWER}+{_CONTRACTIONS}",
        rf"[^\r\n\p{{L}}\p{{N}}]?{_LETTERS_UPPER}+{_LETTERS_LOWER}*{_CONTRACTIONS}",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]),
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
}  # fmt: skip
SPECIAL_TOKENS: dict[str, dict[str, int]] = {
    "o200k_base": {"<|endoftext|>": 199_999, "<|endofprompt|>": 200_018},
    "cl100k_base": {"<|endoftext|>": 100_257, "<|fim_prefix|>": 100_258, "<|fim_middle|>": 100_259,
                    "<|fim_suffix|>": 100_260, "<|endofprompt|>": 100_276},
}  # fmt: skip


@dataclass(frozen=True)
class Method:
    """How the tokens of a prompt for one model are counted."""

    encoding: str
    """The tiktoken encoding used."""
    exact: bool
    """True when it is the model's own tokenizer; else the count is an estimate."""


def method(model: str | None) -> Method:
    """The model's own encoding for OpenAI models tiktoken knows; otherwise o200k, as an estimate.

    `model` is `provider/model` (or a bare OpenAI model name); None counts with o200k.
    """
    if model is None:
        return Method(ENCODING_NAME, True)
    provider, _, name = model.rpartition("/")
    if provider and provider.lower() not in OPENAI_PROVIDERS:
        return Method(ENCODING_NAME, False)
    encoding = _encoding_for_model(name)
    return Method(encoding, True) if encoding in PATTERNS else Method(ENCODING_NAME, False)


def _encoding_for_model(name: str) -> str | None:
    try:
        from tiktoken.model import encoding_name_for_model
    except ImportError:
        return None
    try:
        return encoding_name_for_model(name)
    except KeyError:
        return None


def count(text: str, encoding: str = ENCODING_NAME) -> int | None:
    """The token count in `encoding`, or None when the `tokens` extra is not installed.

    Special-token text such as `<|endoftext|>` is counted as ordinary text.
    """
    found = _encoding() if encoding == ENCODING_NAME else _encoding(encoding)
    if found is None:
        return None
    return len(found.encode_ordinary(text))


def count_for(text: str, model: str | None) -> int:
    """Tokens as `describe(model)` says they are counted (bytes / 4 without the extra)."""
    exact = count(text, method(model).encoding)
    return estimate(text) if exact is None else exact


def estimate(text: str) -> int:
    """A rough count: UTF-8 bytes divided by four, rounded up."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


def describe(model: str | None = None) -> str:
    """Which counting method is active for this model, for labelling reports."""
    chosen = method(model)
    if (_encoding() if chosen.encoding == ENCODING_NAME else _encoding(chosen.encoding)) is None:
        return "estimate (UTF-8 bytes / 4; install promptc[tokens] for exact counts)"
    if chosen.exact:
        return f"exact ({chosen.encoding} via tiktoken)"
    return f"estimate ({chosen.encoding.removesuffix('_base')}): {model} counts with its own tokenizer"


class _Encodings:
    """Each encoding built once per process, also when threads ask for it at the same time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._built: dict[str, Any] = {}

    def __call__(self, name: str = ENCODING_NAME) -> Any:
        with self._lock:
            if name not in self._built:
                self._built[name] = _build(name)
            return self._built[name]

    def cache_clear(self) -> None:
        with self._lock:
            self._built.clear()


_encoding = _Encodings()


def _build(name: str) -> Any:
    """The encoding built from the ranks shipped in the bpe-openai wheel, or None."""
    try:
        import tiktoken
    except ImportError:
        return None
    ranks = _shipped_ranks(name)
    if ranks is None:
        return None
    return tiktoken.Encoding(name=name, pat_str=PATTERNS[name], mergeable_ranks=ranks, special_tokens=SPECIAL_TOKENS[name])


def _shipped_ranks(name: str) -> dict[bytes, int] | None:
    """`bpe_openai/data/<name>.tiktoken.gz` parsed: one `base64-token rank` pair per line.

    The package is located, not imported.
    """
    try:
        spec = importlib.util.find_spec("bpe_openai")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "data", f"{name}.tiktoken.gz")
    try:
        with open(path, "rb") as handle:
            words = zlib.decompress(handle.read(), wbits=31).split()  # 31: gzip framing
    except (OSError, zlib.error):
        return None
    return dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))
