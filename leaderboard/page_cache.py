"""What the pages compute from many rows, kept in Django's cache (CACHE_URL) under a key that holds
the version of those rows (boards.version, boards.global_version), so a change shows at once.

Two levels: `public_page` keeps whole responses to anonymous visitors (most of a public board's
readers), keyed by the URL and a version read in one query, in each web process's memory (the
"pages-local" cache, when settings define it) and in the shared cache; on a miss, and for
signed-in visitors, the view runs and `cached`/`rendered` keep the parts that cost most, under
finer versions.

The timeout bounds what a version does not see: a participant renamed or deactivated in the admin
keeps their old name on a cached page for up to this long. A cache that does not answer slows the
pages; it does not break them.
"""

from __future__ import annotations

import functools
import hashlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import BaseCache, cache, caches
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from .boards import global_version

SECONDS = 300
T = TypeVar("T")
View = Callable[..., HttpResponse]
log = logging.getLogger(__name__)
# What a whole response is kept with besides its body and status.
KEPT_HEADERS = ("Content-Type", "Content-Disposition")
# The cache alias of each web process's own copies of whole pages (settings.CACHES; optional).
LOCAL = "pages-local"
# Cookies that make a visitor someone the page may differ for: signed in, or a message to show.
PERSONAL_COOKIES = ("messages",)


def cached(key: str | None, make: Callable[[], T]) -> T:
    """The value cached under `key`, made and stored when missing (never cached when key is None)."""
    if key is None:
        return make()
    value = _get(key)
    if value is None:
        value = make()
        _set(key, value)
    return value


def _get(key: str, store: BaseCache = cache) -> Any:
    try:
        return store.get(_hashed(key))
    except Exception:  # any backend's failure: the page is made without the cache
        log.warning("page cache unavailable", exc_info=True)
        return None


def _set(key: str, value: Any, store: BaseCache = cache) -> None:
    try:
        store.set(_hashed(key), value, SECONDS)
    except Exception:
        log.warning("page cache unavailable", exc_info=True)


def _hashed(key: str) -> str:
    return "page:" + hashlib.sha256(key.encode()).hexdigest()  # any text, at a length every backend takes


def rendered(template: str, context: Callable[[], dict[str, Any]], key: str) -> SafeString:
    """`template` rendered with the dictionary `context()` makes (only when it is rendered), cached
    under `key`, which must name everything the rendering shows: a version of it, or the data."""
    return cached(f"{template}:{key}", lambda: render_to_string(template, context()))


def markdown(text: str) -> SafeString:
    """render_markdown(text), cached under the text itself (a description is rendered once)."""
    from .markdown import render_markdown

    return cached(f"markdown:{text}", lambda: render_markdown(text))


def public_page(version: Callable[..., str | None]) -> Callable[[View], View]:
    """The view, with its whole 200 response to an anonymous GET kept under the URL (path and query)
    and `version(request, *args, **kwargs)`, which must change whenever anything the page shows
    does (None: serve this request uncached). Visitors with a session, a pending message or an
    Authorization header get the view itself, and so does a response that set a cookie or used
    a CSRF token (one visitor's token must never reach another)."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not _anonymous(request):
                return view(request, *args, **kwargs)
            stamp = version(request, *args, **kwargs)
            if stamp is None:
                return view(request, *args, **kwargs)
            key = f"response:{view.__module__}.{view.__name__}:{request.get_full_path()}:{stamp}"
            local = caches[LOCAL] if LOCAL in settings.CACHES else None
            stored = _get(key, local) if local else None
            if stored is None:
                stored = _get(key)
                if stored is not None and local:
                    _set(key, stored, local)
            if stored is not None:
                status, headers, content = stored
                return HttpResponse(content, status=status, headers=headers)
            response = view(request, *args, **kwargs)
            if _keepable(request, response):
                stored = (response.status_code, {name: response[name] for name in KEPT_HEADERS
                                                 if response.has_header(name)}, response.content)
                for store in filter(None, (local, cache)):
                    _set(key, stored, store)
            return response

        return wrapper

    return decorate


def _anonymous(request: HttpRequest) -> bool:
    personal = (settings.SESSION_COOKIE_NAME, *PERSONAL_COOKIES)
    return (request.method in ("GET", "HEAD") and "HTTP_AUTHORIZATION" not in request.META
            and not any(name in request.COOKIES for name in personal))


def _keepable(request: HttpRequest, response: HttpResponse) -> bool:
    return not (response.status_code != 200 or response.streaming or response.cookies
                or request.META.get("CSRF_COOKIE_NEEDS_UPDATE"))


def site_version(request: HttpRequest, *args: Any, **kwargs: Any) -> str:
    """The version of a page made of the boards and the counts (boards.global_version), read once
    per request: public_page's key and the view's cached parts use the same one."""
    stamp = getattr(request, "_site_version", None)
    if stamp is None:
        stamp = request._site_version = global_version()  # type: ignore[attr-defined]
    return stamp
