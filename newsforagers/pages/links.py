"""A page's links: its hrefs resolved against its ``<base href>``, kept when they are http(s)
links, without fragment and without session ids (a crawler trap), deduplicated in document
order and read under the ``max_links`` cap; the feeds it announces (``<link
rel="alternate">`` of type RSS or Atom), resolved the same way; and each link's context, the
words a topical crawler judges an unvisited page by (:func:`link_contexts`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterator, Mapping
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit, urlunsplit

from w3lib.url import safe_url_string

from newsforagers.pages.piece import PIECE_ELEMENTS

# Session ids in links (see _without_session_id); the hint keeps the common case cheap.
_SESSION_HINT = re.compile(r"sid|session", re.I)
_SESSION_PATH_PARAM = re.compile(r";(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*", re.I)
_SESSION_NAMES = frozenset({"jsessionid", "phpsessid", "sessionid", "session_id", "sessid"})
_TOKEN = re.compile(r"[0-9A-Za-z_-]{16,}")


def base_url(url: str, root: Any) -> str:
    """What the page's hrefs are relative to: its ``<base href>`` (itself relative to the
    page's URL), else the page's URL."""
    if root is None:
        return url
    # lxml's own iteration stops at the first <base href> (in <head>): no pass over the page
    base_href = next((e.get("href") for e in root.iter("base") if e.get("href") is not None), None)
    if base_href and base_href.strip():
        try:
            return urljoin(url, base_href.strip())
        except ValueError:
            pass
    return url


def read_links(base: str, root: Any,
               max_links: int = 0) -> tuple[tuple[str, ...], int, int, dict[str, str | None]]:
    """The page's links (hrefs resolved against ``base``), the number of them that had a
    session id, how many hrefs were not read, and what each href read resolved to.

    At most ``max_links`` distinct hrefs are read (0: all), the first ones, and no more than
    ``max(max_links, PIECE_ELEMENTS)`` anchors (``<a>``, ``<area>``) for them: a page of a
    million copies of one link is not read to its end either."""
    if root is None:
        return (), 0, 0, {}
    links: dict[str, None] = {}
    # Navigation menus repeat the same hrefs many times: resolving each once matters.
    resolved: dict[str, str | None] = {}
    session_ids = 0
    capped = 0
    read = 0
    anchors = max(max_links, PIECE_ELEMENTS)
    # lxml's own walk, in document order, stopped at the cap: an XPath would list every href
    # first, and put them in document order, which costs seconds on a tree 2,000 levels deep.
    for element in root.iter("a", "area"):
        href = element.get("href")
        if href is None:
            continue
        if max_links and (read >= anchors or (href not in resolved and len(resolved) >= max_links)):
            # what is left is only counted (libxml2 counts without ordering anything)
            capped = int(root.xpath("count(//a/@href) + count(//area/@href)")) - read
            break
        read += 1
        if href in resolved:
            continue
        link, stripped = resolve_link(base, href)
        resolved[href] = link
        if link is not None:
            session_ids += stripped
            links[link] = None
    return tuple(links), session_ids, capped, resolved


#: The ``type`` of a ``<link rel="alternate">`` that announces a feed the crawler reads.
FEED_TYPES = frozenset({"application/rss+xml", "application/atom+xml"})


def feed_links(base: str, root: Any, max_feeds: int = 0) -> tuple[str, ...]:
    """The feeds the page announces: ``href`` of its ``<link rel="alternate">`` (``rel`` may
    hold other words too) whose ``type`` is RSS or Atom (:data:`FEED_TYPES`), resolved
    against ``base`` as links are, deduplicated in document order, the first ``max_feeds``
    (0: all)."""
    if root is None:
        return ()
    feeds: dict[str, None] = {}
    for element in root.iter("link"):
        href = element.get("href")
        if href is None or "alternate" not in (element.get("rel") or "").lower().split():
            continue
        if (element.get("type") or "").split(";", 1)[0].strip().lower() not in FEED_TYPES:
            continue
        link = resolve_link(base, href)[0]
        if link is not None:
            feeds[link] = None
            if max_feeds and len(feeds) >= max_feeds:
                break
    return tuple(feeds)


#: Words of text taken on each side of a link's anchor text for its context
#: (:func:`link_contexts`).
LINK_CONTEXT_WINDOW = 10

# Where a link's context stops: the blocks that enclose a link's text (Pant & Srinivasan's
# nearest "aggregation node" of the tag tree, read as the nearest block), and the tags that
# break a line inside one: text across them is on another line when rendered, and describes
# something else (the next list item, table row, paragraph).
_CONTEXT_BLOCKS = frozenset(
    {"p", "li", "td", "th", "div", "article", "section", "h1", "h2", "h3", "h4", "h5", "h6",
     "dd", "dt", "blockquote"}
)
_CONTEXT_BOUNDARIES = _CONTEXT_BLOCKS | frozenset(
    {"html", "head", "title", "body", "br", "hr", "ul", "ol", "dl", "table", "caption",
     "thead", "tbody", "tfoot", "tr", "header", "footer", "nav", "main", "aside", "figure",
     "figcaption", "form", "fieldset", "legend", "pre", "address", "details", "summary",
     "option"}
)
# Raw-text elements: what they hold is code, never words of the page (nor anchors).
_CONTEXT_SKIPPED = frozenset({"script", "style"})
_WORD = re.compile(r"\S+")


def link_contexts(base: str, root: Any, max_links: int = 0,
                  window: int = LINK_CONTEXT_WINDOW) -> dict[str, str]:
    """The context of each of the page's links: its anchor text with up to ``window`` words of
    the text on each side, inside the anchor's nearest enclosing block.

    Pant & Srinivasan ("Link contexts in classifier-guided topical crawlers", *IEEE TKDE*
    18(1), 2006) define a link's context as the terms around the hyperlink; Mouton & Marteau
    (2008, Sect. IV.A) score links by the tf·idf relevance of contexts "extracted according
    to the recommendation of Pant & al." (:meth:`newsforagers.text.topic.Topic.relevance`).
    Pant & Srinivasan found that a crawler using the words in the immediate vicinity of a
    link together with the whole parent page beats one using either alone, and that the tag
    tree's hierarchy gives good contexts; we could not read which window size they found
    best, so ``window`` defaults to 10 words on each side (:data:`LINK_CONTEXT_WINDOW`), an
    assumption to revisit by measurement. Combining the context with the parent page's own
    relevance is the caller's choice.

    Words are runs of non-space characters of the text as rendered: inline tags do not break
    a word (``"<b>W</b>ord"`` is one word) but for the anchor's own edges, and a ``<br>`` or
    a block does. The window
    stops at the boundaries of the anchor's nearest enclosing block (``p``, ``li``, ``td``,
    ``th``, ``div``, ``article``, ``section``, ``h1``-``h6``, ``dd``, ``dt``,
    ``blockquote``) and at the line breaks inside it (``br``, lists, tables, rows, ...), so
    it never runs into the next list item or paragraph. The anchor text is all the text
    inside the anchor, whatever blocks it holds (a news card's headline and summary), plus
    the ``alt`` of its images (the ``alt`` of an ``<area>``). ``<script>`` and ``<style>``
    hold no words. A link without any text has the words around it as its context, or "".

    Links are read as :func:`read_links` reads them (``<a>`` and ``<area>`` hrefs resolved
    against ``base``, http(s) only, without fragment or session id; at most ``max_links``
    distinct hrefs, the first ones, 0: all), so the keys are its links in the same order. A
    link found more than once gets its distinct contexts joined, in document order, by a
    space: a news front often links a story from a thumbnail without text and then from its
    headline, and the headline is the context that counts.

    ``window`` must be an integer >= 0 (0: the anchor text alone), else ``ValueError``.
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise ValueError(f"window ({window!r}) must be an integer >= 0 (0: anchor text only).")
    if root is None:
        return {}
    walk = _ContextWalk(base, max_links, window)
    walk.run(root)
    return walk.contexts()


class DeferredContexts(Mapping):
    """The link contexts (:func:`link_contexts`) of some of a page's links, ``urls``, worked
    out on the first read of any of them, not before: a caller that may need none (a
    listing visited again shows no story it has not queued) pays no walk for it. A url of
    ``urls`` without any context, or not among them, is missing. The page's ``root`` is
    held until then."""

    def __init__(self, base: str, root: Any, urls: Collection[str], max_links: int = 0):
        self._base, self._root, self._urls, self._max_links = base, root, urls, max_links
        self._contexts: dict[str, str] | None = None

    @property
    def walked(self) -> bool:
        """Whether the page has been walked (a context read, or the mapping's size)."""
        return self._contexts is not None

    def _walk(self) -> dict[str, str]:
        if self._contexts is None:
            contexts = link_contexts(self._base, self._root, self._max_links)
            self._contexts = {url: contexts[url] for url in self._urls if contexts.get(url)}
            self._root = None
        return self._contexts

    def __getitem__(self, url: str) -> str:
        return self._walk()[url]

    def __iter__(self) -> Iterator[str]:
        return iter(self._walk())

    def __len__(self) -> int:
        return len(self._walk())


class _ContextWalk:
    """One pass over the page's text in document order: the text with the character offsets
    of every block boundary, and each link's anchor as a (start, end) offset pair; the
    contexts are cut from them afterwards (linear in the page, however many links)."""

    def __init__(self, base: str, max_links: int, window: int):
        self.base = base
        self.max_links = max_links
        self.window = window
        self.parts: list[str] = []
        self.size = 0
        self.bounds: list[int] = []
        # [link, start, boundaries before start, end, boundaries before end]
        self.anchors: list[list[Any]] = []
        self.open: list[tuple[Any, int]] = []  # anchor elements being read, their index
        self.resolved: dict[str, str | None] = {}
        self.read = 0
        self.budget = max(max_links, PIECE_ELEMENTS)
        self.capped = False
        # Past the cap, the walk goes on only until the last link's window is full.
        self.words_after = 0
        self.in_word = False
        self.done = False

    def run(self, root: Any) -> None:
        # An explicit stack, as visible_text: parsel parses with huge_tree, and a broken page
        # can nest deeper than Python's recursion limit.
        self.start(root)
        stack: list[tuple[Any, Iterator[Any]]] = [(root, iter(root))]
        while stack and not self.done:
            element, children = stack[-1]
            node = next(children, None)
            if node is None:
                stack.pop()
                self.end(element)
                if stack:
                    self.add(element.tail)
                continue
            tag = node.tag
            # Comments and processing instructions have a non-string tag; their tail, like
            # that of a skipped element, is the parent's text.
            if not isinstance(tag, str) or tag in _CONTEXT_SKIPPED:
                self.add(node.tail)
                continue
            self.start(node)
            stack.append((node, iter(node)))

    def start(self, element: Any) -> None:
        tag = element.tag
        if tag in _CONTEXT_BOUNDARIES:
            self.boundary()
        if tag in ("a", "area"):
            self.anchor(element)
        elif tag == "img" and self.open:
            self.add(f" {element.get('alt') or ''} ")
        self.add(element.text)

    def end(self, element: Any) -> None:
        if self.open and self.open[-1][0] is element:
            index = self.open.pop()[1]
            self.anchors[index][3:] = [self.size, len(self.bounds)]
            if self.capped and not self.open:
                self.words_after, self.in_word = 0, False
                self.done = self.done or self.window == 0
        if element.tag in _CONTEXT_BOUNDARIES:
            self.boundary()

    def anchor(self, element: Any) -> None:
        href = element.get("href")
        if href is None or self.capped:
            return
        # read_links' cap, word for word
        if self.max_links and (self.read >= self.budget or (
                href not in self.resolved and len(self.resolved) >= self.max_links)):
            self.capped = True
            self.done = not self.open and (self.window == 0 or not self.anchors)
            return
        self.read += 1
        if href not in self.resolved:
            self.resolved[href] = resolve_link(self.base, href)[0]
        link = self.resolved[href]
        if link is None:
            return
        self.open.append((element, len(self.anchors)))
        self.anchors.append([link, self.size, len(self.bounds), self.size, len(self.bounds)])
        if element.tag == "area":
            self.add(f" {element.get('alt') or ''} ")

    def boundary(self) -> None:
        self.bounds.append(self.size)
        self.add(" ")
        if self.capped and not self.open:
            self.done = True

    def add(self, text: str | None) -> None:
        if not text:
            return
        self.parts.append(text)
        self.size += len(text)
        if self.capped and not self.open:
            words = len(_WORD.findall(text))
            if words and self.in_word and not text[0].isspace():
                words -= 1  # the word the previous piece began goes on
            self.words_after += words
            self.in_word = not text[-1].isspace()
            # more than ``window`` words begun: the first ``window`` are whole
            if self.words_after > self.window:
                self.done = True

    def contexts(self) -> dict[str, str]:
        text = "".join(self.parts)
        bounds = self.bounds
        found: dict[str, list[str]] = {}
        for link, start, before, end, after in self.anchors:
            low = bounds[before - 1] if before else 0
            high = bounds[after] if after < len(bounds) else len(text)
            context = " ".join(
                _last_words(text, low, start, self.window)
                + text[start:end].split()
                + _first_words(text, end, high, self.window)
            )
            contexts = found.setdefault(link, [])
            if context and context not in contexts:
                contexts.append(context)
        return {link: " ".join(contexts) for link, contexts in found.items()}


def _last_words(text: str, low: int, high: int, n: int) -> list[str]:
    """The last ``n`` words of ``text[low:high]``, reading no more of it than they need."""
    span = 16 * n + 16
    while n:
        cut = max(low, high - span)
        words = text[cut:high].split()
        # a slice that starts inside the text may start inside a word: one more is needed
        if cut == low or len(words) > n:
            return words[-n:]
        span *= 2
    return []


def _first_words(text: str, low: int, high: int, n: int) -> list[str]:
    """The first ``n`` words of ``text[low:high]``, reading no more of it than they need."""
    span = 16 * n + 16
    while n:
        cut = min(high, low + span)
        words = text[low:cut].split()
        if cut == high or len(words) > n:
            return words[:n]
        span *= 2
    return []


def resolve_link(base: str, href: str) -> tuple[str | None, bool]:
    """The link ``href`` stands for (None: not an http(s) link), and whether a session id
    was removed from it.

    Remembered (:data:`RESOLVED_CACHE` hrefs, a pure function's memo): a site's navigation
    repeats its hrefs on every page, each page another base, and resolving one costs about as
    much as the rest of reading it (``urljoin``, ``safe_url_string``: 7 % of a busy crawl
    thread's work). What a href resolves to depends on as much of the base as
    :func:`_base_part` keeps, and the memo is keyed by that part."""
    # Browsers drop tabs and newlines anywhere in a URL and trim surrounding whitespace.
    href = href.strip()
    if "\t" in href or "\n" in href or "\r" in href:
        href = href.replace("\t", "").replace("\n", "").replace("\r", "")
    return _resolve(_base_part(base, href), href)


#: hrefs whose resolution :func:`resolve_link` remembers (with the part of the base each
#: depends on): about 4 MB.
RESOLVED_CACHE = 16_384
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _base_part(base: str, href: str) -> str:
    """The part of ``base`` that ``urljoin(base, href)`` depends on: its scheme for a href
    with a scheme and a host (``http://x/``, ``//x/``: ``urljoin`` keeps the href's parts, and
    only compares the schemes), its scheme and host for a path from the root (``/x``), all of
    it otherwise (a relative path, a query, a fragment, an empty href)."""
    scheme = _SCHEME.match(base)
    if scheme is None or not base.startswith("//", scheme.end()):
        return base
    head = _SCHEME.match(href)
    slashes = 0 if head is None else head.end()
    if href.startswith("//", slashes):
        # with a host, what the href says; without ("//", "http:///x"), the base's (rare: all of it)
        return scheme.group(0) if href[slashes + 2:slashes + 3] not in ("", "/", "?", "#") else base
    if head is None and href.startswith("/"):
        end = base.find("/", scheme.end() + 2)
        return base if end < 0 else base[:end]
    return base


@functools.lru_cache(maxsize=RESOLVED_CACHE)
def _resolve(base: str, href: str) -> tuple[str | None, bool]:
    link = _absolute_link(base, href)
    if link is None:
        return None, False
    return _without_session_id(link)


def _without_session_id(url: str) -> tuple[str, bool]:
    """``url`` without a session id, and whether it had one.

    A site that puts a fresh session id in every link shows each page under endless URLs:
    every visit finds "new" pages that are old ones (a crawler trap). Removed: a
    ``;jsessionid=``-style path parameter, query parameters whose name says session
    (``jsessionid``, ``phpsessid``, ``sessionid``, ``session_id``, ``aspsessionid…``) and a
    ``sid`` whose value looks like a token (16 or more letters and digits: ``?sid=5`` may well
    be a story id). Other query parameters are kept byte for byte, in their order.
    """
    if _SESSION_HINT.search(url) is None:
        return url, False
    parts = urlsplit(url)
    path = _SESSION_PATH_PARAM.sub("", parts.path)
    kept = [segment for segment in parts.query.split("&") if segment and not _is_session_param(segment)]
    query = "&".join(kept)
    if path == parts.path and query == parts.query:
        return url, False
    return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment)), True


def _is_session_param(segment: str) -> bool:
    name, _, value = segment.partition("=")
    name = unquote(name).lower()
    if name in _SESSION_NAMES or name.startswith("aspsessionid"):
        return True
    return name == "sid" and _TOKEN.fullmatch(unquote(value)) is not None


def _absolute_link(base: str, href: str) -> str | None:
    """``href`` (cleaned by :func:`resolve_link`) against ``base``, in the form Scrapy gives
    ``request.url``; None for anything but an http(s) link with a host."""
    try:
        absolute = urldefrag(urljoin(base, href)).url
        parts = urlsplit(absolute)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        # The form Scrapy gives request.url, so the same page has the same URL everywhere
        # (frontier, memories, the reinforcing agent's seen set).
        return safe_url_string(absolute)
    except ValueError:
        # Unparsable hosts and ports ("http://[::1", "http://a:99999") are not links.
        return None


__all__ = ["FEED_TYPES", "LINK_CONTEXT_WINDOW", "DeferredContexts", "base_url", "feed_links", "link_contexts",
           "read_links", "resolve_link"]
