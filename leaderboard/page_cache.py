"""What the pages compute from many rows, kept in Django's cache (CACHE_URL) under a key that holds
the version of those rows (boards.version, boards.global_version), so a change shows at once.

The timeout bounds what a version does not see: a renamed team or participant keeps its old name
on a cached board for up to this long. A cache that does not answer slows the pages; it does not
break them.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

SECONDS = 300
T = TypeVar("T")
log = logging.getLogger(__name__)


def cached(key: str | None, make: Callable[[], T]) -> T:
    """The value cached under `key`, made and stored when missing (never cached when key is None)."""
    if key is None:
        return make()
    key = "page:" + hashlib.sha256(key.encode()).hexdigest()  # any text, at a length every backend takes
    try:
        value = cache.get(key)
    except Exception:  # any backend's failure: the page is made without the cache
        log.warning("page cache unavailable", exc_info=True)
        return make()
    if value is None:
        value = make()
        try:
            cache.set(key, value, SECONDS)
        except Exception:
            log.warning("page cache unavailable", exc_info=True)
    return value


def rendered(template: str, context: Callable[[], dict[str, Any]], key: str) -> SafeString:
    """`template` rendered with the dictionary `context()` makes (only when it is rendered), cached
    under `key`, which must name everything the rendering shows: a version of it, or the data."""
    return cached(f"{template}:{key}", lambda: render_to_string(template, context()))


def markdown(text: str) -> SafeString:
    """render_markdown(text), cached under the text itself (a description is rendered once)."""
    from .markdown import render_markdown

    return cached(f"markdown:{text}", lambda: render_markdown(text))
