"""Reading the HTML pages promptc writes without a browser: what could make one fetch something,
and the cells of a table's body rows."""

from __future__ import annotations

import re
from html.parser import HTMLParser

FETCHING_ATTRIBUTES = ("src", "href", "action", "srcset", "poster", "data")
"""Attributes whose value a browser may load (a `#fragment` stays in the page)."""
EMBEDDING_TAGS = {"img", "link", "iframe", "object", "embed", "video", "audio"}
"""Tags that bring another resource into a page."""


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.fetching: list[tuple[str, str, str]] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        for name, value in attrs:
            if name in FETCHING_ATTRIBUTES and not (value or "").startswith("#"):
                self.fetching.append((tag, name, value or ""))


def assert_self_contained(page: str) -> None:
    """Nothing in `page` points outside it: no fetching attribute, no embedding tag, no address
    written anywhere (even as text), and only the one inline script."""
    links = _Links()
    links.feed(page)
    assert links.fetching == []
    assert not (EMBEDDING_TAGS & links.tags)
    assert re.search(r"[a-z][a-z0-9+.-]*://", page, flags=re.IGNORECASE) is None
    assert page.count("<script>") == 1 and "<script " not in page


class BodyRows(HTMLParser):
    """The text of every cell of every body row of the tables fed to it."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows.append([])
        elif tag == "td" and self._in_body:
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False

    def handle_data(self, data: str) -> None:
        if self._in_body and self.rows and self.rows[-1]:
            self.rows[-1][-1] += data
