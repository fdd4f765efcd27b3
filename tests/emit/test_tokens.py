"""Token counting (emit/tokens.py): exact o200k_base offline when the extra is installed, else an estimate."""

from __future__ import annotations

import importlib.util
import socket

import pytest

from promptc.emit import tokens

from support.paths import CORPUS

EXTRA_INSTALLED = all(importlib.util.find_spec(name) for name in ("tiktoken", "bpe_openai"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("abcd", 1), ("abcde", 2), ("é", 1), ("😀😀", 2), ("a" * 401, 101)],
)
def test_estimate_is_utf8_bytes_over_four_rounded_up(text: str, expected: int) -> None:
    assert tokens.estimate(text) == expected


def test_count_matches_the_extra_being_installed() -> None:
    if EXTRA_INSTALLED:
        # o200k_base splits "hello world" into "hello" + " world".
        assert tokens.count("hello world") == 2
        assert tokens.describe().startswith("exact (o200k_base")
    else:
        assert tokens.count("hello world") is None
        assert tokens.describe().startswith("estimate")


def test_special_token_text_is_counted_as_ordinary_text() -> None:
    counted = tokens.count("<|endoftext|>")
    assert counted is None or counted > 1


def test_encoding_is_built_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("network used")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    tokens._encoding.cache_clear()
    try:
        assert (tokens.count("offline") is not None) is EXTRA_INSTALLED
    finally:
        tokens._encoding.cache_clear()


def test_without_the_extra_counts_are_none_and_reports_say_estimate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "_encoding", lambda name=None: None)
    assert tokens.count("hello world") is None
    assert "estimate" in tokens.describe()


SAMPLES = [
    "hello world",
    "Größe: 12 345 — ünïcödé\n\n```py\nx = 1\n```",
    "😀 emoji and 漢字, tabs\tand  spaces  ",
    "<|endoftext|> is text here",
]

# tiktoken's own definitions of the two encodings (split pattern, special tokens), so a reference
# tokenizer can be built here from the ranks the bpe-openai wheel ships, independently of the
# Rust tokenizer promptc counts with.
_UPPER, _LOWER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"
_CONTRACTIONS = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
REFERENCE_PATTERNS = {
    "o200k_base": "|".join(
        [
            rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}*{_LOWER}+{_CONTRACTIONS}",
            rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}+{_LOWER}*{_CONTRACTIONS}",
            r"\p{N}{1,3}",
            r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
            r"\s*[\r\n]+",
            r"\s+(?!\S)",
            r"\s+",
        ]
    ),
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
}


def _tiktoken_reference(encoding: str):
    import binascii
    import gzip

    import tiktoken

    folder = importlib.util.find_spec("bpe_openai").submodule_search_locations[0]
    with open(f"{folder}/data/{encoding}.tiktoken.gz", "rb") as packed:
        words = gzip.decompress(packed.read()).split()
    ranks = dict(zip(map(binascii.a2b_base64, words[0::2]), map(int, words[1::2])))
    return tiktoken.Encoding(
        name=encoding, pat_str=REFERENCE_PATTERNS[encoding], mergeable_ranks=ranks, special_tokens={}
    )


@pytest.mark.skipif(not EXTRA_INSTALLED, reason="the tokens extra is not installed")
@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
def test_counts_agree_with_tiktoken_built_from_the_same_ranks(encoding: str) -> None:
    reference = _tiktoken_reference(encoding)
    texts = list(SAMPLES)
    if CORPUS.is_dir():  # real prose in many languages, when the shared corpus is there
        texts += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.glob("*/SOUL.md"))[:12]]
    for text in texts:
        assert tokens.count(text, encoding) == len(reference.encode_ordinary(text)), text[:80]


@pytest.mark.parametrize(
    ("model", "encoding", "exact"),
    [
        ("openai/gpt-5.5", "o200k_base", True),
        ("openai/gpt-4o", "o200k_base", True),
        ("openai/gpt-4", "cl100k_base", True),
        ("gpt-3.5-turbo", "cl100k_base", True),
        ("anthropic/claude-sonnet-4-5", "o200k_base", False),
        ("google/gemini-2.5-pro", "o200k_base", False),
        ("openai/text-davinci-003", "o200k_base", False),  # p50k is not shipped
        ("mistral-large", "o200k_base", False),
    ],
)
def test_each_model_is_counted_with_its_own_encoding_or_labelled_an_estimate(
    model: str, encoding: str, exact: bool
) -> None:
    assert tokens.method(model) == tokens.Method(encoding, exact)
    if EXTRA_INSTALLED:
        label = tokens.describe(model)
        assert label.startswith(f"exact ({encoding}") if exact else label.startswith("estimate (o200k)")


def test_the_context_report_labels_an_anthropic_prompt_as_an_estimate(run_cli, make_workspace, write_yaml):
    import json

    run = write_yaml("run.yaml", "model: anthropic/claude-sonnet-4-5\n")
    code, out, _ = run_cli("context", "--workspace", make_workspace({}), "--run", run, "--format", "json")
    method = json.loads(out)["tokens"]
    assert code == 0 and method["exact"] is False and method["method"].startswith("estimate")


@pytest.mark.skipif(not EXTRA_INSTALLED, reason="the tokens extra is not installed")
def test_counting_never_imports_bpe_openai_itself() -> None:
    import subprocess
    import sys

    code = "import sys; from promptc.emit import tokens; assert tokens.count('hi') == 1; print('bpe_openai' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
