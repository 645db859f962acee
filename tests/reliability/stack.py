"""The platform of one fault test: its private PostgreSQL database and Redis broker, this test
process's ORM and Celery app pointed at them, and real Celery worker and sweeper processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import dj_database_url
from django.db import DatabaseError, connection, connections
from django.db.utils import load_backend

from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.services import create_submission
from tests.conftest import ROOT
from tests.platform import factories
from tests.platform.test_worker_end_to_end import sandbox_env
from tests.reliability.servers import PostgresServer, RedisServer

WORKER_ARGV = [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", "hw.cpu",
               "-P", "solo", "-c", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
               "--without-heartbeat"]


@dataclass
class Process:
    """A worker or sweeper in its own process group (so a kill takes its harness with it)."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self) -> str:
        return f"--- {self.name} ({self.log}) ---\n{self.text()[-4000:]}"

    def kill(self) -> None:
        """SIGKILL to the whole group, as when a host or container dies."""
        os.killpg(self.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if not self.alive():
            return
        os.killpg(self.pid, signal.SIGTERM)
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class Stack:
    postgres: PostgresServer
    redis: RedisServer
    database_url: str
    directory: Path
    processes: list[Process] = field(default_factory=list)

    def env(self, **settings: object) -> dict[str, str]:
        """The environment of a platform process: this stack's servers, the e2e tests' sandbox, job
        directories under the test's own directory, and `settings` (environment variables)."""
        jobs = self.directory / "jobs"
        jobs.mkdir(exist_ok=True)
        return {**os.environ, "DATABASE_URL": self.database_url, "CELERY_BROKER_URL": self.redis.url(),
                "DJANGO_SETTINGS_MODULE": "solarena.settings", "PYTHONUNBUFFERED": "1", "TMPDIR": str(jobs),
                **sandbox_env(), **{key: str(value) for key, value in settings.items()}}

    def start(self, name: str, argv: list[str], **settings: object) -> Process:
        log = self.directory / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(argv, cwd=ROOT, env=self.env(**settings), stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        process = Process(name, popen, log)
        self.processes.append(process)
        return process

    def worker(self, name: str, **settings: object) -> Process:
        """A Celery worker of the cpu queue named `name`@host (evaluation.worker starts with it)."""
        return self.start(name, [*WORKER_ARGV, "--hostname", f"{name}@%h"], **settings)

    def sweeper(self, every: float, **settings: object) -> Process:
        return self.start("sweeper", [sys.executable, "manage.py", "sweep_evaluations", "--loop",
                                      str(every)], **settings)

    def web(self, port: int) -> Process:
        """The web tier: gunicorn with one sync worker, which keeps its database connection between
        requests (CONN_MAX_AGE)."""
        return self.start("web", [sys.executable, "-m", "gunicorn", "solarena.wsgi:application", "--bind",
                                  f"127.0.0.1:{port}", "--workers", "1"])

    def sweep_once(self, **settings: object) -> str:
        done = subprocess.run([sys.executable, "manage.py", "sweep_evaluations"], cwd=ROOT,
                              env=self.env(**settings), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def stop_all(self) -> None:
        for process in self.processes:
            process.stop()

    def tails(self) -> str:
        return "\n".join(p.tail() for p in self.processes)

    def wait_for(self, what: str, ready: Callable[[], bool], seconds: float = 120,
                 needed: tuple[Process, ...] = ()) -> None:
        """Poll `ready` until it holds; fail naming `what`, with the processes' logs, when time runs out
        or a process in `needed` dies. A query that meets a database being restarted is tried again."""
        deadline = time.monotonic() + seconds
        while True:
            for process in needed:
                assert process.alive(), f"{process.name} died while waiting for {what}\n{self.tails()}"
            try:
                if ready():
                    return
            except DatabaseError:
                connection.close()
            assert time.monotonic() < deadline, f"timed out waiting for {what}\n{self.tails()}"
            time.sleep(0.1)

    def mid_evaluation(self, evaluation: Evaluation, needed: tuple[Process, ...] = ()) -> None:
        """Wait until the evaluation runs and its lease was renewed since the claim: at least one
        workload has its verdict, the others are still to come (the evaluation is refreshed)."""
        claimed_lease = []

        def renewed() -> bool:
            evaluation.refresh_from_db()
            if evaluation.state != Evaluation.RUNNING:
                return False
            claimed_lease[:1] = claimed_lease[:1] or [evaluation.lease_until]
            return evaluation.lease_until > claimed_lease[0]

        self.wait_for("the first workload's verdict", renewed, needed=needed)

    def settled(self, evaluations: list[Evaluation], seconds: float = 150,
                needed: tuple[Process, ...] = ()) -> None:
        """Wait until every evaluation is in a terminal state (they are refreshed)."""
        def done() -> bool:
            for evaluation in evaluations:
                evaluation.refresh_from_db()
            return all(e.state in Evaluation.TERMINAL for e in evaluations)

        self.wait_for("terminal states", done, seconds, needed)

    def scores_logged(self, worker: Process, evaluations: list[Evaluation]) -> None:
        """Wait until `worker` has logged each evaluation as scored: it does so after ingest's commit
        and the callbacks that commit runs (the message of a confirmation run), so a little later
        than the database says so."""
        self.wait_for(f"{worker.name} to log the scores",
                      lambda: all(scored_lines(worker, e) > 0 for e in evaluations), needed=(worker,))


def submit(problem: Problem, cpu: Hardware, source: str = factories.CORRECT) -> Evaluation:
    """A new participant's submission on the cpu hardware, as the API makes it (sent on commit)."""
    owner = factories.make_user()
    return create_submission(owner, problem, factories.solution(source), "python", [cpu]).evaluations.get()


def scored_lines(process: Process, evaluation: Evaluation) -> int:
    """How many times the worker's log says it scored the evaluation."""
    return process.text().count(f"evaluation #{evaluation.pk}: scored")


@contextmanager
def orm_on(url: str) -> Iterator[None]:
    """This thread's default connection on the database at `url` (the settings' other options kept)."""
    original = connections["default"]
    config = {**original.settings_dict, **dj_database_url.parse(
        url, conn_max_age=original.settings_dict["CONN_MAX_AGE"],
        conn_health_checks=original.settings_dict["CONN_HEALTH_CHECKS"])}
    private = load_backend(config["ENGINE"]).DatabaseWrapper(config, "default")
    connections["default"] = private
    try:
        yield
    finally:
        private.close()
        connections["default"] = original
