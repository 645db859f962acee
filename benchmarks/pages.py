"""Pages: the server time of each public page kind on a database of a busy deployment (100,000
submissions, 1,000,000 workload results), under concurrent clients, against a trivial page (/livez)
served by the same server in the same run.

    python benchmarks/pages.py OUT_DIR [--submissions 100000] [--results 1000000] [--clients 20]

It makes its own PostgreSQL database (`--database-url`, dropped first, and at the end unless
--keep-database; --reuse-database measures a kept one again after migrating it), stores the bundled
problems and the hardware table, seeds it (benchmarks/pages_seed.py), then serves the app under
gunicorn with production settings (DEBUG=0, requests arriving as a TLS proxy forwards them) through
ops.timing, which adds a Server-Timing header: the request's time inside Django and its queries'
time and count. The clients (threads, httpx) send the page kinds in a shuffled order, so every
kind meets the same load. Targets per page kind: p95 server time at most 3x the trivial page's p95,
and under 50 ms. Writes OUT_DIR/<date>-pages.json and .md; exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import multiprocessing
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from common import machine, percentile, recreate_database, server_timing  # beside this script

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET_RATIO, TARGET_MS = 3.0, 50.0
TRIVIAL = "trivial (/livez)"
# What a TLS proxy in front sets (docs/deploy.md): pages are served, not redirected to HTTPS.
HEADERS = {"X-Forwarded-Proto": "https"}


@dataclass
class Sample:
    kind: str
    url: str
    status: int
    client_ms: float
    app_ms: float | None
    db_ms: float | None
    queries: int | None
    size: int


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--submissions", type=int, default=100_000)
    parser.add_argument("--results", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=300)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200, help="requests per page kind")
    parser.add_argument("--alone", type=int, default=20,
                        help="requests per page kind sent first by one client (each page's own cost)")
    parser.add_argument("--web-workers", type=int, default=3,
                        help="gunicorn sync workers (docker-compose.yml's WEB_CONCURRENCY default)")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/solarena_pages")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/7",
                        help="a Redis database of this run's own: emptied at the start")
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument("--reuse-database", action="store_true",
                        help="measure a database kept by an earlier run (migrated first), without seeding")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--writes", type=float, default=0.0,
                        help="evaluations scored and ranked per second while the clients read (0: none)")
    parser.add_argument("--before", type=Path, help="an earlier run's JSON, compared in the Markdown")
    parser.add_argument("--suffix", default="", help="added to the report's file names")
    parser.add_argument("--note", default="", help="a sentence for the report (where it was measured)")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="solarena-pages-"))
    print(f"logs: {logs}", flush=True)
    env = server_env(args.database_url, args.cache_url, logs)
    flush_cache(args.cache_url)
    os.environ.update(env)
    started = time.monotonic()
    if not args.reuse_database:
        recreate_database(args.database_url)
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "collectstatic", "--noinput", "--verbosity", "0")
    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request on stderr
    kept = Path(tempfile.gettempdir()) / f"{args.database_url.rsplit('/', 1)[1]}-seeded.json"
    if args.reuse_database:
        seeded = json.loads(kept.read_text())
        analyze()
    else:
        manage(env, "sync_problems")
        seeded = seed_database(args)
        kept.write_text(json.dumps(seeded))
    setup_seconds = time.monotonic() - started
    web = start_web(env, logs, args.web_workers)
    try:
        urls = pages(seeded)
        warm(web, urls)
        print(f"one client, {args.alone} requests per page kind", flush=True)
        alone, _ = measure(web, urls, args.alone, 1, args.seed)
        load = os.getloadavg()[0]
        print(f"{args.clients} clients, {args.requests} requests per page kind", flush=True)
        cpu_before, stolen_before = web_cpu_seconds(web), stolen_seconds()
        with Churn(args.writes, seeded, args.seed) as churn:
            samples, seconds = measure(web, urls, args.requests, args.clients, args.seed)
        web_cpu, stolen = web_cpu_seconds(web) - cpu_before, stolen_seconds() - stolen_before
    finally:
        stop(web)
        from django.db import connections

        connections.close_all()
        if not args.keep_database:
            recreate_database(args.database_url, drop_only=True)
    report = summarize(samples, alone, seconds, seeded, args, setup_seconds, time.monotonic() - started)
    report["load_average_before"] = round(load, 1)
    report["writes"] = {"per_second": args.writes, "done": churn.done}
    report["web_cpu_seconds"] = round(web_cpu, 1)
    report["stolen_cpu_seconds"] = round(stolen, 1)
    written = write_report(args.out_dir, report, args)
    print(written.read_text())
    return 0 if report["targets_met"] else 1


# The server ----------------------------------------------------------------------------------


def server_env(database_url: str, cache_url: str, logs: Path) -> dict[str, str]:
    """Production settings (docs/deploy.md) over plain HTTP on localhost."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SOLARENA_", "API_", "SECURE_"))},
        "DJANGO_SETTINGS_MODULE": "solarena.settings", "PYTHONUNBUFFERED": "1",
        # the page cache shared by the web processes in Redis, as docker-compose.yml sets CACHE_URL
        "DATABASE_URL": database_url, "CELERY_BROKER_URL": cache_url, "CACHE_URL": cache_url,
        "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https", "SOLARENA_LOG_FORMAT": "json",
        "SOLARENA_STATIC_ROOT": str(logs / "static"),
        # fixed, so that a kept database's hidden workloads are the ones the problems draw again
        "SOLARENA_HIDDEN_SECRET": "solarena-pages-benchmark-hidden-secret",
    }


def flush_cache(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def manage(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed:\n{done.stdout}{done.stderr}")


@dataclass
class Web:
    process: subprocess.Popen[bytes]
    url: str
    log: Path
    workers: int


def start_web(env: dict[str, str], logs: Path, workers: int) -> Web:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = logs / "web.log"
    # As docker/web.Dockerfile runs it (sync workers), with ops.timing's Server-Timing header added.
    with open(log, "ab") as out:
        argv = [sys.executable, "-m", "gunicorn", "ops.timing:application", "--bind", f"127.0.0.1:{port}",
                "--workers", str(workers), "--graceful-timeout", "30"]
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    web = Web(process, f"http://127.0.0.1:{port}", log, workers)
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"{web.url}/livez", timeout=2).raise_for_status()
            return web
        except httpx.HTTPError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"gunicorn did not start:\n{log.read_text()[-3000:]}") from None
            time.sleep(0.3)


def stolen_seconds() -> float:
    """CPU time the machine's hypervisor gave to others while this VM wanted it (/proc/stat's steal,
    all CPUs; 0 on bare metal): what makes runs of the same code on a VM differ."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def web_cpu_seconds(web: Web) -> float:
    """CPU time the gunicorn processes (the master and its workers) have used so far, from /proc:
    what the pages cost, including any work done after a response was sent."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that ended meanwhile
            continue
        pid, ppid = int(stat.parent.name), int(fields[1])
        if web.process.pid in (pid, ppid):
            total += int(fields[11]) + int(fields[12])  # utime and stime
    return total / ticks


def stop(web: Web) -> None:
    if web.process.poll() is None:
        os.killpg(web.process.pid, signal.SIGTERM)
        try:
            web.process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(web.process.pid, signal.SIGKILL)
            web.process.wait()


# The data ------------------------------------------------------------------------------------


def seed_database(args: argparse.Namespace) -> dict[str, Any]:
    """Seed, analyze, and check a sample of the entries against evaluator.rankings."""
    import pages_seed
    from django.utils import timezone

    rng = random.Random(args.seed)
    print(f"seeding {args.submissions} submissions and {args.results} workload results", flush=True)
    started = time.monotonic()
    gc.disable()  # millions of short-lived rows: the collector would only slow the seeding down
    try:
        seeded = pages_seed.seed(args.submissions, args.results, args.users, timezone.now(), rng)
    finally:
        gc.enable()
    seed_seconds = time.monotonic() - started
    analyze()
    problems = pages_seed.check_entries(50, rng)
    if problems:
        raise SystemExit("the seeded entries disagree with evaluator.rankings:\n" + "\n".join(problems))
    report = asdict(seeded)
    report["seconds"] = {"seed": round(seed_seconds, 1), "vacuum_analyze": round(time.monotonic() - started
                                                                                - seed_seconds, 1),
                         **{k: round(v, 1) for k, v in seeded.seconds.items()}}
    report["entries_checked_against_rankings"] = 50
    report["names"] = names_for_pages()
    print(f"seeded in {seed_seconds:.0f} s: {report['states']}, {seeded.results} results, "
          f"{seeded.entries} entries", flush=True)
    return report


def analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")  # as autovacuum would have by now on a live deployment


def names_for_pages() -> dict[str, Any]:
    """The problems and categories the pages are asked about, busiest first."""
    from django.db.models import Count

    from leaderboard.models import Category, Problem

    problems = list(Problem.objects.filter(is_current=True).annotate(n=Count("entries"))
                    .order_by("-n", "name").values_list("slug", flat=True))
    categories = list(Category.objects.annotate(n=Count("problems")).filter(n__gt=0)
                      .order_by("-n", "slug").values_list("slug", flat=True))
    return {"problems": problems, "categories": categories}


KINDS = (TRIVIAL, "home", "problems index", "problem page (h200 tab)", "problem board", "category board",
         "agent board", "category board CSV", "participant (heaviest)", "agent profile", "hardware page",
         "submission (scored)", "submission (running)", "submission live part (running)")


def pages(seeded: dict[str, Any]) -> dict[str, list[str]]:
    """The URLs of each page kind; a kind with several cycles through them."""
    from urllib.parse import quote

    problems, categories = seeded["names"]["problems"], seeded["names"]["categories"]
    owner, agent = seeded["agent"]
    return {
        TRIVIAL: ["/livez"],
        "home": ["/"],
        "problems index": ["/problems/"],
        "problem page (h200 tab)": [f"/problems/{p}/?hardware=h200" for p in problems],
        "problem board": [f"/boards/problems/{p}/h200/" for p in problems],
        "category board": [f"/boards/categories/{c}/h200/" for c in categories],
        "agent board": ["/boards/agents/h200/"],
        "category board CSV": [f"/boards/categories/{c}/h200/?format=csv" for c in categories],
        "participant (heaviest)": [f"/u/{quote(seeded['heavy_users'][0])}/"],
        "agent profile": [f"/agents/{quote(owner)}/{quote(agent)}/"],
        "hardware page": ["/hardware/h200/"],
        "submission (scored)": [f"/submissions/{i}/" for i in seeded["scored_submissions"]],
        "submission (running)": [f"/submissions/{i}/" for i in seeded["running_submissions"]],
        "submission live part (running)": [f"/submissions/{i}/live/" for i in seeded["running_submissions"]],
    }


# The clients ---------------------------------------------------------------------------------


def fetch(http: httpx.Client, kind: str, url: str) -> Sample:
    started = time.perf_counter()
    response = http.get(url)
    client_ms = (time.perf_counter() - started) * 1e3
    timing = server_timing(response.headers.get("server-timing", ""))
    return Sample(kind, url, response.status_code, client_ms, timing.app_ms if timing else None,
                  timing.db_ms if timing else None, timing.queries if timing else None, len(response.content))


def warm(web: Web, urls: dict[str, list[str]]) -> None:
    """Every URL as many times as there are web workers (imports, templates, the page cache, the
    database's buffers), each a 200."""
    with httpx.Client(base_url=web.url, headers=HEADERS, timeout=120) as http:
        for kind, group in urls.items():
            for url in group:
                for _ in range(web.workers):
                    sample = fetch(http, kind, url)
                    if sample.status != 200 or sample.app_ms is None:
                        raise SystemExit(f"{url}: {sample.status} (Server-Timing "
                                         f"{sample.app_ms is not None}); see {web.log}")


def measure(web: Web, urls: dict[str, list[str]], per_kind: int, clients: int,
            seed: int) -> tuple[list[Sample], float]:
    """`per_kind` requests of each kind in a shuffled order, sent by `clients` threads that never pause."""
    schedule = [(kind, group[n % len(group)]) for kind, group in urls.items() for n in range(per_kind)]
    random.Random(seed).shuffle(schedule)
    work = iter(schedule)
    samples: list[Sample] = []
    lock = threading.Lock()

    def client() -> None:
        with httpx.Client(base_url=web.url, headers=HEADERS, timeout=120) as http:
            while True:
                with lock:
                    job = next(work, None)
                if job is None:
                    return
                sample = fetch(http, *job)
                with lock:
                    samples.append(sample)

    started = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return samples, time.perf_counter() - started


class Churn:
    """What a busy deployment writes while its pages are read: `per_second` times a second, a new
    submission's evaluation is scored and ranked as ingestion ranks it (rankings.update_entry, in
    one transaction): a copy of a scored one picked at random (its owner, problem, hardware and
    sources), with a score around the original's, so some are new bests. The home page's latest,
    the counts, the boards and the participants' pages change under the readers. The submissions
    whose pages are asked for are left alone. Adds rows to the database (a kept one too).

    The writes come from a process of their own (forked), as a worker's do in a deployment: the
    pages it makes again after each write (pages.remakes) are made there, not among the clients."""

    def __init__(self, per_second: float, seeded: dict[str, Any], seed: int) -> None:
        self.per_second, self.seed = per_second, seed
        self.avoid = set(seeded["scored_submissions"]) | set(seeded["running_submissions"])
        context = multiprocessing.get_context("fork")
        self.stop, self.count = context.Event(), context.Value("i", 0)
        self.process = context.Process(target=self.run, name="churn")

    @property
    def done(self) -> int:
        return self.count.value

    def __enter__(self) -> Churn:
        if self.per_second > 0:
            from django.db import connections

            connections.close_all()  # the child must not share this process's connections
            self.process.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.process.pid is not None:
            self.process.join()

    def run(self) -> None:
        from django.db import connections

        from evaluator.models import Evaluation
        from pages import remakes

        self.rng = random.Random(self.seed)
        templates = list(Evaluation.objects.filter(state=Evaluation.SCORED, reward_hack=False)
                         .exclude(submission_id__in=self.avoid).order_by("?")
                         .values_list("pk", flat=True)[:2000])
        try:
            next_at = time.monotonic()
            while not self.stop.is_set():
                self.score_one(self.rng.choice(templates))
                with self.count.get_lock():
                    self.count.value += 1
                next_at += 1 / self.per_second
                self.stop.wait(max(0.0, next_at - time.monotonic()))
            remakes.wait_until_done()  # the pages made again after the last writes, before the drop
        finally:
            connections.close_all()

    def score_one(self, template_id: int) -> None:
        from django.db import transaction
        from django.utils import timezone

        from evaluator import rankings
        from evaluator.models import Evaluation
        from submissions.models import Submission

        template = Evaluation.objects.select_related("submission").get(pk=template_id)
        old = template.submission
        now = timezone.now()
        with transaction.atomic():
            submission = Submission.objects.create(owner_id=old.owner_id, problem_id=old.problem_id,
                                                   language=old.language, sources=old.sources,
                                                   entry=old.entry)
            evaluation = Evaluation.objects.create(
                submission=submission, hardware_id=template.hardware_id, state=Evaluation.SCORED,
                attempts=1, seed=self.rng.getrandbits(62), started_at=now, finished_at=now,
                environment=template.environment, aggregates=template.aggregates,
                score=min(1.0, (template.score or 0.1) * self.rng.uniform(0.95, 1.05)))
            rankings.update_entry(evaluation)


# The report ----------------------------------------------------------------------------------


def summarize(samples: list[Sample], alone: list[Sample], seconds: float, seeded: dict[str, Any],
              args: argparse.Namespace, setup_seconds: float, total_seconds: float) -> dict[str, Any]:
    by_kind: dict[str, list[Sample]] = {kind: [] for kind in dict.fromkeys(s.kind for s in samples)}
    by_kind = dict(sorted(by_kind.items(), key=lambda item: KINDS.index(item[0])))
    for sample in samples:
        by_kind.setdefault(sample.kind, []).append(sample)
    trivial_p95 = percentile([s.app_ms for s in by_kind[TRIVIAL] if s.app_ms is not None], 0.95)
    kinds = {}
    for kind, group in by_kind.items():
        app = [s.app_ms for s in group if s.app_ms is not None]
        client = [s.client_ms for s in group]
        single = [s.app_ms for s in alone if s.kind == kind and s.app_ms is not None]
        p95 = percentile(app, 0.95)
        kinds[kind] = {
            "urls": sorted({s.url for s in group})[:3], "requests": len(group),
            "statuses": dict(Counter(str(s.status) for s in group)),
            "queries": sorted({s.queries for s in group if s.queries is not None}),
            "bytes": round(sum(s.size for s in group) / len(group)),
            "server_ms": {"p50": round(percentile(app, 0.5), 2), "p95": round(p95, 2),
                          "max": round(max(app), 2)},
            "db_ms": {"p50": round(percentile([s.db_ms or 0.0 for s in group], 0.5), 2),
                      "p95": round(percentile([s.db_ms or 0.0 for s in group], 0.95), 2)},
            "client_ms": {"p50": round(percentile(client, 0.5), 2), "p95": round(percentile(client, 0.95), 2),
                          "max": round(max(client), 2)},
            "alone_server_ms": {"p50": round(percentile(single, 0.5), 2),
                                "p95": round(percentile(single, 0.95), 2)},
            "ratio_to_trivial_p95": round(p95 / trivial_p95, 2),
            "met": kind == TRIVIAL or (p95 <= TARGET_RATIO * trivial_p95 and p95 < TARGET_MS
                                       and all(s.status == 200 for s in group)),
        }
    return {
        "date": datetime.now().strftime("%Y-%m-%d"), "note": args.note, "machine": machine(),
        "settings": {"clients": args.clients, "requests_per_kind": args.requests, "alone": args.alone,
                     "gunicorn_workers": args.web_workers, "users": args.users, "seed": args.seed,
                     "server": "gunicorn ops.timing:application, sync workers, DEBUG=0, "
                               "SOLARENA_LOG_FORMAT=json, X-Forwarded-Proto: https",
                     "cache": f"CACHE_URL={args.cache_url}, emptied first"},
        "seeded": {k: v for k, v in seeded.items() if k not in ("scored_submissions", "running_submissions")},
        "setup_seconds": round(setup_seconds, 1), "total_seconds": round(total_seconds, 1),
        "measure_seconds": round(seconds, 1), "requests_per_second": round(len(samples) / seconds, 1),
        "trivial_p95_ms": round(trivial_p95, 2), "kinds": kinds,
        "targets_met": all(k["met"] for k in kinds.values()),
    }


def write_report(out_dir: Path, report: dict[str, Any], args: argparse.Namespace) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = out_dir / f"{report['date']}-pages{args.suffix}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    before = json.loads(args.before.read_text()) if args.before else None
    markdown = stem.with_suffix(".md")
    markdown.write_text(render(report, before), encoding="utf-8")
    return markdown


def render(r: dict[str, Any], before: dict[str, Any] | None) -> str:
    s, d = r["settings"], r["seeded"]
    states = ", ".join(f"{n} {state}" for state, n in d["states"].items())
    verdict = "met" if r["targets_met"] else "NOT met"
    lines = [
        f"# Page server times ({r['date']})",
        "",
        f"`benchmarks/pages.py`: {s['clients']} concurrent clients (threads, httpx, no pause between "
        f"requests) sent {s['requests_per_kind']} requests of each page kind, in one shuffled order, to "
        f"gunicorn ({s['gunicorn_workers']} sync workers, production settings over plain HTTP, requests "
        "marked as forwarded from HTTPS) on PostgreSQL, with the page cache in Redis "
        f"({s.get('cache', 'per process')}), after one request to every URL per worker. Server time is "
        "the `Server-Timing` header `ops.timing` adds: from the request entering Django (every "
        "middleware) to its response being ready; client time adds the wait for a free worker and the "
        "network.",
        "",
        f"Data ({d['seconds']['seed']} s to seed with COPY): {d['users']} participants with profiles, the "
        f"12 bundled problems with their visible and hidden workloads, {d['submissions']:,} submissions with "
        f"one evaluation each ({states}; {d['reward_hacks']} reward hacks), {d['results']:,} workload "
        f"results, {d['entries']:,} leaderboard entries (rankings' rule; "
        f"{d['entries_checked_against_rankings']} checked against `recompute_entry`), "
        f"{d['agent_submissions']} agent uploads. The heaviest "
        f"participant has {d['heavy_user_submissions']:,} submissions; the agent profile has "
        f"{d['agent_uploads']} uploads.",
        "",
        f"Targets: each page's p95 server time at most {TARGET_RATIO:g}x the trivial page's p95 "
        f"({r['trivial_p95_ms']} ms here) and under {TARGET_MS:g} ms: **{verdict}**.",
        "",
        *([f"**{r['note']}**", ""] if r["note"] else []),
        *([f"- writes while the clients read: {r['writes']['done']} evaluations scored and ranked, "
           f"{r['writes']['per_second']:g} a second (`Churn` in the script: a new submission each, "
           "its entry saved by `rankings.update_entry`)", ]
          if r.get("writes", {}).get("per_second") else
          ["- no writes while the clients read: after the warm-up every anonymous page is served "
           "from its kept copy (run with --writes to see pages made again under the reads)"]),
        f"- machine: {r['machine']}",
        f"- load average (1 min) just before the concurrent run: {r.get('load_average_before', '?')}",
        *([f"- CPU time of the web processes during the concurrent run: {r['web_cpu_seconds']} s, "
           f"{r['web_cpu_seconds'] * 1e3 / sum(k['requests'] for k in r['kinds'].values()):.1f} ms per "
           "request (pages made again after their response was sent included)"]
          if "web_cpu_seconds" in r else []),
        *([f"- CPU time taken by the hypervisor (steal) during the concurrent run: "
           f"{r['stolen_cpu_seconds']} s of {r['measure_seconds'] * (os.cpu_count() or 1):.1f} CPU-seconds"]
          if "stolen_cpu_seconds" in r else []),
        f"- {r['requests_per_second']} requests/s over {r['measure_seconds']} s; the whole run "
        f"{r['total_seconds']} s ({r['setup_seconds']} s of it creating, migrating and seeding)",
        "",
        "| page | queries | alone p50 | server p50 | server p95 | server max | db p95 | client p50 | "
        "client p95 | p95 / trivial | met |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, k in r["kinds"].items():
        queries = "–" if k["queries"] == [0] else ", ".join(map(str, k["queries"]))
        alone = k.get("alone_server_ms", {}).get("p50", "–")
        lines.append(f"| {kind} | {queries} | {alone} | {k['server_ms']['p50']} | "
                     f"**{k['server_ms']['p95']}** | {k['server_ms']['max']} | {k['db_ms']['p95']} | "
                     f"{k['client_ms']['p50']} | "
                     f"{k['client_ms']['p95']} | {k['ratio_to_trivial_p95']}x | "
                     f"{'yes' if k['met'] else '**no**'} |")
    lines += ["", "Times in ms; server times from the `Server-Timing` header. *alone*: the median server "
              f"time of {r['settings'].get('alone', 'a few')} requests of the kind sent one at a time by a "
              "single client before the concurrent run (the cost of the page itself); the other columns "
              "are the concurrent run's. *queries*: per request (fewer where the page cache answered). "
              "Each kind's URLs (cycled): "
              + "; ".join(f"{kind}: `{k['urls'][0]}`" + (" ..." if len(k["urls"]) > 1 else "")
                          for kind, k in r["kinds"].items()) + ".", ""]
    if before:
        lines += [f"## Before and after ({before['date']} run before the changes)", "",
                  "| page | queries before | after | server p95 before | after | p95 / trivial before "
                  "| after |",
                  "|---|---|---|---|---|---|---|"]
        for kind, k in r["kinds"].items():
            b = before["kinds"].get(kind)
            if b:
                lines.append(f"| {kind} | {', '.join(map(str, b['queries']))} | "
                             f"{', '.join(map(str, k['queries']))} | {b['server_ms']['p95']} | "
                             f"{k['server_ms']['p95']} | "
                             f"{b['ratio_to_trivial_p95']}x | {k['ratio_to_trivial_p95']}x |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
