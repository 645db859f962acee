"""Fixtures the platform tests share: the fixture problem and the cpu hardware to submit to."""

from __future__ import annotations

from typing import Any

import pytest

from leaderboard.models import Hardware, Problem
from tests.platform import factories


@pytest.fixture
def problem(db: Any) -> Problem:
    return factories.make_problem()


@pytest.fixture
def cpu(db: Any) -> Hardware:
    return factories.make_hardware("cpu")
