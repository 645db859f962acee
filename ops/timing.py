"""The app with a Server-Timing header on every response, for benchmarks (benchmarks/pages.py):

    gunicorn ops.timing:application

`app;dur=` is the milliseconds from the request entering Django (every middleware included) to its
response being ready; `db;dur=` the part of them spent in database queries, with their count as
`desc`. Production serves solarena.wsgi:application, which adds nothing: timings tell an outsider
how much work a request caused.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from solarena.wsgi import application as django_application

HEADER = "Server-Timing"


class QueryTimer:
    """A database execute wrapper (connection.execute_wrapper) adding up the time and count of queries."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0

    def __call__(self, execute: Callable[..., Any], sql: str, params: Any, many: bool,
                 context: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.count += 1


def server_timing(app_seconds: float, queries: QueryTimer) -> str:
    return (f'app;dur={app_seconds * 1e3:.2f}, '
            f'db;dur={queries.seconds * 1e3:.2f};desc="{queries.count} queries"')


def timed(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """`app` (a WSGI application running Django) with the Server-Timing header added."""
    from django.db import connection

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()
        queries = QueryTimer()

        def start_with_timing(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            # Django calls this once the response is complete (the body is already rendered).
            headers.append((HEADER, server_timing(time.perf_counter() - started, queries)))
            return start_response(status, headers, *exc_info)

        with connection.execute_wrapper(queries):
            return app(environ, start_with_timing)

    return application


application = timed(django_application)
