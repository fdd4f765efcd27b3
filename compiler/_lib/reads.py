"""What a stage says about each input it reads, so that a warm compiler can tell later whether the
input changed. The stages only report; `warm.freshness.Tracker` keeps the reports and checks them."""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from typing import Protocol


class Recorder(Protocol):
    """Told about every file, directory listing, absent path and environment variable a stage used."""

    def file(self, path: str, info: os.stat_result, data: bytes) -> None:
        """A file was read: `info` is the fstat of what was opened, `data` what was read."""

    def listing(
        self,
        path: str,
        info: os.stat_result,
        value: Hashable,
        relist: Callable[[], Hashable],
        interest: frozenset[str] | None = None,
    ) -> None:
        """A directory's listing was used: `value` is what the stage took from it, `relist` takes it
        again, `interest` names the entries that matter (None: all of them)."""

    def missing(self, path: str) -> None:
        """A path did not exist (or was a dangling link) when the stage looked."""

    def env(self, name: str, value: str | None) -> None:
        """An environment variable was consulted, with the value it had."""

    def refused(self, path: str) -> None:
        """A path the stage found but would not read (a link out of bounds, a file too large): it
        may become usable, so a change to what it is counts as a change."""


class _Unrecorded:
    """A Recorder that keeps nothing, for a read no one will check again."""

    def file(self, path: str, info: os.stat_result, data: bytes) -> None:
        pass

    def listing(
        self,
        path: str,
        info: os.stat_result,
        value: Hashable,
        relist: Callable[[], Hashable],
        interest: frozenset[str] | None = None,
    ) -> None:
        pass

    def missing(self, path: str) -> None:
        pass

    def env(self, name: str, value: str | None) -> None:
        pass

    def refused(self, path: str) -> None:
        pass


UNRECORDED: Recorder = _Unrecorded()
"""The Recorder of a one-off read."""
