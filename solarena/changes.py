"""Generations of what pages show, kept in the shared cache: a writer moves a subject's generation
once its transaction commits, and remembers when; a page kept with the generations it was made at
is current while they are (pages.page_cache), and knows since when it is not.

Subjects: one problem x hardware board (its entries, their evaluations' figures and verdicts),
the participants' names, the agents (every agent upload, its solutions and their evaluations:
evaluator.page_changes), and the site (problems, hardware, categories; anything drop_all-like).
Writers name them (leaderboard.signals, evaluator.confirmations, evaluator.page_changes); after
the commit `moved` is sent, so a process that serves pages can make the changed ones again at once
(pages.remakes).

Only a cache that every process shares (Redis) can carry a writer's word to the web processes:
with a per-process cache `tracked()` is False and pages fall back to their age alone.

A process reads a subject's generation at most once per REFRESH seconds (a page's subjects in one
round trip), or only when a writer names it where the process hears the change feed
(solarena.change_feed), and sees its own writers' moves at once: another process's change is seen
as soon as it is heard, or REFRESH seconds later at most without the feed."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.dispatch import Signal

from solarena import change_feed

NAMES = "gen:names"
SITE = "gen:site"
AGENTS = "gen:agents"
REFRESH = 0.25  # seconds a process trusts the generations it read last
KNOWN_AT_MOST = 5_000  # subjects whose last reading a process keeps (forgotten all at once past it)
REMEMBERED = 120  # seconds a change's time is kept: longer than any page is served unchecked
clock = time.time  # wall time, which every process agrees on; tests move it
log = logging.getLogger(__name__)
moved = Signal()  # sent with subjects=[...] once their generations have moved
_known: dict[str, tuple[float, int]] = {}  # subject -> (time.monotonic() read at, generation)
_made_at: dict[str, float] = {}  # "subject@generation" -> when that generation was made (never changes)
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
            _known[subject] = (time.monotonic(), generation)
            _keep_times({f"{subject}@{generation}": now})
    except Exception:  # pages kept unchecked go stale within their MAX_AGE
        log.warning("page generations unavailable", exc_info=True)
        return
    change_feed.publish(subjects)
    moved.send(sender=None, subjects=list(subjects))


def generations(subjects: list[str], times: Sequence[str] = ()) -> dict[str, int] | None:
    """The subjects' generations (0 where none moved yet), each as read at most REFRESH seconds
    ago; None when the cache does not answer. Those read longer ago are read again together, and
    only they: a page's few subjects in one small round trip, never every subject the process
    knows (74 boards' generations at once cost about a millisecond, on whichever request did it).
    `times`: change times ("subject@generation") to ask for in that round trip, if there is one."""
    now = time.monotonic()
    stale = [s for s in dict.fromkeys(subjects) if s not in _known or not _current(s, _known[s][0], now)]
    if stale:
        wanted = [key for key in times if key not in _made_at]
        try:
            found = cache.get_many(stale + wanted)
        except Exception:
            log.warning("page generations unavailable", exc_info=True)
            return None
        if len(_known) + len(stale) > KNOWN_AT_MOST:
            _known.clear()
        _known.update((subject, (now, found.get(subject, 0))) for subject in stale)
        _keep_times({key: found[key] for key in wanted if key in found})
    return {subject: _known[subject][1] for subject in subjects}


def _current(subject: str, read_at: float, now: float) -> bool:
    return now - read_at < REFRESH or change_feed.trusted(subject, read_at)


def forget() -> None:
    """Read every generation and change time afresh next time (tests: another test's cache)."""
    _known.clear()
    _made_at.clear()


def first_missed(seen: dict[str, int]) -> float | None:
    """When the first change after the generations `seen` was made; None when there was none; 0.0
    (long ago) when the cache does not answer or has forgotten it. A change's time never changes,
    so a process keeps the ones it has read; the time of the change that would follow each
    generation seen is asked for with the generations, so a copy found behind costs one round
    trip, not two."""
    following = {subject: f"{subject}@{generation + 1}" for subject, generation in seen.items()}
    now = generations(list(seen), list(following.values()))
    if now is None:
        return 0.0
    missed = [following[subject] for subject, generation in seen.items() if now[subject] != generation]
    if not missed:
        return None
    unknown = [key for key in missed if key not in _made_at]
    if unknown:
        try:
            _keep_times(cache.get_many(unknown))
        except Exception:
            log.warning("page generations unavailable", exc_info=True)
            return 0.0
    return min(_made_at.get(key, 0.0) for key in missed)


def _keep_times(found: dict[str, float]) -> None:
    if len(_made_at) + len(found) > KNOWN_AT_MOST:
        _made_at.clear()
    _made_at.update(found)
