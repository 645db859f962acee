"""A board's cells are kept per row by the process that made them (pages.board_views._cells_of):
a board made again finds its unchanged rows' cells without formatting them, and a row that
changed in any field, or a board made for another time zone, gets them made afresh."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import timezone

from evaluator.entry_status import REWARD_HACK, EntryStatus
from evaluator.scoring import numbers
from leaderboard import boards
from pages import board_views
from pages.board_views import board_rows
from tests.pages.test_board_rows import ROWS, problem_row

pytestmark = pytest.mark.django_db
COLUMNS = boards.PROBLEM_COLUMNS


@pytest.fixture(autouse=True)
def nothing_kept() -> Iterator[None]:
    board_views._cells_made.clear()
    yield
    board_views._cells_made.clear()


def afresh(rows: list[Any]) -> str:
    """The rows as a process that kept nothing makes them."""
    kept = dict(board_views._cells_made)
    board_views._cells_made.clear()
    try:
        return board_rows(rows, COLUMNS)
    finally:
        board_views._cells_made.update(kept)


def test_a_board_made_again_formats_no_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    first = board_rows(ROWS, COLUMNS)

    def formatted(*_: Any) -> str:
        raise AssertionError("a kept row's cells were formatted again")

    monkeypatch.setattr(numbers, "significant", formatted)
    monkeypatch.setattr(numbers, "with_interval", formatted)
    assert board_rows(ROWS, COLUMNS) == first


@pytest.mark.parametrize("change", [
    {"rank": 2}, {"score": 0.5}, {"score": None}, {"user": "ada-renamed"}, {"team": "<new>"},
    {"submission_id": 8}, {"band": "1–2"}, {"score_ci95": 0.01}, {"confirmation": "disputed"},
    {"row_status": EntryStatus(REWARD_HACK, "reward hack: flagged by the harness", 9)},
])
def test_a_changed_row_is_made_afresh(change: dict[str, Any]) -> None:
    row = problem_row(1, "ada", "team", 0.98765, visible=1.0, hidden=0.5, speedup=2.0)
    before = board_rows([row], COLUMNS)
    changed = dataclasses.replace(row, **change)
    after = board_rows([changed], COLUMNS)
    assert after == afresh([changed])
    assert after != before


def test_another_time_zone_gets_its_own_times() -> None:
    in_utc = board_rows(ROWS[:1], COLUMNS)
    with timezone.override("Asia/Tokyo"):
        in_tokyo = board_rows(ROWS[:1], COLUMNS)
    assert "2026-12-01 10:05" in in_utc and "2026-12-01 19:05" in in_tokyo


def test_a_row_no_key_can_hold_is_made_every_time() -> None:
    row = problem_row(1, "ada", "team", 0.5)
    row.workload_ids = [1, 2]  # a list: unhashable
    assert board_rows([row], COLUMNS) == afresh([row])
    assert not board_views._cells_made
