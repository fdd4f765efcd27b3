"""Token counts for reports: exact with the `tokens` extra for the OpenAI models whose encoding
is known, an o200k count labelled as an estimate for every other model, else bytes / 4.

Counting uses the Rust tokenizer that the `bpe-openai` wheel ships (its o200k_base and
cl100k_base give tiktoken's counts; tests/emit/test_tokens.py checks it against tiktoken on real
text). Its extension module is loaded directly: importing the `bpe_openai` package builds
every encoding it has, about half a second, where building the one needed takes a tenth of
that. tiktoken supplies only the table of which OpenAI model uses which encoding. No network.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

ENCODING_NAME = "o200k_base"
"""The encoding used when the model's own is not known."""
BYTES_PER_TOKEN = 4
OPENAI_PROVIDERS = frozenset({"openai", "openai-codex", "codex", "azure-openai", "azure-openai-responses"})
"""Providers that serve OpenAI's own models, whose tokenizers tiktoken names."""

SHIPPED_ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base")
"""The encodings the bpe-openai wheel ships that OpenAI models use."""


@dataclass(frozen=True, slots=True)
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
    return Method(encoding, True) if encoding in SHIPPED_ENCODINGS else Method(ENCODING_NAME, False)


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
    return int(found.count(text))


def encode(text: str, encoding: str = ENCODING_NAME) -> list[int] | None:
    """The token ids of `text` in `encoding`, or None when the `tokens` extra is not installed."""
    found = _encoding() if encoding == ENCODING_NAME else _encoding(encoding)
    return None if found is None else list(found.encode(text))


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
        return f"exact ({chosen.encoding} via bpe-openai)"
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
    """The shipped tokenizer for one encoding (it has `.count(text)`), or None without the extra."""
    bindings = _bindings()
    if bindings is None or name not in SHIPPED_ENCODINGS:
        return None
    try:
        return bindings.tokenizer_for_encoding(name)
    except Exception:
        return None


_BINDINGS_NAME = "bpe_openai._bindings"


def _bindings() -> Any:
    """bpe-openai's extension module, loaded from its file without importing the package.

    It is registered under its own name, so a later `import bpe_openai` reuses it instead of
    initialising the extension a second time.
    """
    if _BINDINGS_NAME in sys.modules:
        return sys.modules[_BINDINGS_NAME]
    path = _extension_path()
    if path is None:
        return None
    loader = importlib.machinery.ExtensionFileLoader(_BINDINGS_NAME, path)
    spec = importlib.util.spec_from_file_location(_BINDINGS_NAME, path, loader=loader)
    if spec is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        loader.exec_module(module)
    except ImportError:
        return None
    sys.modules[_BINDINGS_NAME] = module
    return module


def _extension_path() -> str | None:
    """Where the installed bpe_openai package keeps `_bindings` (the package is located, not imported)."""
    try:
        spec = importlib.util.find_spec("bpe_openai")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = next(iter(spec.submodule_search_locations))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = os.path.join(folder, "_bindings" + suffix)
        if os.path.isfile(candidate):
            return candidate
    return None
