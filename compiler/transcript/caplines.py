"""Lines of a transcript read under a cap: a line over it is never held whole, only passed on in
chunks (a repair copies it as it was)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, count
from typing import BinaryIO

COPY_CHUNK = 1024 * 1024
"""Bytes read at a time from a line too long to hold."""


def lines_of(handle: BinaryIO, cap: int) -> Iterator[tuple[int, bytes | Iterator[bytes]]]:
    """(line number, line) per line; a line over `cap` bytes comes as an iterator over its bytes in
    chunks, never joined into one object, and is skipped here if the caller does not read it."""
    for number in count(1):
        pieces = _pieces_up_to(handle, cap)
        if not pieces:
            return
        if sum(map(len, pieces)) <= cap:
            yield number, b"".join(pieces)
            continue
        chunks = chain(pieces, _rest_of_line(handle, pieces[-1]))
        yield number, chunks
        for _ in chunks:
            pass


def _pieces_up_to(handle: BinaryIO, cap: int) -> list[bytes]:
    """The next line in pieces of at most COPY_CHUNK bytes, stopping once it is known to be over `cap`."""
    pieces: list[bytes] = []
    size = 0
    while size <= cap and not (pieces and pieces[-1].endswith(b"\n")):
        piece = handle.readline(min(COPY_CHUNK, cap + 1 - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return pieces


def _rest_of_line(handle: BinaryIO, last: bytes) -> Iterator[bytes]:
    if last.endswith(b"\n"):
        return
    while chunk := handle.readline(COPY_CHUNK):
        yield chunk
        if chunk.endswith(b"\n"):
            return
