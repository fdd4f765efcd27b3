"""Token counting: exact o200k_base offline when the extra is installed, else an estimate."""

from __future__ import annotations

import importlib.util
import socket

import pytest

from promptc.emit import tokens

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
