"""ops.timing (the benchmarks' entry point) answers as the app does, with a Server-Timing header
holding the request's time and its database queries' time and count."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from ops.timing import application
from tests.platform import factories

pytestmark = pytest.mark.django_db
TIMING = re.compile(r'app;dur=(?P<app>[\d.]+), db;dur=(?P<db>[\d.]+);desc="(?P<queries>\d+) queries"')


@pytest.fixture(autouse=True)
def keep_the_test_connection() -> Iterator[None]:
    """As django.test.Client does: a request would close the connection holding the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def get(path: str) -> tuple[str, dict[str, str], bytes]:
    environ: dict[str, Any] = {"PATH_INFO": path, "REQUEST_METHOD": "GET"}
    setup_testing_defaults(environ)
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> None:
        answer["status"], answer["headers"] = status, dict(headers)

    body = b"".join(application(environ, start_response))
    return answer["status"], answer["headers"], body


def test_a_page_without_queries() -> None:
    status, headers, body = get("/livez")
    assert status.startswith("200") and b'"ok"' in body
    timing = TIMING.fullmatch(headers["Server-Timing"])
    assert timing, headers["Server-Timing"]
    assert float(timing["app"]) > 0 and timing["queries"] == "0" and float(timing["db"]) == 0


def test_a_page_with_queries() -> None:
    cache.clear()  # a copy of the page kept from an earlier test of this process answers with no query
    factories.make_problem()
    status, headers, body = get("/problems/")
    assert status.startswith("200") and b"scale_shift" in body
    timing = TIMING.fullmatch(headers["Server-Timing"])
    assert timing, headers["Server-Timing"]
    assert int(timing["queries"]) >= 2
    assert 0 < float(timing["db"]) <= float(timing["app"])
