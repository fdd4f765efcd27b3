"""Running an action that must not block: the tests of FIFOs, devices and locks."""

from __future__ import annotations

import threading
from typing import Any


def within_seconds(action, seconds: float = 5.0) -> dict[str, Any]:
    """Run `action` in a thread; fail (instead of hanging the suite) if it does not return. The
    result holds `value` (what it returned) or `error` (what it raised)."""
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["value"] = action()
        except BaseException as error:
            result["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the action blocked"
    return result
