"""Load: concurrent clients submit solutions through POST /api/v1/submissions/ to the app under
gunicorn on PostgreSQL, with real Celery workers on the cpu queue; then every accepted submission
must reach a terminal state exactly once and every refusal must say why.

    python benchmarks/load.py OUT_DIR [--clients 50] [--submissions 2000]

It starts and stops everything it needs: a fresh database (`--database-url`, dropped at the end
unless --keep-database), a private redis-server (broker and the shared throttle cache), gunicorn
(production settings, plain HTTP), the evaluation workers and the sweeper (reaper and dispatcher).
Users and tokens are made through the ORM, not the API: one participant per client.

The harness is the cost of an evaluation (two Python processes importing torch: seconds of CPU
each), so the main run gives the workers SOLARENA_EVAL_SECONDS=0: each evaluation is claimed,
its job written, every workload given the TIMEOUT verdict without starting the harness, and the
report ingested and ranked: the whole platform path but the measuring process. `--scored N`
(default 4) then sends N more submissions to workers with the harness on, which must come back
scored. Writes OUT_DIR/<date>-load.json and .md; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from common import machine, percentile, recreate_database, server_timing  # beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SUBMISSIONS = "/api/v1/submissions/"
SOLUTION = "import torch\n\n\ndef run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
TARGET_P95_MS = 200.0


@dataclass
class Attempt:
    """One POST: who sent it, what came back, and how long it took."""

    n: int
    client: int
    status: int | None
    latency_ms: float
    submission: int | None = None
    reason: str = ""
    sent_s: float = 0.0  # when it was sent, seconds after the first client started
    server_ms: float | None = None  # the request's time inside Django (Server-Timing)


@dataclass
class Checks:
    """What the database says after the run; `problems` lists every broken promise."""

    states: dict[str, int] = field(default_factory=dict)
    attempts: dict[str, int] = field(default_factory=dict)
    results_per_evaluation: dict[str, int] = field(default_factory=dict)
    claims_per_evaluation: dict[str, int] = field(default_factory=dict)
    stored_submissions: int = 0
    lost: int = 0
    duplicated: int = 0
    problems: list[str] = field(default_factory=list)


# The platform's processes -------------------------------------------------------------------


class Stack:
    """PostgreSQL database, private Redis, gunicorn, workers and sweeper of one run."""

    def __init__(self, database_url: str, logs: Path) -> None:
        self.database_url, self.logs = database_url, logs
        self.redis_port, self.web_port = free_port(), free_port()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        jobs = logs / "jobs"
        jobs.mkdir(parents=True, exist_ok=True)
        redis = f"redis://127.0.0.1:{self.redis_port}"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("SOLARENA_", "API_", "SECURE_"))},
            "DJANGO_SETTINGS_MODULE": "solarena.settings", "PYTHONUNBUFFERED": "1",
            "DATABASE_URL": database_url, "CELERY_BROKER_URL": f"{redis}/0", "CACHE_URL": f"{redis}/1",
            "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0", "SOLARENA_HIDDEN_SECRET": secrets.token_urlsafe(24),
            # one participant per client, each far below these: the run measures the platform, not them
            "API_THROTTLE_USER": "1000000/minute", "API_THROTTLE_SUBMISSIONS": "1000000/minute",
            "TMPDIR": str(jobs), **sandbox_env(),
        }

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self, name: str, argv: list[str], **extra: str) -> None:
        with open(self.logs / f"{name}.log", "ab") as log:
            self.processes[name] = subprocess.Popen(argv, cwd=ROOT, env={**self.env, **extra}, stdout=log,
                                                    stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self, name: str) -> None:
        process = self.processes.pop(name)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def stop_all(self) -> None:
        for name in reversed(list(self.processes)):
            self.stop(name)

    def manage(self, *args: str) -> None:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")

    def start_redis(self) -> None:
        self.start("redis", ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(self.logs)])
        self.wait_until("redis", lambda: socket.create_connection(("127.0.0.1", self.redis_port), 1).close())

    def start_web(self, workers: int) -> None:
        # As docker/web.Dockerfile runs it (sync workers, one request each at a time), through
        # ops.timing, whose Server-Timing header tells the server's part of each latency.
        self.start("web", [sys.executable, "-m", "gunicorn", "ops.timing:application",
                           "--bind", f"127.0.0.1:{self.web_port}", "--workers", str(workers),
                           "--graceful-timeout", "30"])
        self.wait_until("web", lambda: httpx.get(f"{self.url}/livez", timeout=2).raise_for_status())

    def start_workers(self, count: int, prefix: str, **settings: str) -> list[str]:
        names = [f"{prefix}{i}" for i in range(count)]
        for name in names:
            self.start(name, [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker",
                              "-Q", "hw.cpu", "-P", "solo", "-c", "1", "--hostname", f"{name}@%h",
                              "--loglevel", "INFO", "--without-gossip", "--without-mingle",
                              "--without-heartbeat"], **settings)
        for name in names:
            self.wait_until(name, lambda name=name: _require(" ready." in self.log(name)))
        return names

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def wait_until(self, name: str, ready: Any, seconds: float = 180) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                ready()
                return
            except Exception:
                process = self.processes[name]
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{name} did not start:\n{self.log(name)[-3000:]}") from None
                time.sleep(0.2)


def _require(condition: bool) -> None:
    if not condition:
        raise RuntimeError("not yet")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sandbox_env() -> dict[str, str]:
    if shutil.which("bwrap"):
        return {"SOLARENA_SANDBOX": "bubblewrap"}
    return {"SOLARENA_SANDBOX": "none", "SOLARENA_TRUSTED_WORKER": "1"}  # runs only this script's code


# Clients ------------------------------------------------------------------------------------


def warm_up(url: str, tokens: list[str], workers: int) -> list[float]:
    """Before the clock starts, as after any deploy once the first requests came: each gunicorn
    worker imports the views, connects to PostgreSQL and Redis on its first requests (up to ~3 s
    on two cores). Requests that store nothing: the caller's submissions list, and a submission
    of an unknown problem (a 400, after authentication, throttling and validation). Returns their
    latencies in ms."""
    latencies: list[float] = []
    lock = threading.Lock()
    bad = {"problem": "no-such-problem", "hardware": ["cpu"], "language": "python",
           "sources": {"solution.py": SOLUTION}, "entry": "solution.py"}

    def client(token: str) -> None:
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
            for _ in range(5):
                for send in (lambda: http.get(SUBMISSIONS), lambda: http.post(SUBMISSIONS, json=bad)):
                    started = time.perf_counter()
                    status = send().status_code
                    if status not in (200, 400):
                        raise SystemExit(f"warm-up request answered {status}")
                    with lock:
                        latencies.append((time.perf_counter() - started) * 1e3)

    threads = [threading.Thread(target=client, args=(token,)) for token in tokens[:2 * workers]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def submit_all(url: str, tokens: list[str], total: int, first: int = 0,
               rate: float = 0) -> tuple[list[Attempt], float]:
    """One thread per token, each POSTing until `total` submissions were sent; the wall seconds.
    With `rate`, each client keeps to its share of that many submissions per second (sending at
    once when its previous answer came late), the clients' turns spread evenly; else no pause."""
    attempts: list[Attempt] = []
    lock = threading.Lock()
    sent = iter(range(first, first + total))
    interval = len(tokens) / rate if rate else 0.0
    started = time.perf_counter()

    def client(index: int) -> None:
        headers = {"Authorization": f"Bearer {tokens[index]}"}
        due = started + index / rate if rate else 0.0
        with httpx.Client(base_url=url, headers=headers, timeout=120) as http:
            while True:
                with lock:
                    n = next(sent, None)
                if n is None:
                    return
                if rate:
                    time.sleep(max(0.0, due - time.perf_counter()))
                    due += interval
                attempt = submit(http, n, index)
                attempt.sent_s = round(time.perf_counter() - started - attempt.latency_ms / 1e3, 3)
                with lock:
                    attempts.append(attempt)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(tokens))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(attempts, key=lambda a: a.n), time.perf_counter() - started


def submit(http: httpx.Client, n: int, client: int) -> Attempt:
    body = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
            "sources": {"solution.py": f"{SOLUTION}# load {n}\n"}, "entry": "solution.py"}
    started = time.perf_counter()
    try:
        response = http.post(SUBMISSIONS, json=body)
    except httpx.HTTPError as exc:
        return Attempt(n, client, None, (time.perf_counter() - started) * 1e3,
                       reason=f"{type(exc).__name__}: {exc}")
    latency = (time.perf_counter() - started) * 1e3
    timing = server_timing(response.headers.get("server-timing", ""))
    server = timing.app_ms if timing else None
    if response.status_code == 201:
        return Attempt(n, client, 201, latency, submission=response.json()["id"], server_ms=server)
    return Attempt(n, client, response.status_code, latency, reason=response.text[:500], server_ms=server)


# Checks -------------------------------------------------------------------------------------


def wait_terminal(ids: list[int], seconds: float) -> float:
    """Seconds until every evaluation of these submissions is terminal (SystemExit past `seconds`)."""
    from evaluator.models import Evaluation

    started = time.monotonic()
    while True:
        left = Evaluation.objects.filter(submission_id__in=ids).exclude(state__in=Evaluation.TERMINAL).count()
        if not left:
            return time.monotonic() - started
        if time.monotonic() - started > seconds:
            print(f"{left} evaluations still not terminal after {seconds:.0f} s")
            return float("nan")
        print(f"  {left} evaluations queued or running", flush=True)
        time.sleep(5)


def check(attempts: list[Attempt], tokens_users: dict[int, int], worker_logs: str,
          expect_results: int, scored: bool = False) -> Checks:
    """Every 2xx id stored once, with its own source and owner and one terminal evaluation; nothing
    stored for a refusal; results, claims and leaderboard entries counted once."""
    from django.db.models import Count

    from evaluator.models import Evaluation
    from leaderboard.models import LeaderboardEntry
    from submissions.models import Submission

    c = Checks()
    accepted = [a for a in attempts if a.status == 201]
    ids = [a.submission for a in accepted]
    if len(set(ids)) != len(ids):
        c.duplicated += len(ids) - len(set(ids))
        c.problems.append(f"{len(ids) - len(set(ids))} ids answered twice")
    for a in attempts:
        if a.status != 201 and not a.reason.strip():
            c.lost += 1
            c.problems.append(f"request {a.n}: {a.status} without a reason")
    users = set(tokens_users.values())
    stored = {s.pk: s for s in Submission.objects.filter(owner_id__in=users)
              .annotate(evaluations_count=Count("evaluations"))}
    c.stored_submissions = len(stored)
    for a in accepted:
        s = stored.get(a.submission)  # type: ignore[arg-type]
        if s is None:
            c.lost += 1
            c.problems.append(f"submission #{a.submission} (request {a.n}) answered 201 but is not stored")
        elif s.owner_id != tokens_users[a.client] or not s.sources["solution.py"].endswith(f"# load {a.n}\n"):
            c.problems.append(f"submission #{a.submission} holds another request's owner or source")
        elif s.evaluations_count != 1:
            c.duplicated += s.evaluations_count > 1
            c.problems.append(f"submission #{a.submission} has {s.evaluations_count} evaluations, not 1")
    extra = len(stored) - len(set(ids))
    if extra:
        c.duplicated += max(extra, 0)
        c.problems.append(f"{extra} submissions stored beyond the 201 answers (a refusal stored something?)")
    evaluations = list(Evaluation.objects.filter(submission_id__in=ids)
                       .annotate(results_count=Count("results")))
    c.states = dict(Counter(e.state for e in evaluations))
    c.attempts = histogram(e.attempts for e in evaluations)
    c.results_per_evaluation = histogram(e.results_count for e in evaluations)
    for e in evaluations:
        if e.state not in Evaluation.TERMINAL:
            c.lost += 1
            c.problems.append(f"evaluation #{e.pk} is still {e.state}")
        elif e.state == Evaluation.SCORED and e.results_count != expect_results:
            c.problems.append(f"evaluation #{e.pk} has {e.results_count} workload results, "
                              f"not {expect_results}")
        elif scored and (e.state != Evaluation.SCORED or not e.score):
            c.problems.append(f"evaluation #{e.pk} with the harness on: {e.state}, score {e.score} "
                              f"({e.error})")
    claims = Counter(int(line.split("#", 1)[1].split(":", 1)[0]) for line in worker_logs.splitlines()
                     if ": claimed by " in line)
    c.claims_per_evaluation = histogram(claims[e.pk] for e in evaluations)
    twice = [e.pk for e in evaluations if claims[e.pk] > max(e.attempts, 1)]
    if twice:
        c.duplicated += len(twice)
        c.problems.append(f"evaluations run more often than their attempts: {twice[:10]}")
    # One entry per participant and board, counting each scored evaluation once.
    scored_by_user = Counter(e.submission.owner_id for e in Evaluation.objects.filter(
        submission_id__in=ids, state=Evaluation.SCORED).select_related("submission"))
    entries = Counter()
    for entry in LeaderboardEntry.objects.filter(user_id__in=users):
        entries[(entry.problem_id, entry.hardware_id, entry.user_id)] += 1
        if entry.submissions != scored_by_user[entry.user_id]:
            c.problems.append(f"user {entry.user_id}'s entry counts {entry.submissions} submissions, "
                              f"{scored_by_user[entry.user_id]} scored")
    doubled = [key for key, count in entries.items() if count > 1]
    if doubled or len(entries) != len(scored_by_user):
        c.duplicated += len(doubled)
        c.problems.append(f"{len(entries)} leaderboard entries for {len(scored_by_user)} participants "
                          f"with scored evaluations ({len(doubled)} doubled)")
    return c


# The run ------------------------------------------------------------------------------------


def histogram(values: Iterable[int]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(values).items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--submissions", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=0,
                        help="submissions per second offered by all clients together (default: no pause)")
    parser.add_argument("--web-workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--eval-workers", type=int, default=4, help="Celery workers on the cpu queue")
    parser.add_argument("--scored", type=int, default=4,
                        help="submissions run through the real harness afterwards")
    parser.add_argument("--drain-seconds", type=float, default=1200)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/solarena_load")
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument("--note", default="", help="a sentence for the report (where it was measured)")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="solarena-load-"))
    print(f"logs: {logs}")
    recreate_database(args.database_url)
    stack = Stack(args.database_url, logs)
    os.environ.update(stack.env)
    import django

    django.setup()
    try:
        report = run(stack, args)
    finally:
        stack.stop_all()
        from django.db import connections

        connections.close_all()
        if not args.keep_database:
            recreate_database(args.database_url, drop_only=True)
    written = write_report(args.out_dir, report)
    print(written.read_text())
    return 0 if report["targets_met"] else 1


def run(stack: Stack, args: argparse.Namespace) -> dict[str, Any]:
    from django.contrib.auth import get_user_model

    from accounts.services import create_token
    from leaderboard.models import Problem
    from leaderboard.problems import workloads_for

    stack.manage("migrate", "--verbosity", "0")
    stack.manage("sync_problems", str(ROOT / "tests" / "fixtures" / "problems"))
    users = [get_user_model().objects.create_user(f"load{i}") for i in range(args.clients)]
    tokens = [create_token(user, "load")[1] for user in users]
    tokens_users = {i: user.pk for i, user in enumerate(users)}
    expect_results = len(workloads_for(Problem.objects.get(name="scale_shift", is_current=True), smoke=True))
    stack.start_redis()
    stack.start_web(args.web_workers)
    workers = stack.start_workers(args.eval_workers, "load", SOLARENA_EVAL_SECONDS="0")
    stack.start("sweeper", [sys.executable, "manage.py", "sweep_evaluations", "--loop", "10"])

    print(f"{args.clients} clients sending {args.submissions} submissions to {stack.url}", flush=True)
    cold = warm_up(stack.url, tokens, args.web_workers)
    print(f"warmed up: {len(cold)} requests, slowest {max(cold):.0f} ms", flush=True)
    attempts, send_seconds = submit_all(stack.url, tokens, args.submissions, rate=args.rate)
    accepted = [a for a in attempts if a.status == 201]
    print(f"sent in {send_seconds:.1f} s; waiting for the evaluations", flush=True)
    drain_seconds = wait_terminal([a.submission for a in accepted], args.drain_seconds)  # type: ignore[misc]
    total_seconds = send_seconds + drain_seconds
    checks = check(attempts, tokens_users, "".join(stack.log(w) for w in workers), expect_results)
    for worker in workers:
        stack.stop(worker)

    scored = run_scored(stack, args, expect_results) if args.scored else None
    report_cold = {"requests": len(cold), "max_ms": round(max(cold), 1),
                   "p50_ms": round(percentile(cold, 0.5), 1)}
    latencies = [a.latency_ms for a in accepted]
    servers = [a.server_ms for a in accepted if a.server_ms is not None]
    refusals = Counter(f"{a.status}: {a.reason[:160]}" for a in attempts if a.status != 201)
    return {
        "date": datetime.now().strftime("%Y-%m-%d"),
        "note": args.note,
        "machine": machine(),
        "settings": {"clients": args.clients, "submissions": args.submissions, "rate": args.rate,
                     "gunicorn_workers": args.web_workers, "celery_workers": args.eval_workers,
                     "problem": "scale_shift (tests/fixtures/problems)",
                     "hardware": "cpu", "worker_setting": "SOLARENA_EVAL_SECONDS=0",
                     "sandbox": stack.env["SOLARENA_SANDBOX"],
                     "throttles": "API_THROTTLE_USER and API_THROTTLE_SUBMISSIONS 1000000/minute",
                     "participants": args.clients, "quota_and_in_flight_limits": "defaults (50/day, 100)"},
        "accepted": len(accepted), "refused": dict(refusals),
        "send_seconds": round(send_seconds, 2),
        "accepted_per_second": round(len(accepted) / send_seconds, 1),
        "latency_ms": {"p50": round(percentile(latencies, 0.5), 1),
                       "p95": round(percentile(latencies, 0.95), 1),
                       "p99": round(percentile(latencies, 0.99), 1),
                       "max": round(max(latencies, default=0), 1),
                       "mean": round(statistics.fmean(latencies), 1) if latencies else None},
        "server_ms": {"p50": round(percentile(servers, 0.5), 1), "p95": round(percentile(servers, 0.95), 1),
                      "p99": round(percentile(servers, 0.99), 1), "max": round(max(servers, default=0), 1)},
        "warm_up": report_cold,
        "slowest": [{"n": a.n, "sent_s": a.sent_s, "latency_ms": round(a.latency_ms, 1),
                     "server_ms": a.server_ms, "status": a.status}
                    for a in sorted(attempts, key=lambda a: -a.latency_ms)[:20]],
        "drain_seconds_after_sending": round(drain_seconds, 1),
        "evaluations_per_second": round(len(accepted) / total_seconds, 1) if total_seconds else None,
        "checks": asdict(checks),
        "scored_phase": scored,
        "targets_met": bool(latencies) and percentile(latencies, 0.95) < TARGET_P95_MS and not checks.lost
        and not checks.duplicated and not checks.problems and (scored is None or not scored["problems"]),
        "logs": str(stack.logs),
    }


def run_scored(stack: Stack, args: argparse.Namespace, expect_results: int) -> dict[str, Any]:
    """A few submissions with the harness on (two workers), which must all come back scored."""
    from django.contrib.auth import get_user_model

    from accounts.services import create_token

    user = get_user_model().objects.create_user("load-scored")
    workers = stack.start_workers(2, "scored")
    print(f"{args.scored} submissions with the harness on", flush=True)
    attempts, _ = submit_all(stack.url, [create_token(user, "load")[1]], args.scored, first=10**6)
    ids = [a.submission for a in attempts if a.status == 201]
    started = time.monotonic()
    wait_terminal(ids, args.drain_seconds)  # type: ignore[arg-type]
    seconds = time.monotonic() - started
    logs = "".join(stack.log(w) for w in workers)
    checks = check(attempts, {0: user.pk}, logs, expect_results, scored=True)
    if len(ids) != args.scored:
        checks.problems.append(f"{args.scored - len(ids)} of the scored phase's submissions were refused")
    return {"submissions": args.scored, "harness_workers": 2, "seconds_until_all_scored": round(seconds, 1),
            "states": checks.states, "problems": checks.problems}


def write_report(out_dir: Path, report: dict[str, Any]) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    rate = report["settings"]["rate"]
    stem = out_dir / (f"{report['date']}-load" + (f"-rate{rate:g}" if rate else ""))
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    markdown = stem.with_suffix(".md")
    markdown.write_text(render(report), encoding="utf-8")
    return markdown


def render(r: dict[str, Any]) -> str:
    s, c, lat = r["settings"], r["checks"], r["latency_ms"]
    verdict = "met" if r["targets_met"] else "NOT met"
    option = f" --rate {s['rate']:g}" if s["rate"] else ""
    pacing = (f"together offering {s['rate']:g} submissions/s, each keeping to its share" if s["rate"]
              else "no pause between requests: the most the platform accepts")
    lines = [
        f"# Load ({r['date']}{', paced' if s['rate'] else ''})",
        "",
        f"`benchmarks/load.py{option}`: {s['clients']} concurrent "
        f"clients (threads, httpx; {pacing}) sent {s['submissions']} submissions through "
        "`POST /api/v1/submissions/` to gunicorn "
        f"({s['gunicorn_workers']} sync workers, production settings over plain HTTP) on PostgreSQL, with "
        f"{s['celery_workers']} Celery workers (`-P solo`) on the `hw.cpu` queue, the sweeper, and a private "
        "Redis (broker and shared throttle cache). One participant per client, each token made through the "
        f"ORM; {s['throttles']}; the daily quota and the evaluations-in-flight limit at their "
        f"{s['quota_and_in_flight_limits']}. Problem {s['problem']}, hardware `{s['hardware']}`, sandbox "
        f"`{s['sandbox']}`.",
        "",
        f"Workers ran with `{s['worker_setting']}`: each evaluation is claimed, its job written, every "
        "workload given the TIMEOUT verdict without starting the harness, and the report ingested and "
        "ranked. The harness itself (two Python processes importing torch, several CPU seconds each) "
        "would make 2,000 evaluations take hours on two cores; the scored phase below runs it.",
        "",
        f"Targets: p95 accept latency under {TARGET_P95_MS:.0f} ms, nothing lost, nothing duplicated: "
        f"**{verdict}**.",
        "",
        *([f"**{r['note']}**", ""] if r["note"] else []),
        f"- machine: {r['machine']}",
        f"- accepted: {r['accepted']} of {s['submissions']} in {r['send_seconds']} s: "
        f"**{r['accepted_per_second']} accepted/s**",
        f"- accept latency: p50 **{lat['p50']} ms**, p95 **{lat['p95']} ms**, p99 {lat['p99']} ms, "
        f"max {lat['max']} ms (mean {lat['mean']} ms)",
        *([f"- before the clock: {r['warm_up']['requests']} warm-up requests that store nothing "
           f"(each web worker's first requests import the views and connect to PostgreSQL and Redis): "
           f"p50 {r['warm_up']['p50_ms']} ms, slowest {r['warm_up']['max_ms']} ms"]
          if r.get("warm_up") else []),
        *([f"- of which inside Django (Server-Timing): p50 {r['server_ms']['p50']} ms, p95 "
           f"{r['server_ms']['p95']} ms, p99 {r['server_ms']['p99']} ms, max {r['server_ms']['max']} ms; "
           "the rest is the wait for a free gunicorn worker and the connection",
           "- slowest five (sent at s: latency / server ms): " + "; ".join(
               f"{a['sent_s']}: {a['latency_ms']} / {a['server_ms']}" for a in r["slowest"][:5])]
          if r.get("server_ms") else []),
        *([f"- clients that never pause queue behind each other: latency is about clients / accepted "
           f"per second = {1000 * s['clients'] / r['accepted_per_second']:.0f} ms here, whatever the "
           "code; `--rate` measures it below saturation"] if not s["rate"] and r["accepted_per_second"]
          else []),
        f"- refused: {r['refused'] or 'none'}",
        f"- every evaluation terminal {r['drain_seconds_after_sending']} s after the last request; "
        f"{r['evaluations_per_second']} evaluations/s from the first request to the last terminal state",
        f"- evaluation states: {c['states']}; attempts: {c['attempts']}; worker claims per evaluation: "
        f"{c['claims_per_evaluation']}; workload results per evaluation: {c['results_per_evaluation']}",
        f"- stored submissions: {c['stored_submissions']} (one per 201), lost: **{c['lost']}**, duplicated: "
        f"**{c['duplicated']}**",
        f"- problems found: {c['problems'] or 'none'}",
    ]
    if r["scored_phase"]:
        p = r["scored_phase"]
        lines += [
            f"- scored phase: {p['submissions']} more submissions to {p['harness_workers']} workers with the "
            f"harness on (its sandbox, the smoke workloads on the CPU): states {p['states']}, "
            f"all terminal {p['seconds_until_all_scored']} s after sending; "
            f"problems: {p['problems'] or 'none'}",
        ]
    lines += [
        "",
        "Checked from the database after the run: every 201's id is stored once, with its own owner and "
        "source and exactly one evaluation, in a terminal state; nothing stored beyond the 201s; every "
        "refusal carries its reason; workload results per scored evaluation equal the problem's smoke "
        "workloads; no evaluation claimed more often than its attempts (workers' logs); one leaderboard "
        "entry per participant, counting each scored evaluation once. The full figures are in the JSON "
        "beside this file.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
