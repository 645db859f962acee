"""Shared API fixtures: throttle counters start empty in every test (they live in the cache)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache

from leaderboard.models import Hardware, Problem
from tests.platform import factories


@pytest.fixture(autouse=True)
def empty_throttle_counters() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def problem(db: Any) -> Problem:
    return factories.make_problem()


@pytest.fixture
def cpu(db: Any) -> Hardware:
    return factories.make_hardware("cpu")

