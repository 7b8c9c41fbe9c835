"""Read a news corpus: JSON lines (optionally gzipped) in the format of ``shared/data/README.md``.

Every line is one article::

    {"url": ..., "published": "2014-05-12T10:30:00-04:00", "title": ..., "summary": ...,
     "body": ..., "sections": [...], "authors": [...], "kind": ..., "links": [...]}

``url``, ``published`` (ISO 8601 with a UTC offset) and ``title`` are required; the other fields
may be missing or empty. A bad line (invalid JSON, a missing required field, an unparsable or
offset-less date, a URL seen before) is logged once with its line number, counted, and skipped:
it never stops the load and never becomes a silently wrong article. A corpus with no valid
article at all is an error.
"""

from __future__ import annotations

import gzip
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Iterable, Iterator

logger = logging.getLogger(__name__)

REQUIRED_FIELDS = ("url", "published", "title")


class CorpusError(ValueError):
    """The corpus cannot be used at all (missing file, no valid article)."""


@dataclass(frozen=True)
class Article:
    url: str
    published: datetime  # timezone-aware
    title: str
    summary: str = ""
    body: str = ""
    sections: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    kind: str = ""
    links: tuple[str, ...] = ()
    lineno: int = 0

    @property
    def text(self) -> str:
        """Title, summary and body joined: what a reader of the article page sees."""
        return "\n".join(part for part in (self.title, self.summary, self.body) if part)


@dataclass(frozen=True)
class SkippedLine:
    lineno: int
    reason: str


@dataclass
class Corpus:
    articles: list[Article]
    skipped: list[SkippedLine] = field(default_factory=list)
    source: str = ""

    def __len__(self) -> int:
        return len(self.articles)

    def __iter__(self) -> Iterator[Article]:
        return iter(self.articles)


def parse_published(value: object) -> datetime:
    """Parse an ISO 8601 timestamp that carries a UTC offset; raise ``ValueError`` otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError("published is empty or not a string")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"published {value!r} is not an ISO 8601 date") from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise ValueError(f"published {value!r} has no UTC offset")
    return parsed


def _string_list(value: object, name: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{name} must be a list of strings")
    return tuple(v for v in value if v)


def _optional_string(value: object, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string")
    return value


def parse_article(record: object, lineno: int = 0) -> Article:
    """Validate one decoded corpus record; raise ``ValueError`` naming what is wrong."""
    if not isinstance(record, dict):
        raise ValueError("line is not a JSON object")
    for name in REQUIRED_FIELDS:
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"missing or empty {name!r}")
    url = record["url"].strip()
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"url {url!r} is not an http(s) URL")
    return Article(
        url=url,
        published=parse_published(record["published"]),
        title=record["title"].strip(),
        summary=_optional_string(record.get("summary"), "summary"),
        body=_optional_string(record.get("body"), "body"),
        sections=_string_list(record.get("sections"), "sections"),
        authors=_string_list(record.get("authors"), "authors"),
        kind=_optional_string(record.get("kind"), "kind"),
        links=_string_list(record.get("links"), "links"),
        lineno=lineno,
    )


def _open_lines(path: Path) -> Iterable[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def iter_records(lines: Iterable[str], skipped: list[SkippedLine]) -> Iterator[Article]:
    """Yield the valid articles of ``lines``; append one :class:`SkippedLine` per bad line."""
    seen: set[str] = set()
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            reason = f"invalid JSON ({exc.msg})"
        else:
            try:
                article = parse_article(record, lineno)
            except ValueError as exc:
                reason = str(exc)
            else:
                if article.url in seen:
                    reason = f"duplicate url {article.url!r}"
                else:
                    seen.add(article.url)
                    yield article
                    continue
        skipped.append(SkippedLine(lineno, reason))
        logger.warning("corpus line %d skipped: %s", lineno, reason)


def load_corpus(path: str | Path, sort: bool = True) -> Corpus:
    """Load a ``.jsonl`` or ``.jsonl.gz`` corpus; articles sorted by publication time."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(f"corpus file {str(path)!r} does not exist")
    skipped: list[SkippedLine] = []
    try:
        with _open_lines(path) as lines:
            articles = list(iter_records(lines, skipped))
    except (OSError, EOFError) as exc:  # truncated gzip, unreadable file
        raise CorpusError(f"cannot read corpus {str(path)!r}: {exc}") from exc
    if not articles:
        raise CorpusError(
            f"corpus {str(path)!r} has no valid article ({len(skipped)} line(s) skipped)"
        )
    if sort:
        articles.sort(key=lambda a: (a.published, a.lineno))
    if skipped:
        logger.warning("corpus %s: %d line(s) skipped, %d articles loaded",
                       path, len(skipped), len(articles))
    return Corpus(articles=articles, skipped=skipped, source=str(path))


def default_corpus_path() -> Path | None:
    """``../shared/data/digitalgov.jsonl.gz`` relative to the repository root, when present."""
    candidate = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "digitalgov.jsonl.gz"
    return candidate if candidate.is_file() else None
