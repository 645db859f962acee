"""A real Celery worker says which hardware it serves as soon as it is ready, and takes that back
when it shuts down: the heartbeat rows that submissions are checked against (evaluator/workers.py)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from evaluator import workers
from evaluator.models import WorkerHeartbeat
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own


@pytest.mark.django_db(transaction=True)
def test_a_worker_beats_while_it_runs_and_not_after(broker: str, tmp_path: Path, settings: Any) -> None:
    cpu = factories.make_hardware("cpu")
    settings.SOLARENA_EXPECTED_HARDWARE = ""
    log = tmp_path / "worker.log"
    with end_to_end.celery_worker(broker, log) as worker:
        deadline = time.monotonic() + end_to_end.DEADLINE_SECONDS
        while not WorkerHeartbeat.objects.filter(hardware=cpu).exists() and time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
        beats = list(WorkerHeartbeat.objects.filter(hardware=cpu))
        assert len(beats) == 1, log.read_text()[-3000:]
        assert beats[0].worker.endswith(f"/{worker.pid}")
        assert workers.availability([cpu])["cpu"].state == workers.ONLINE
    assert not WorkerHeartbeat.objects.filter(hardware=cpu).exists(), log.read_text()[-3000:]
    assert workers.availability([cpu])["cpu"].state == workers.OFFLINE
