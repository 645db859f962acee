"""Class 5, caching and replay: caches keyed by id(), data_ptr, shape, a fingerprint of a few
elements, the full contents, or files that outlive the process. A replayed output must never be
scored: either the inputs never repeat (so nothing is replayed) or the replay is caught."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.anticheat.conftest import MANY_CALLS, assert_cheated_workloads_never_score, evaluate_cheat

IN_MEMORY = ["cache_by_id", "cache_by_data_ptr", "cache_by_shape", "cache_by_fingerprint", "cache_by_content"]
DISK_CACHE = Path(tempfile.gettempdir()) / "solarena-replay-cache"  # where cache_in_file keeps its store


@pytest.mark.parametrize("name", IN_MEMORY)
def test_a_replayed_output_is_never_scored(tmp_path: Path, name: str) -> None:
    assert_cheated_workloads_never_score(evaluate_cheat(tmp_path, name, options=MANY_CALLS))


@pytest.fixture
def empty_disk_cache() -> Iterator[None]:
    shutil.rmtree(DISK_CACHE, ignore_errors=True)
    yield
    shutil.rmtree(DISK_CACHE, ignore_errors=True)


@pytest.mark.usefixtures("empty_disk_cache")
def test_a_cache_on_disk_never_serves_a_scored_call_in_a_later_run(tmp_path: Path) -> None:
    # The same submission evaluated twice, each run with its own secret seed, as the platform does.
    for attempt in ("first", "second"):
        here = tmp_path / attempt
        here.mkdir()
        run = evaluate_cheat(here, "cache_in_file", options=MANY_CALLS, seed=secrets.randbits(48))
        assert_cheated_workloads_never_score(run)
