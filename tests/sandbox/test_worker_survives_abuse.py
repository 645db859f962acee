"""Abusive evaluations one after another, then a good one: whoever supervises them lives on, the
good one passes, and nothing of the abusive runs is left running (no process, no container).
Through the supervising code in this process, and through a real Celery worker on a real Redis
broker, under each sandbox (bubblewrap, docker)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from evaluator.harness import status
from evaluator.models import Evaluation
from submissions.services import create_submission
from tests.conftest import evaluate_source
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end
from tests.sandbox.backends import DOCKER_IMAGE, evaluation_containers
from tests.sandbox.test_escapes import (
    BYTEARRAY_BOMB,
    FORK_BOMB,
    INFINITE_LOOP,
    KILL_GROUP,
    attacking,
)

broker = end_to_end.broker  # the fixture: a flushed Redis database of this xdist process's own

WORKLOAD_SECONDS = 5
MAX_PROCESSES = 32
MEMORY_BYTES = 2 << 30
ABUSES = {"fork-bomb": FORK_BOMB, "memory-bomb": BYTEARRAY_BOMB, "infinite-loop": INFINITE_LOOP,
          "kill-group": KILL_GROUP}
# Through Celery, one of each way an evaluation ends early: a limit, the clock, a dead harness;
# under docker (every abuse is above, without Celery) a limit and a dead harness.
WORKER_ABUSES = {
    "bubblewrap": {name: ABUSES[name] for name in ("fork-bomb", "infinite-loop", "kill-group")},
    "docker": {name: ABUSES[name] for name in ("fork-bomb", "kill-group")},
}
LIMITS = {"max_processes": MAX_PROCESSES, "memory_bytes": MEMORY_BYTES}


def strays(marker: str, *, spare: int | None = None) -> list[str]:
    """Live processes, other than this one and `spare`, that descend from this one or mention
    `marker` in their command line, environment or working directory; waits a few seconds for them
    to go."""
    deadline = time.monotonic() + 5
    while True:
        found = [f"{pid}: {text[:200]}" for pid, text in _processes(marker) if pid != spare]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def _processes(marker: str) -> list[tuple[int, str]]:
    parents: dict[int, int] = {}
    matching: dict[int, str] = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        pid = int(name)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            environ = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue  # gone meanwhile, or a kernel thread
        state, ppid = stat[stat.rfind(")") + 2:].split()[:2]
        if state == "Z" or pid == os.getpid():
            continue
        parents[pid] = int(ppid)
        if marker in cmdline or marker in environ or cwd.startswith(marker):
            matching[pid] = cmdline
    me = os.getpid()
    for pid in parents:
        ancestor = parents.get(pid)
        while ancestor is not None and ancestor != me:
            ancestor = parents.get(ancestor)
        if ancestor == me:
            matching.setdefault(pid, "a child of the test process")
    return sorted(matching.items())


def test_the_supervisor_lives_on_after_abuse(tmp_path: Path, sandbox_backend: str) -> None:
    containers = set(evaluation_containers())
    for name, attack in ABUSES.items():
        (tmp_path / name).mkdir()
        evaluated = evaluate_source(tmp_path / name, attacking(attack), backend=sandbox_backend,
                                    workload_seconds=WORKLOAD_SECONDS, supervise=LIMITS)
        assert set(evaluated.statuses.values()) != {status.PASSED}, f"{name} was not stopped"
        assert not strays(str(tmp_path / name)), f"{name} left processes behind"
    (tmp_path / "good").mkdir()
    good = evaluate_source(tmp_path / "good", factories.CORRECT, backend=sandbox_backend,
                           workload_seconds=WORKLOAD_SECONDS, supervise=LIMITS)
    assert set(good.statuses.values()) == {status.PASSED}, good.outcome.results
    assert not strays(str(tmp_path))
    # Every container, the killed ones included, was removed (others' runs may come and go).
    left = [name for name in set(evaluation_containers()) - containers if str(tmp_path) in _job_dir(name)]
    assert not left, left


def _job_dir(container: str) -> str:
    import docker

    try:
        return docker.from_env().containers.get(container).labels.get("solarena.job-dir", "")
    except docker.errors.NotFound:
        return ""


@pytest.fixture
def worker_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The worker's settings: tight limits, and its job directories under tmp_path (returned)."""
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    for key, value in {"SOLARENA_WORKLOAD_SECONDS": WORKLOAD_SECONDS,
                       "SOLARENA_EVAL_MAX_PROCESSES": MAX_PROCESSES,
                       "SOLARENA_EVAL_MEMORY_BYTES": MEMORY_BYTES, "TMPDIR": jobs}.items():
        monkeypatch.setenv(key, str(value))
    return jobs


@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_lives_on_after_abuse(broker: str, worker_limits: Path, tmp_path: Path,
                                              sandbox_backend: str) -> None:
    cpu, problem, owner = factories.make_hardware("cpu"), factories.make_problem(), factories.make_user()
    log = tmp_path / "worker.log"
    abuses = WORKER_ABUSES[sandbox_backend]
    sandbox = {"SOLARENA_SANDBOX": sandbox_backend}
    if sandbox_backend == "docker":
        sandbox["SOLARENA_DOCKER_IMAGE"] = DOCKER_IMAGE
    with end_to_end.celery_worker(broker, log, sandbox) as worker:
        evaluations: list[Evaluation] = [
            create_submission(owner, problem, factories.solution(source), "python", [cpu]).evaluations.get()
            for source in [*map(attacking, abuses.values()), factories.CORRECT]
        ]
        # Every one, and the confirmation run the good one gets as the board's new leader: the worker
        # is idle before its leftovers are counted.
        every = Evaluation.objects.filter(submission__problem=problem)
        deadline = time.monotonic() + end_to_end.DEADLINE_SECONDS * (2 + len(abuses))
        while every.exclude(state__in=Evaluation.TERMINAL).exists() and time.monotonic() < deadline:
            assert worker.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
        for evaluation in evaluations:
            evaluation.refresh_from_db()
        assert worker.poll() is None, log.read_text()[-3000:]
        left = strays(str(worker_limits), spare=worker.pid)
    *abusive, good = evaluations
    for name, evaluation in zip(abuses, abusive, strict=True):
        assert evaluation.state in Evaluation.TERMINAL, f"{name} never ended: {evaluation.state}"
        assert set(evaluation.results.values_list("status", flat=True)) != {status.PASSED}, name
    assert good.state == Evaluation.SCORED, f"{good.state} {good.error}\n{log.read_text()[-3000:]}"
    assert set(good.results.values_list("status", flat=True)) == {status.PASSED}
    assert good.started_at >= max(e.finished_at for e in abusive), "the good one did not come last"
    assert not left, left
