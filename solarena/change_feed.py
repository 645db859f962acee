"""Writers' word pushed to the processes that serve pages (Redis publish/subscribe), so such a
process can trust what it read of the shared cache until it hears otherwise, rather than reading it
again every REFRESH seconds.

A writer that moves a subject (a page generation, solarena.changes; a page stamp,
solarena.page_stamps) publishes its name once the shared cache holds the change. A process that
serves pages listens (`listen`: a daemon thread, started on its first page): a reading of a
subject begun after the process started listening, with nothing heard of that subject since it
began and without a break in the listening, is current (`trusted`). Whatever breaks the listening
(the connection lost, Redis restarted, no answer to its pings for 3 HEALTH_SECONDS) makes every
reading begun before untrusted; readers then fall back to reading again every REFRESH seconds until
the listener is back. A reading is trusted TRUST_AT_MOST seconds at most: the bound on a message
lost without the connection showing it.

Only a cache every process shares can carry this (solarena.changes.tracked); with any other cache
nothing listens and nothing is trusted. The channel is named after the cache's location, so
processes of two deployments (or two test processes) on one Redis server do not hear each other."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterable
from typing import Any

import redis
from django.conf import settings

TRUST_AT_MOST = 30.0  # seconds a reading is trusted on the feed's word
HEALTH_SECONDS = 1.0  # the listener pings Redis when it has heard nothing for this long
RETRY_SECONDS = 1.0  # between two attempts to listen again
HEARD_AT_MOST = 20_000  # subjects whose last message a process keeps (past it: a break in listening)
EVERYTHING = "*"
PING = "solarena-change-feed"
log = logging.getLogger(__name__)


class _State:
    def __init__(self) -> None:
        self.pid = 0
        self.thread: threading.Thread | None = None
        self.since: float | None = None  # time.monotonic() since which the listening has not broken
        self.alive_at = 0.0  # time.monotonic() of the last word from Redis (a message or a pong)
        self.heard: dict[str, float] = {}  # subject -> time.monotonic() of its last message
        self.url = ""
        self.publishers: dict[tuple[int, str], redis.Redis] = {}
        self.lock = threading.Lock()


_state = _State()


def location(listening: bool = True) -> str | None:
    """The shared cache's Redis URL; None where the cache is not Redis, or (`listening`) where this
    process is not to listen (CHANGE_FEED off). Writers publish whatever CHANGE_FEED says, so no
    mix of settings between processes leaves a listener trusting what a writer did not announce."""
    config = settings.CACHES["default"]
    if listening and not getattr(settings, "CHANGE_FEED", False):
        return None
    if not config["BACKEND"].endswith("RedisCache"):
        return None
    servers = config["LOCATION"]
    servers = servers.split(",") if isinstance(servers, str) else list(servers)
    return servers[0].strip()  # Django's RedisCache writes to the first server


def channel(url: str) -> str:
    return "solarena-changes:" + hashlib.sha256(url.encode()).hexdigest()[:16]


def publish(subjects: Iterable[str]) -> None:
    """Tell every listening process that these subjects moved (EVERYTHING: all of them)."""
    url = location(listening=False)
    names = list(dict.fromkeys(subjects))
    if url is None or not names:
        return
    try:
        _publisher(url).publish(channel(url), "\n".join(names))
    except Exception:  # listeners then trust a reading TRUST_AT_MOST at most
        log.warning("change feed unavailable", exc_info=True)


def listen() -> None:
    """Start this process's listener, once per process (a forked child starts its own) and cache
    location (settings changed in tests: the one listening elsewhere stops)."""
    url = location()
    if url is None or _listening_to(url):
        return
    with _state.lock:
        if _listening_to(url):
            return
        _state.pid, _state.url, _state.since, _state.heard = os.getpid(), url, None, {}
        _state.thread = threading.Thread(target=_listen, args=(url,), name="solarena-change-feed",
                                         daemon=True)
        _state.thread.start()


def _listening_to(url: str) -> bool:
    return (_state.pid == os.getpid() and _state.url == url and _state.thread is not None
            and _state.thread.is_alive())


def trusted(subject: str, read_at: float) -> bool:
    """Whether a reading of `subject` begun at `read_at` (time.monotonic()) is current on the feed's
    word: this process has listened since before it without a break, and heard nothing of the
    subject (or of everything) since."""
    since, now = _state.since, time.monotonic()
    if since is None or since > read_at or _state.pid != os.getpid() or _state.url != location():
        return False
    if now - read_at >= TRUST_AT_MOST or now - _state.alive_at > 3 * HEALTH_SECONDS:
        return False
    heard = _state.heard
    return heard.get(subject, -1.0) < read_at and heard.get(EVERYTHING, -1.0) < read_at


def listener_name() -> str:
    """This process's listening connection, as Redis's CLIENT LIST names it."""
    return f"solarena-change-feed-{os.getpid()}"


def listening() -> bool:
    """Whether this process hears the feed now (its listener subscribed and not broken since)."""
    return _state.since is not None and _state.pid == os.getpid()


def _publisher(url: str) -> redis.Redis:
    key = (os.getpid(), url)
    if key not in _state.publishers:
        _state.publishers[key] = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    return _state.publishers[key]


def _listen(url: str) -> None:
    me = threading.current_thread()
    failures = 0
    while _still_mine(me, url):
        try:
            client = redis.Redis.from_url(url, socket_timeout=HEALTH_SECONDS * 3, socket_connect_timeout=2,
                                          client_name=listener_name())
            with client.pubsub() as pubsub:
                pubsub.subscribe(channel(url))
                while _still_mine(me, url):
                    message = pubsub.get_message(timeout=HEALTH_SECONDS)
                    if message is not None:
                        _handle(message)
                        failures = 0
                    elif time.monotonic() - _state.alive_at > 3 * HEALTH_SECONDS:
                        raise ConnectionError("Redis did not answer the change feed's pings")
                    else:
                        pubsub.ping(PING)  # answered as a message: what tells a quiet feed from a dead one
        except Exception:
            failures += 1
            log.log(logging.WARNING if failures == 1 else logging.DEBUG,
                    "change feed: listening broke; readers read again every REFRESH", exc_info=True)
        if _state.thread is me:
            _state.since = None
            time.sleep(RETRY_SECONDS)


def _still_mine(me: threading.Thread, url: str) -> bool:
    """Whether this listener is still the process's, for the cache it names (another takes over
    when the cache's location changes, as in tests; none where the feed is turned off)."""
    if _state.thread is not me:
        return False
    if location() != url:
        _state.thread, _state.since = None, None
        return False
    return True


def _handle(message: dict[str, Any]) -> None:
    if _state.thread is not threading.current_thread():
        return  # a listener that another took over from (a new cache location)
    now = time.monotonic()
    _state.alive_at = now
    if message["type"] == "subscribe":
        _state.since = now
        return
    if message["type"] != "message":
        return
    data = message["data"]
    names = (data.decode() if isinstance(data, bytes) else str(data)).split("\n")
    heard = _state.heard
    if len(heard) + len(names) > HEARD_AT_MOST:  # forgetting what was heard is a break
        _state.since = now
        heard.clear()
    for name in names:
        heard[name] = now
