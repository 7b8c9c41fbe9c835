"""What the page-reading tests share: a story's URL, a page around a body, links, and the
site's clock they read dates on."""

from __future__ import annotations

from datetime import UTC, datetime

URL = "https://news.example.org/world/story-17"
NOW = datetime(2024, 3, 6, 12, 0, tzinfo=UTC)


def page(body: str = "", head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


def anchors(n: int, start: int = 0) -> str:
    return "".join(f'<a href="/s/{i}">story {i}</a>' for i in range(start, start + n))
