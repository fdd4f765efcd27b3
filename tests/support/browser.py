"""A real browser for the HTML pages' tests: Debian's headless Chromium driven by Playwright, with a
fresh profile, no network of its own, and every console error, page error and request recorded.

Where Chromium or Playwright is missing the tests skip saying so, unless PROMPTC_BROWSER_REQUIRED
is set (CI sets it), where they fail instead."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
"""Debian's `chromium` package installs the browser here."""
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
WIDE, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
"""The two screen sizes every page is looked at in."""


@dataclass
class Visit:
    """An open page and what it did while loading and being used."""

    page: Any
    """The Playwright page."""
    errors: list[str] = field(default_factory=list)
    """Console errors and uncaught exceptions."""
    requests: list[str] = field(default_factory=list)
    """Every URL the page asked for, the page itself included."""


def missing() -> str | None:
    """Why the browser cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; it is in the test extra)"
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        return "chromium is not installed (apt-get install -y chromium)"
    return None


def require() -> None:
    """Skip the calling test when no browser can run, or fail where one is required."""
    reason = missing()
    if reason is None:
        return
    if os.environ.get("PROMPTC_BROWSER_REQUIRED"):
        pytest.fail(f"the browser test must run here: {reason}")
    pytest.skip(reason)


@contextmanager
def browser() -> Iterator[Any]:
    """A persistent Chromium context on a profile of its own, closed and removed afterwards."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="promptc-chromium-")
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=executable, headless=True, args=list(LAUNCH_ARGS)
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def visit(context: Any, path: Path, size: dict[str, int]) -> Visit:
    """Open a local HTML file at a screen size, recording errors and requests."""
    page = context.new_page()
    page.set_viewport_size(size)
    seen = Visit(page)
    page.on("console", lambda message: seen.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    page.on("request", lambda request: seen.requests.append(request.url))
    page.goto(path.resolve().as_uri())
    page.wait_for_load_state("load")
    return seen
