"""Whole pages kept for anonymous visitors (most readers of a public board), and the few costly
parts of a page kept under their own content.

`public_page` keeps a view's 200 response to an anonymous GET under the view and its URL, where
the URL's query holds only the parameters the view reads (a request with others is redirected to
the URL without them). A page is kept one of two ways:

- for a second or two (most pages): a copy younger than FRESH is served as it is; one between
  FRESH and STALE is still served, and the first process to see it so remakes it once that
  response is sent (one process at a time: a lock in the shared cache); one older than STALE is
  never served: the request makes the page itself. So a change shows on every such page within
  STALE seconds of its commit, whatever the rate of writes, and between two remakes a page costs
  no query at all;
- while nothing it shows has changed (a board's pages and the agent pages, which name what they
  show with `shows`):
  the copy keeps the generations of its subjects (solarena.changes) and is served as long as
  they stand (up to MAX_AGE); once one moves, the copy is behind since that change, not since it
  was made: served as it is for FRESH seconds after the change, while the writer's process makes
  the page again (pages.remakes: a page kept lately, as an anonymous visitor would get it), then
  served and remade as above until STALE seconds after the change. So readers seldom wait for a
  board, however often it changes;
- under a version (`version=`, a submission's pages): a stamp that changes whenever anything the
  page shows does, read from the shared cache (solarena.page_stamps: writers drop it, and it is
  measured again at most once a second); the copy is served until it changes.

Copies live in the web process's memory (the "pages-local" cache, when settings define it) and in
the shared cache (CACHE_URL), where the other processes find a fresher copy once one has made it.
A cache that does not answer slows the pages; it does not break them.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.cache import BaseCache, cache, caches
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import resolve
from django.utils.safestring import SafeString

from solarena import change_feed, changes

FRESH = 1.0  # seconds a copy is served without a second thought
STALE = 2.0  # seconds after which a copy is never served: the bound on showing a change
LOCK_SECONDS = 10  # a remake that takes longer (or whose process died) is taken up by another
SECONDS = 300  # what is kept under its own content (a description, a problem's details)
MAX_AGE = 30.0  # seconds a copy whose subjects stand is served unchecked: the bound on an unnamed change
CHECKED_KEPT = 10_000  # pages this process remembers having found current (forgotten all at once past it)
REMAKE = "solarena.remake"  # set in the environ of a request made by the server itself (remake())
T = TypeVar("T")
View = Callable[..., HttpResponse]
log = logging.getLogger(__name__)
# What a whole response is kept with besides its body and status.
KEPT_HEADERS = ("Content-Type", "Content-Disposition")
# The cache alias of each web process's own copies of whole pages (settings.CACHES; optional).
LOCAL = "pages-local"
# Cookies that make a visitor someone the page may differ for: signed in, or a message to show.
PERSONAL_COOKIES = ("messages",)
# Copies this process checked lately, served unchecked until a moment later (_copy_for_a_while).
_checked: dict[str, tuple[float, float]] = {}  # key -> (the copy's made, served unchecked until)
clock = time.time  # wall time, which every web process agrees on; tests move it


def cached(key: str, make: Callable[[], T]) -> T:
    """The value cached under `key`, which must name everything it depends on; made and stored
    when missing."""
    value = _get(key)
    if value is None:
        value = make()
        _set(key, value, SECONDS)
    return value


def markdown(text: str) -> SafeString:
    """render_markdown(text), cached under the text itself (a description is rendered once)."""
    from .markdown import render_markdown

    return cached(f"markdown:{text}", lambda: render_markdown(text))


@dataclass(frozen=True)
class Copy:
    """A kept response, and when the making of it started (what it shows is at least that recent)."""

    made: float
    status: int
    headers: dict[str, str]
    content: bytes
    seen: dict[str, int] = field(default_factory=dict)  # the generations of what it shows, where named

    def response(self) -> HttpResponse:
        return HttpResponse(self.content, status=self.status, headers=self.headers)


class _ThenRemake(HttpResponse):
    """A kept copy, served; the page is made again once the WSGI server has sent it (close())."""

    def __init__(self, copy: Copy, remake: Callable[[], None]) -> None:
        super().__init__(copy.content, status=copy.status, headers=copy.headers)
        self._remake = remake

    def close(self) -> None:
        try:
            self._remake()
        finally:
            super().close()


def public_page(params: Iterable[str] = (),
                version: Callable[..., str | None] | None = None) -> Callable[[View], View]:
    """The view, with its whole 200 response to an anonymous GET kept as the module says. `params`:
    the query parameters the view reads. `version(request, *args, **kwargs)`, when given, must
    change whenever anything the page shows does (None: serve this request uncached). Visitors
    with a session, a pending message or an Authorization header get the view itself, and so does
    a response that set a cookie or used a CSRF token (one visitor's token must never reach
    another)."""
    known = frozenset(params)

    def decorate(view: View) -> View:
        name = f"{view.__module__}.{view.__name__}"

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            query = _canonical_query(request, known)
            if query is None:
                kept = {k: request.GET.getlist(k)[-1] for k in request.GET if k in known}
                return HttpResponseRedirect(request.path + (f"?{urlencode(kept)}" if kept else ""))
            if not _anonymous(request):
                return view(request, *args, **kwargs)
            change_feed.listen()  # this process trusts what it read until a writer says otherwise
            key = f"response:v2:{name}:{request.path}?{query}"
            if version is None:
                if request.META.get(REMAKE):
                    return _remade(key, lambda: view(request, *args, **kwargs), request)
                return _served_for_a_while(key, lambda: view(request, *args, **kwargs), request)
            stamp = version(request, *args, **kwargs)
            if stamp is None:
                return view(request, *args, **kwargs)
            key = f"{key}:{stamp}"
            copy = _copy(key)
            if copy is not None:
                return copy.response()
            return _make(key, lambda: view(request, *args, **kwargs), request, SECONDS)

        return wrapper

    return decorate


def _canonical_query(request: HttpRequest, known: frozenset[str]) -> str | None:
    """The query the page is kept under: the known parameters, sorted; None when the request names
    another parameter or one twice (it is redirected to the URL without them)."""
    if any(k not in known or len(request.GET.getlist(k)) > 1 for k in request.GET):
        return None
    return urlencode(sorted(request.GET.items()))


# What every agent page shows (boards, profiles, frontiers, comparisons, trajectories).
AGENT_SUBJECTS = (changes.AGENTS, changes.NAMES, changes.SITE)


def shows(request: HttpRequest, *subjects: str) -> None:
    """Name what the page being made shows (solarena.changes subjects), before reading it: its copy
    is current while their generations stand."""
    if changes.tracked() and (now := changes.generations(list(subjects))) is not None:
        request.page_seen = {**getattr(request, "page_seen", {}), **now}


def remake(path: str) -> None:
    """Make the public page at `path` (with its query) again now, as an anonymous visitor's request
    would, and keep it: a writer's process calls this once it has changed what the page shows."""
    url = urlsplit(path)
    match = resolve(url.path)
    host = next((h.lstrip(".") for h in settings.ALLOWED_HOSTS if h != "*"), "localhost")
    request = WSGIRequest({"REQUEST_METHOD": "GET", "PATH_INFO": url.path, "QUERY_STRING": url.query,
                           "SCRIPT_NAME": "", "SERVER_NAME": host, "SERVER_PORT": "443", "HTTP_HOST": host,
                           "wsgi.url_scheme": "https", "wsgi.input": io.BytesIO(), REMAKE: True})
    request.user = AnonymousUser()
    match.func(request, *match.args, **match.kwargs)


def _remade(key: str, make: Callable[[], HttpResponse], request: HttpRequest) -> HttpResponse:
    """The page made again for a writer's process (remake()): only a page kept lately (one nobody
    reads waits for a reader), behind what it shows (a reader may have made it again since the
    change, while the writer was busy with other pages) and not being made by another process now;
    204 when it is left as it is."""
    kept = _get(key)
    if kept is None or (kept.seen and changes.first_missed(kept.seen) is None) or not _lock(key):
        return HttpResponse(status=204)
    try:
        return _make(key, make, request, STALE + 1, local=False)
    finally:
        _delete(f"lock:{key}")


def _served_for_a_while(key: str, make: Callable[[], HttpResponse], request: HttpRequest) -> HttpResponse:
    copy, behind = _copy_for_a_while(key)
    if copy is None or (behind is not None and behind >= STALE):
        return _make(key, make, request, STALE + 1)
    # Current; or lately changed, when the writer's process is making it again (pages.remakes);
    # or another process is.
    if behind is None or behind < FRESH or not _lock(key):
        return copy.response()

    def remake() -> None:
        try:
            _make(key, make, request, STALE + 1)
        except Exception:  # the served copy stands; past STALE a request makes the page itself
            log.exception("remaking a page failed")
        finally:
            _delete(f"lock:{key}")

    return _ThenRemake(copy, remake)


def _local() -> BaseCache | None:
    return caches[LOCAL] if LOCAL in settings.CACHES else None


def _copy_for_a_while(key: str) -> tuple[Copy | None, float | None]:
    """This process's copy, or the shared one when it is newer (another process made it again)
    and this process's is not current; with how long it has been behind (None: it is current)."""
    local = _local()
    copy = _get(key, local) if local else None
    if copy is not None and _found_current_lately(key, copy):
        return copy, None  # served as it is: current, or behind for less than FRESH
    behind = _behind(copy) if copy is not None else 0.0
    if behind is not None:
        shared = _get(key)
        if shared is not None and (copy is None or shared.made >= copy.made):
            copy, behind = shared, _behind(shared)
            if local:
                _set(key, copy, _lifetime(copy), local)
    if copy is not None and copy.seen and (behind is None or behind < FRESH):
        if len(_checked) > CHECKED_KEPT:
            _checked.clear()
        # Current: unchecked for FRESH. Changed lately, while the writer's process makes it again:
        # unchecked a moment, never past FRESH after the change.
        unchecked = FRESH if behind is None else min(changes.REFRESH, FRESH - behind)
        _checked[key] = (copy.made, clock() + unchecked)
    return copy, behind


def forget_checks() -> None:
    """Forget which copies this process found current (tests: another test's clock and copies)."""
    _checked.clear()


def _found_current_lately(key: str, copy: Copy) -> bool:
    made, until = _checked.get(key, (None, 0.0))
    return made == copy.made and clock() < until


def _behind(copy: Copy) -> float | None:
    """Seconds since the copy may have stopped showing what is current; None while it shows it.
    A copy that names no subjects may be behind since it was made."""
    age = clock() - copy.made
    if age < FRESH:
        return None
    if not copy.seen:
        return age
    missed = changes.first_missed(copy.seen)
    if missed is None:
        return None if age < MAX_AGE else age - MAX_AGE
    return max(clock() - missed, 0.0)


def _lifetime(copy: Copy) -> float:
    return MAX_AGE + STALE if copy.seen else STALE + 1


def _copy(key: str) -> Copy | None:
    """A versioned page's copy: this process's, or else the shared one."""
    local = _local()
    copy = _get(key, local) if local else None
    if copy is None:
        copy = _get(key)
        if copy is not None and local:
            _set(key, copy, SECONDS, local)
    return copy


def _make(key: str, make: Callable[[], HttpResponse], request: HttpRequest, seconds: float,
          local: bool = True) -> HttpResponse:
    """The page made now, and kept for `seconds` when it may be (in this process's memory too,
    unless `local` is False: a writer's process serves no pages)."""
    made = clock()
    request.page_seen = {}
    response = make()
    if _keepable(request, response):
        copy = Copy(made, response.status_code,
                    {h: response[h] for h in KEPT_HEADERS if response.has_header(h)}, response.content,
                    request.page_seen)
        for store in filter(None, (_local() if local else None, cache)):
            _set(key, copy, max(seconds, _lifetime(copy)), store)
    return response


def _lock(key: str) -> bool:
    try:
        return bool(cache.add(_hashed(f"lock:{key}"), 1, LOCK_SECONDS))
    except Exception:
        log.warning("page cache unavailable", exc_info=True)
        return False


def _get(key: str, store: BaseCache = cache) -> Any:
    try:
        return store.get(_hashed(key))
    except Exception:  # any backend's failure: the page is made without the cache
        log.warning("page cache unavailable", exc_info=True)
        return None


def _set(key: str, value: Any, seconds: float, store: BaseCache = cache) -> None:
    try:
        store.set(_hashed(key), value, seconds)
    except Exception:
        log.warning("page cache unavailable", exc_info=True)


def _delete(key: str) -> None:
    try:
        cache.delete(_hashed(key))
    except Exception:
        log.warning("page cache unavailable", exc_info=True)


def _hashed(key: str) -> str:
    return "page:" + hashlib.sha256(key.encode()).hexdigest()  # any text, at a length every backend takes


def _anonymous(request: HttpRequest) -> bool:
    personal = (settings.SESSION_COOKIE_NAME, *PERSONAL_COOKIES)
    return (request.method in ("GET", "HEAD") and "HTTP_AUTHORIZATION" not in request.META
            and not any(name in request.COOKIES for name in personal))


def _keepable(request: HttpRequest, response: HttpResponse) -> bool:
    return not (response.status_code != 200 or response.streaming or response.cookies
                or request.META.get("CSRF_COOKIE_NEEDS_UPDATE"))
