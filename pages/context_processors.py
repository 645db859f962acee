"""What every page's template may read besides its view's context."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from evaluator import workers


def workers_online(request: HttpRequest) -> dict[str, Any]:
    """The hardware with a worker online now, for the last line of every page (templates/base.html):
    a function, so a template that does not show it (a page's live part, a CSV) costs no query."""
    return {"workers_online": workers.online_slugs}
