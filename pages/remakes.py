"""A board changed (solarena.changes.moved, in the writer's process once it committed): its page, its
problem's page and its category's board on that hardware (the page and its CSV, all task types and
the problem's), as anonymous visitors ask for them, are made again at once, so the next reader finds
them current instead of making them in its request. Pages several changed boards share are made once.

One thread per process makes them, off the writer's path (a request returns, a writer goes on):
boards that change again before their turn are made once. Inside a Celery task (an evaluation's
ingestion) they are made at once instead, before the worker takes its next evaluation: a thread
would run beside that evaluation's timing."""

from __future__ import annotations

import logging
import threading
from typing import Any
from urllib.parse import urlencode

from celery import current_task
from django.db import connections
from django.urls import reverse

from leaderboard.models import Hardware, Problem
from solarena import changes

from . import page_cache

log = logging.getLogger(__name__)
_pending: dict[tuple[int, int], None] = {}  # boards to make again, in the order they changed
_work = threading.Condition()
_busy = False
_thread: threading.Thread | None = None


def remake_boards(sender: Any, subjects: list[str], **_: Any) -> None:
    global _thread
    boards = changes.boards_in(subjects)
    if not boards:
        return
    if current_task and current_task.request.id is not None:  # a proxy: false outside a task
        _remake(boards)
        return
    with _work:
        _pending.update(dict.fromkeys(boards))
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_make_forever, name="pages-remakes", daemon=True)
            _thread.start()
        _work.notify()


def wait_until_done(timeout: float = 10.0) -> bool:
    """Whether every board asked for so far has been made again within `timeout` seconds."""
    with _work:
        return _work.wait_for(lambda: not _pending and not _busy, timeout)


def _make_forever() -> None:
    global _busy
    while True:
        with _work:
            _work.wait_for(lambda: bool(_pending))
            boards, _busy = list(_pending), True
            _pending.clear()
        try:
            _remake(boards)
        finally:
            connections.close_all()  # this thread's: it may sleep long before the next board
            with _work:
                _busy = False
                _work.notify_all()


def _remake(boards: list[tuple[int, int]]) -> None:
    """The pages of these boards, each once, where kept lately; a failure is logged, not raised."""
    try:
        paths = [path for problem_id, hardware_id in boards for path in _pages_of(problem_id, hardware_id)]
    except Exception:  # the pages are made by their next readers instead
        log.exception("finding the pages of boards %s failed", boards)
        return
    for path in dict.fromkeys(paths):
        try:
            page_cache.remake(path)
        except Exception:
            log.exception("remaking %s failed", path)


def _pages_of(problem_id: int, hardware_id: int) -> list[str]:
    """The public pages that show the board, as anonymous visitors ask for them most."""
    found = (Problem.objects.filter(pk=problem_id, is_current=True)
             .values_list("slug", "category__slug", "task_type").first())
    hardware = Hardware.objects.filter(pk=hardware_id).values_list("slug", flat=True).first()
    if found is None or hardware is None:  # an earlier version's board: on no page
        return []
    slug, category, task_type = found
    problem = reverse("problem", args=[slug])
    category_board = reverse("category-board", args=[category, hardware])
    return [reverse("problem-board", args=[slug, hardware]), f"{problem}?hardware={hardware}", problem,
            *(f"{category_board}?{urlencode(query)}" if query else category_board
              for query in ({}, {"format": "csv"}, {"task_type": task_type},
                            {"format": "csv", "task_type": task_type}))]
