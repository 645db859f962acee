"""Dispatch latency: from a submission's commit to a worker's claim (Evaluation.started_at), with
PostgreSQL, Redis and one idle real Celery worker on the CPU queue.

    python benchmarks/dispatch_latency.py [-n 20] [--database-url URL] [--broker-url URL] [--out FILE]

Each submission is created only after the previous evaluation finished, so the worker is idle
when the message arrives. Writes docs/benchmarks/dispatch-latency.md. Target: median under 1 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "benchmarks" / "dispatch-latency.md"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=20, help="submissions, one at a time")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/solarena_bench")
    parser.add_argument("--broker-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--out", type=Path, default=OUT, help="the report (Markdown)")
    args = parser.parse_args()
    os.environ.update(DATABASE_URL=args.database_url, CELERY_BROKER_URL=args.broker_url,
                      DJANGO_SETTINGS_MODULE="solarena.settings",
                      API_THROTTLE_SUBMISSIONS="1000000/minute")  # one owner submits -n in a row
    prepare_database(args.database_url)
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    redis.Redis.from_url(args.broker_url).flushdb()
    log = Path(os.environ.get("TMPDIR", "/tmp")) / "solarena-dispatch-worker.log"
    worker = start_worker(log)
    try:
        latencies = measure(args.n, log)
    finally:
        worker.terminate()
        worker.wait(30)
    write_report(latencies, args.out)
    return 0


def prepare_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def start_worker(log: Path) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", "hw.cpu",
            "-P", "solo", "-c", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
            "--without-heartbeat"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while " ready." not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    return process


def measure(n: int, log: Path) -> list[float]:
    from django.db import transaction
    from django.utils import timezone

    from evaluator.models import Evaluation
    from leaderboard.models import Problem
    from submissions.services import create_submission
    from tests.platform import factories

    cpu = factories.make_hardware("cpu")
    problem = Problem.objects.filter(name="scale_shift").first() or factories.make_problem()
    owner = factories.make_user(f"bench-{int(time.time())}")
    latencies = []
    for i in range(n):
        committed: list[datetime] = []
        with transaction.atomic():
            # Registered first, so it runs at the commit, before the message is sent.
            transaction.on_commit(lambda stamps=committed: stamps.append(timezone.now()))
            submission = create_submission(owner, problem, factories.solution(), "python", [cpu])
        evaluation = submission.evaluations.get()
        deadline = time.monotonic() + 120
        while evaluation.state not in Evaluation.TERMINAL:
            if time.monotonic() > deadline:
                raise SystemExit(f"evaluation #{evaluation.pk} did not finish:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
            evaluation.refresh_from_db()
        latency = (evaluation.started_at - committed[0]).total_seconds()
        latencies.append(latency)
        print(f"{i + 1:3d}/{n}: claimed {latency * 1000:7.1f} ms after commit ({evaluation.state})")
    return latencies


def write_report(latencies: list[float], out: Path) -> None:
    ordered = sorted(latencies)
    median = statistics.median(ordered)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    machine = f"{platform.node()}, {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, " \
              f"{platform.system()} {platform.release()}, Python {platform.python_version()}"
    lines = [
        f"# Dispatch latency ({datetime.now():%Y-%m-%d})",
        "",
        "`benchmarks/dispatch_latency.py`: time from a submission's commit to an idle worker's claim",
        "(`Evaluation.started_at`), PostgreSQL + Redis + one `celery worker -P solo -Q hw.cpu`,",
        f"{len(ordered)} submissions one at a time. Target: median under 1 s.",
        "",
        f"- machine: {machine}",
        f"- median: {median * 1000:.1f} ms",
        f"- p95: {p95 * 1000:.1f} ms",
        f"- min / max: {ordered[0] * 1000:.1f} / {ordered[-1] * 1000:.1f} ms",
        "",
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
