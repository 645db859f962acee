"""Generations of what pages show, kept in the shared cache: a writer moves a subject's generation
once its transaction commits, and remembers when; a page kept with the generations it was made at
is current while they are (pages.page_cache), and knows since when it is not.

Subjects: one problem x hardware board (its entries, their evaluations' figures and verdicts),
the participants' names, and the site (problems, hardware, categories; anything drop_all-like).
Writers name them (leaderboard.signals, evaluator.confirmations); after the commit `moved` is sent,
so a process that serves pages can make the changed ones again at once (pages.remakes).

Only a cache that every process shares (Redis) can carry a writer's word to the web processes:
with a per-process cache `tracked()` is False and pages fall back to their age alone.

A process reads the generations of every subject it knows in one round trip, at most once per
REFRESH seconds, and sees its own writers' moves at once: a page checked on every request costs
no round trip of its own, and another process's change is seen REFRESH seconds later at most."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import Signal

NAMES = "gen:names"
SITE = "gen:site"
REFRESH = 0.25  # seconds a process trusts the generations it read last
KNOWN_AT_MOST = 5_000  # subjects a process reads at once (past it, it starts again from the asked)
REMEMBERED = 120  # seconds a change's time is kept: longer than any page is served unchecked
clock = time.time  # wall time, which every process agrees on; tests move it
log = logging.getLogger(__name__)
moved = Signal()  # sent with subjects=[...] once their generations have moved
_known: dict[str, int] = {}  # this process's last reading of every subject it has asked about
_read_at = -REFRESH  # time.monotonic() of that reading
PER_PROCESS = ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.dummy.DummyCache")


BOARD = "gen:board:"


def board(problem_id: int, hardware_id: int) -> str:
    return f"{BOARD}{problem_id}:{hardware_id}"


def boards_in(subjects: list[str]) -> list[tuple[int, int]]:
    """The (problem id, hardware id) of each board among the subjects, in their order, once each."""
    found = (tuple(int(part) for part in s.removeprefix(BOARD).split(":")) for s in subjects
             if s.startswith(BOARD))
    return list(dict.fromkeys(found))  # type: ignore[arg-type]


def tracked() -> bool:
    return settings.CACHES["default"]["BACKEND"] not in PER_PROCESS


def changed(*subjects: str) -> None:
    """Move the subjects' generations once the current transaction commits (at once outside one):
    a reader that read a generation before the commit has read the rows before it too."""
    if not subjects or not tracked():
        return
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(lambda: _move(subjects), robust=True)
    else:
        _move(subjects)


def _move(subjects: tuple[str, ...]) -> None:
    now = clock()
    try:
        for subject in dict.fromkeys(subjects):
            cache.add(subject, 0, None)
            generation = cache.incr(subject)
            cache.set(f"{subject}@{generation}", now, REMEMBERED)
            _known[subject] = generation
    except Exception:  # pages kept unchecked go stale within their MAX_AGE
        log.warning("page generations unavailable", exc_info=True)
        return
    moved.send(sender=None, subjects=list(subjects))


def generations(subjects: list[str]) -> dict[str, int] | None:
    """The subjects' generations (0 where none moved yet), as read at most REFRESH seconds ago;
    None when the cache does not answer."""
    global _known, _read_at
    if time.monotonic() - _read_at >= REFRESH or any(subject not in _known for subject in subjects):
        wanted = list(dict.fromkeys([*subjects, *_known]))
        if len(wanted) > KNOWN_AT_MOST:
            wanted = list(dict.fromkeys(subjects))
        read_at = time.monotonic()
        try:
            found = cache.get_many(wanted)
        except Exception:
            log.warning("page generations unavailable", exc_info=True)
            return None
        _known, _read_at = {subject: found.get(subject, 0) for subject in wanted}, read_at
    return {subject: _known[subject] for subject in subjects}


def forget() -> None:
    """Read every generation afresh next time (tests: another test's cache)."""
    global _read_at
    _known.clear()
    _read_at = -REFRESH


def first_missed(seen: dict[str, int]) -> float | None:
    """When the first change after the generations `seen` was made; None when there was none; 0.0
    (long ago) when the cache does not answer or has forgotten it."""
    now = generations(list(seen))
    if now is None:
        return 0.0
    missed = [f"{subject}@{generation + 1}" for subject, generation in seen.items()
              if now[subject] != generation]
    if not missed:
        return None
    try:
        times = cache.get_many(missed)
    except Exception:
        log.warning("page generations unavailable", exc_info=True)
        return 0.0
    return min((times.get(key, 0.0) for key in missed), default=0.0)
