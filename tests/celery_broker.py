"""Point this test process's Celery app at a broker: every test that starts a worker does, since a
message sent through the app's old connections would go to the broker they were made for."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import kombu.pools

from solarena.celery import app


@contextmanager
def celery_on(url: str, monkeypatch: Any) -> Iterator[None]:
    """This process's Celery app sending to the broker at `url`. Celery reads CELERY_BROKER_URL before
    its configuration, so both are set."""
    previous = app.conf.broker_url
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    app.conf.broker_url = url
    _forget_connections()
    try:
        yield
    finally:
        _forget_connections()
        app.conf.broker_url = previous


def _forget_connections() -> None:
    """Drop the app's broker connections and producers, which stay bound to the broker they were made
    for (Celery does the same in a forked child; app.close() would also unregister the app), and
    kombu's pools of them: those are kept by broker URL, so a later test on the same URL would get
    back a pool closed here ("Acquire on closed pool")."""
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    kombu.pools.reset()
