"""The data benchmarks/pages.py measures the pages on: participants, submissions, evaluations in
every state, workload results and leaderboard entries in the shape a busy deployment would have,
written with COPY (psycopg 3) in a few minutes.

Problems and hardware are the real ones (sync_problems has stored the bundled suite). Each scored
evaluation's workload rows are scored by evaluator.scoring.score (workload_score and
problem_aggregates, as ingestion does), and the leaderboard entries follow evaluator.rankings'
rule, computed in one pass; `check_entries` compares a sample with rankings.recompute_entry.
"""

from __future__ import annotations

import bisect
import itertools
import json
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GPUS = (("h200", 0.6), ("h100", 0.3), ("b200", 0.1))
# Measured on the lent H200 (docs/benchmarks/2026-11-30-calibration-h200.md), int8 left out as there.
H200_CALIBRATION = {"memory_bandwidth": 4.26291e12, "float64": 5.63337e13, "bfloat16": 7.80921e14,
                    "float16": 7.51164e14, "float32": 5.07520e13, "tf32": 4.06393e14, "float8": 1.41912e15}
FAILED_VERDICTS = ("INCORRECT_NUMERICAL", "RUNTIME_ERROR", "TIMEOUT")
PLATFORM_ERRORS = ("the worker was lost 3 times (lease expired); last attempt on gpu-node-2",
                   "the harness exited with signal 9 before reporting (out of memory?)",
                   "the sandbox could not start: image solarena-evaluator:2026.11 not found")
ENVIRONMENT = {"torch": "2.11.0+cu130", "triton": "3.5.0", "cuda": "13.0", "driver": "580.159.04",
               "python": "3.11.11", "host": "gpu-node-3"}
COMPILE_ERROR = "triton.compiler.errors.CompilationError: at 12:4: BLOCK must be a power of 2"
AGENT_MODELS = ("claude-opus-4-5", "gpt-5.1", "gemini-3-pro", "qwen3-coder-480b", "deepseek-v3.2")
NAMES = ("ada", "grace", "linus", "barbara", "ken", "dennis", "margaret", "alan", "edsger", "donald",
         "frances", "john", "radia", "leslie", "niklaus", "tony", "shafi", "judea", "yann", "fei")


@dataclass(frozen=True)
class Target:
    """One workload an evaluation on a hardware runs, with what the timings are drawn around."""

    workload_id: int
    visible: bool
    sol_ms: float
    baseline_ms: float
    reference_ms: float


@dataclass
class Seeded:
    """What was written, and what the benchmark asks for."""

    users: int = 0
    submissions: int = 0
    agent_submissions: int = 0
    states: dict[str, int] = field(default_factory=dict)
    reward_hacks: int = 0
    results: int = 0
    entries: int = 0
    heavy_users: list[str] = field(default_factory=list)
    heavy_user_submissions: int = 0
    agent: tuple[str, str] = ("", "")
    agent_uploads: int = 0
    scored_submissions: list[int] = field(default_factory=list)
    running_submissions: list[int] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class Item:
    """A submission and its one evaluation, before they are written."""

    created: datetime
    owner: int
    problem: int
    hardware: str
    agent: int | None = None
    state: str = "scored"
    id: int = 0


def zipf_weights(n: int, exponent: float) -> list[float]:
    return [1.0 / (i + 1) ** exponent for i in range(n)]


def copy_rows(model: Any, fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> int:
    """COPY rows (values in the order of `fields`) into the model's table; how many."""
    from django.db import connection

    columns = ", ".join(connection.ops.quote_name(model._meta.get_field(f).column) for f in fields)
    count = 0
    with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            count += 1
    return count


def targets_by_board() -> dict[tuple[int, str], list[Target]]:
    """The full-size workloads (visible first, then hidden) of every current problem on each GPU,
    with the SOL bound the hardware table gives and a baseline and reference drawn above it."""
    from evaluator.scoring.hardware import HARDWARE
    from evaluator.scoring.score import sol_bound_ms
    from evaluator.scoring.sol import workload_work
    from leaderboard.models import Hardware, Problem, Workload
    from leaderboard.problems import definition_of

    rng = random.Random(7)
    hardware = {hw.slug: hw for hw in Hardware.objects.filter(slug__in=[slug for slug, _ in GPUS])}
    boards: dict[tuple[int, str], list[Target]] = {}
    for problem in Problem.objects.filter(is_current=True).prefetch_related("workloads"):
        definition = definition_of(problem)
        workloads = sorted((w for w in problem.workloads.all() if not w.smoke),
                           key=lambda w: (w.visibility != Workload.VISIBLE, w.position))
        slowdowns = [(rng.uniform(1.3, 4.0), rng.uniform(1.0, 3.0)) for _ in workloads]
        for slug, hw in hardware.items():
            targets = []
            for w, (baseline, reference) in zip(workloads, slowdowns, strict=True):
                work = workload_work(definition, w.axes)
                sol = sol_bound_ms(work.flops, work.bytes, HARDWARE[slug], work.dtype, hw.calibrated or None)
                targets.append(Target(w.pk, w.visibility == Workload.VISIBLE, sol, sol * baseline,
                                      sol * baseline * reference))
            boards[(problem.pk, slug)] = targets
    return boards


def seed(submissions: int, results: int, users: int, now: datetime, rng: random.Random) -> Seeded:
    """Write everything; the database has the problems and hardware (sync_problems) and nothing else."""
    import time

    from django.db import transaction

    from leaderboard import services

    seeded = Seeded()
    services.store_calibration("h200", H200_CALIBRATION)
    started = time.perf_counter()
    user_ids, names = seed_users(users, rng, now)
    seeded.users = len(user_ids)
    seeded.seconds["users"] = time.perf_counter() - started
    boards = targets_by_board()
    problems = sorted({problem for problem, _ in boards})
    items, agents = plan(submissions, user_ids, problems, now, rng)
    seeded.seconds["plan"] = time.perf_counter() - started
    write_agents(agents, now)
    seeded.agent_submissions = len(agents)
    sources = solution_sources(problems)
    seeded.submissions = copy_rows(_model("submissions.Submission"),
                                   ("id", "owner", "problem", "language", "sources", "entry",
                                    "agent_submission", "published", "created", "mode", "agent_usage"),
                                   ((i.id, i.owner, i.problem, "triton", sources[i.problem], "solution.py",
                                     i.agent, i.id % 50 == 0, i.created, "ranked", "{}") for i in items))
    seeded.seconds["agents_and_submissions"] = time.perf_counter() - started
    hardware_ids = dict(_model("leaderboard.Hardware").objects.values_list("slug", "pk"))
    scored = [i for i in items if i.state == "scored"]
    quota = per_evaluation_results(results, [len(boards[(i.problem, i.hardware)]) for i in scored])
    evaluations: list[tuple[Any, ...]] = []
    with transaction.atomic():  # the foreign keys are checked at the commit, once both are written
        # the workload rows stream into COPY as they are drawn; their evaluations follow
        rows = build_evaluations(items, boards, quota, hardware_ids, now, rng, evaluations)
        seeded.results = copy_rows(_model("evaluator.WorkloadResult"), RESULT_FIELDS, rows)
        copy_rows(_model("evaluator.Evaluation"), EVALUATION_FIELDS, evaluations)
    hack_at = EVALUATION_FIELDS.index("reward_hack")
    seeded.reward_hacks = sum(1 for row in evaluations if row[hack_at])
    seeded.states = {state: sum(1 for i in items if i.state == state)
                     for state in ("scored", "failed", "cancelled", "queued", "running")}
    seeded.seconds["evaluations_and_results"] = time.perf_counter() - started
    seeded.entries = write_entries(items, evaluations, hardware_ids, now)
    reset_sequences()
    from evaluator import rankings  # local: Django is set up by the caller

    rankings.rebuild_all_records()  # the score records ingestion would have kept (problem pages)
    seeded.seconds["entries"] = time.perf_counter() - started  # each figure: seconds since the start
    by_owner: dict[int, int] = {}
    for i in items:
        by_owner[i.owner] = by_owner.get(i.owner, 0) + 1
    heavy = sorted(by_owner, key=lambda u: -by_owner[u])[:3]
    seeded.heavy_users = [names[u] for u in heavy]
    seeded.heavy_user_submissions = by_owner[heavy[0]]
    uploads: dict[tuple[int, str], int] = {}
    for a in agents:
        uploads[(a["owner"], a["name"])] = uploads.get((a["owner"], a["name"]), 0) + 1
    busiest = max(uploads, key=lambda k: uploads[k])
    seeded.agent, seeded.agent_uploads = (names[busiest[0]], busiest[1]), uploads[busiest]
    seeded.scored_submissions = [i.id for i in rng.sample(scored, min(50, len(scored)))]
    seeded.running_submissions = [i.id for i in items if i.state == "running"][:50]
    return seeded


def _model(label: str) -> Any:
    from django.apps import apps

    return apps.get_model(label)


def seed_users(count: int, rng: random.Random, now: datetime) -> tuple[list[int], dict[int, str]]:
    """Participants with profiles (a team for about a third); no usable password."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import Profile

    user_model = _model("auth.User")
    password = make_password(None)
    names = {i + 1: f"{NAMES[i % len(NAMES)]}{i // len(NAMES) or ''}" for i in range(count)}
    copy_rows(user_model, ("id", "password", "is_superuser", "username", "first_name", "last_name", "email",
                           "is_staff", "is_active", "date_joined"),
              ((uid, password, False, name, "", "", f"{name}@example.org", False, True,
                now - timedelta(days=200)) for uid, name in names.items()))
    copy_rows(Profile, ("id", "user", "team"),
              ((uid, uid, f"team-{rng.randrange(20)}" if rng.random() < 0.35 else "") for uid in names))
    return list(names), names


def plan(total: int, users: list[int], problems: list[int], now: datetime,
         rng: random.Random) -> tuple[list[Item], list[dict[str, Any]]]:
    """Who submits what, when, where, and in what state. Activity is heavy-tailed over users and
    problems; agent uploads carry a solution per problem of a suite; the last 3% of submissions
    (the last two hours) are still queued or running, or scored already."""
    user_weights = list(itertools.accumulate(zipf_weights(len(users), 0.9)))
    problem_weights = list(itertools.accumulate(zipf_weights(len(problems), 0.5)))
    gpu_weights = list(itertools.accumulate(w for _, w in GPUS))
    start, recent = now - timedelta(days=180), now - timedelta(hours=2)

    def pick(values: Sequence[Any], cumulative: list[float]) -> Any:
        return values[bisect.bisect(cumulative, rng.random() * cumulative[-1])]

    agents: list[dict[str, Any]] = []
    items: list[Item] = []
    owners = rng.sample(users, min(25, len(users)))
    agent_names = [(owners[k % len(owners)], f"kernelsmith-{k}") for k in range(40)]
    agent_weights = list(itertools.accumulate(zipf_weights(len(agent_names), 1.0)))
    budget = total // 50  # about 2% of the submissions come in agent bundles
    version: dict[tuple[int, str], int] = {}
    while budget > 0:
        owner, name = pick(agent_names, agent_weights)
        version[(owner, name)] = version.get((owner, name), 0) + 1
        created = start + (now - start) * rng.random() ** 0.7
        suite = rng.sample(problems, min(len(problems), rng.randint(8, 12), budget))
        hardware = "h200" if rng.random() < 0.8 else "h100"
        agents.append({"id": len(agents) + 1, "owner": owner, "name": name, "created": created,
                       "version": f"{version[(owner, name)]}.0", "model": rng.choice(AGENT_MODELS)})
        items.extend(Item(created, owner, p, hardware, agent=len(agents)) for p in suite)
        budget -= len(suite)
    while len(items) < total:
        created = (start + (recent - start) * rng.random() if rng.random() > 0.03
                   else recent + (now - recent) * rng.random())
        items.append(Item(created, pick(users, user_weights), pick(problems, problem_weights),
                          pick([slug for slug, _ in GPUS], gpu_weights)))
    items.sort(key=lambda i: i.created)
    for n, item in enumerate(items, start=1):
        item.id = n
        if item.created >= recent:
            item.state = rng.choices(("queued", "running", "scored"), (0.5, 0.3, 0.2))[0]
        else:
            item.state = rng.choices(("scored", "failed", "cancelled"), (0.93, 0.05, 0.02))[0]
    # an agent's upload is judged as a whole: its evaluations share the upload's fate
    fate: dict[int, str] = {}
    for item in items:
        if item.agent is not None:
            item.state = fate.setdefault(item.agent, item.state)
    return items, agents


def write_agents(agents: list[dict[str, Any]], now: datetime) -> None:
    logs = {"logs/run.txt": "step 1: read the problem\nstep 2: wrote a Triton kernel\nstep 3: tuned BLOCK\n"}
    copy_rows(_model("submissions.AgentSubmission"),
              ("id", "owner", "name", "version", "model", "description", "budget_usd", "cost_usd", "tokens",
               "wall_seconds", "logs", "created", "mode", "private"),
              ((a["id"], a["owner"], a["name"], a["version"], a["model"], "An agent that writes kernels.",
                50.0, round(10 + a["id"] % 37, 2), 1_000_000 + a["id"], 3600.0, json.dumps(logs),
                a["created"], "ranked", False) for a in agents))


def solution_sources(problems: list[int]) -> dict[int, str]:
    """Each problem's bundled Triton solution, as the sources of every submission to it."""
    from leaderboard.models import Problem

    sources = {}
    for problem in Problem.objects.filter(pk__in=problems):
        path = ROOT / "problems" / problem.name / "solutions" / "triton.py"
        sources[problem.pk] = json.dumps({"solution.py": path.read_text()})  # every bundled one has it
    return sources


def per_evaluation_results(total: int, workloads: list[int]) -> list[int]:
    """How many workload rows each scored evaluation gets so that they add up to `total`: an even
    share, never more than its problem's workloads (visible ones first, so a short share drops
    hidden ones)."""
    quota = [0] * len(workloads)
    left = total
    order = sorted(range(len(workloads)), key=lambda k: workloads[k])
    for n, k in enumerate(order):
        quota[k] = min(workloads[k], left // (len(order) - n))
        left -= quota[k]
    return quota


EVALUATION_FIELDS = ("id", "submission", "hardware", "state", "attempts", "seed", "enqueued_at",
                     "lease_until", "worker", "started_at", "finished_at", "environment", "progress",
                     "aggregates", "score", "error", "reward_hack", "hack_reason", "created")
RESULT_FIELDS = ("id", "evaluation", "workload", "status", "message", "latency_ms", "reference_latency_ms",
                 "baseline_latency_ms", "sol_ms", "score", "below_sol", "raw")


def build_evaluations(items: list[Item], boards: dict[tuple[int, str], list[Target]], quota: list[int],
                      hardware_ids: dict[str, int], now: datetime, rng: random.Random,
                      evaluations: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """The workload rows of the scored evaluations; one evaluation row per item goes to `evaluations`."""
    shares = iter(quota)
    skill: dict[tuple[int, int], float] = {}
    environment = json.dumps(ENVIRONMENT)
    results = 0
    for item in items:
        queued_for = timedelta(seconds=rng.uniform(1, 90))
        took = timedelta(seconds=rng.uniform(40, 400))
        row: dict[str, Any] = {
            "id": item.id, "submission": item.id, "hardware": hardware_ids[item.hardware],
            "state": item.state, "attempts": 1, "seed": rng.getrandbits(62), "enqueued_at": item.created,
            "lease_until": None, "worker": f"gpu-node-{item.id % 4}/{item.hardware}-{item.id % 8}",
            "started_at": None, "finished_at": None, "environment": "{}", "progress": "{}",
            "aggregates": "{}", "score": None, "error": "", "reward_hack": False, "hack_reason": "",
            "created": item.created}
        if item.state == "queued":
            row.update(attempts=0, worker="")
        elif item.state == "running":
            targets = boards[(item.problem, item.hardware)]
            done = rng.randrange(len(targets))
            statuses = ["PASSED"] * done + ["running"] + [None] * (len(targets) - done - 1)
            row.update(started_at=item.created + queued_for, lease_until=now + timedelta(minutes=5),
                       progress=json.dumps({"visible": sum(t.visible for t in targets),
                                            "statuses": statuses}))
        elif item.state == "failed":
            row.update(attempts=3, started_at=item.created + queued_for, finished_at=item.created + took,
                       error=rng.choice(PLATFORM_ERRORS))
        elif item.state == "cancelled":
            row.update(attempts=0, worker="", finished_at=item.created + queued_for)
        else:
            # a participant's kernels for a problem get better over time, each one around that level
            key = (item.owner, item.problem)
            level = skill[key] = min(0.97, skill.get(key, rng.uniform(0.15, 0.5)) + rng.uniform(0, 0.03))
            kind = rng.choices(("good", "compile", "hidden", "hack"), (0.87, 0.04, 0.08, 0.01))[0]
            targets = boards[(item.problem, item.hardware)][:next(shares)]
            aggregates, rows = score_workloads(targets, kind, level, rng)
            for r in rows:
                results += 1
                yield (results, item.id, *r)
            row.update(started_at=item.created + queued_for, finished_at=item.created + queued_for + took,
                       environment=environment, aggregates=json.dumps(aggregates), score=aggregates["score"],
                       reward_hack=kind == "hack",
                       hack_reason="REWARD_HACK on 1 workload(s): output returned before the kernel ran"
                       if kind == "hack" else "")
        evaluations.append(tuple(row[f] for f in EVALUATION_FIELDS))


def score_workloads(targets: list[Target], kind: str, level: float,
                    rng: random.Random) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """Verdicts and times for one scored evaluation, scored as ingestion scores them."""
    from evaluator.scoring.score import WorkloadOutcome, problem_aggregates, workload_score
    from evaluator.services import hidden_message

    outcomes, rows = [], []
    for n, t in enumerate(targets):
        status, message = "PASSED", ""
        if kind == "compile":
            status, message = "COMPILE_ERROR", COMPILE_ERROR
        elif kind == "hidden" and not t.visible and rng.random() < 0.5:
            status = rng.choice(FAILED_VERDICTS)
        elif kind == "hack" and n == 0:
            status, message = "REWARD_HACK", "the output was ready before the timed call started"
        aim = min(0.99, max(0.02, rng.gauss(level, 0.05)))
        kernel = t.sol_ms + (t.baseline_ms - t.sol_ms) * (1 / aim - 1) if status == "PASSED" else None
        score = workload_score(kernel, t.baseline_ms, t.sol_ms) if kernel else None
        counted = score.score if score else 0.0
        below = bool(score and score.below_sol)
        outcomes.append(WorkloadOutcome(str(t.workload_id), "visible" if t.visible else "hidden", status,
                                        kernel, t.reference_ms, t.baseline_ms, t.sol_ms, counted))
        if t.visible:
            message = message or (score.note if score else "")
            raw = {"status": status, "message": message, "latency_ms": kernel,
                   "reference_latency_ms": t.reference_ms, "baseline_latency_ms": t.baseline_ms,
                   "sol_ms": t.sol_ms, "score": counted, "below_sol": below,
                   "correctness": {"rounds": 3, "max_abs_error": 0.0039, "mismatched": 0},
                   "timing": {"iterations": 200, "rse": 0.004, "clock": "cupti"}}
        else:
            message = hidden_message(status)
            raw = {"status": status, "redacted": True}
        rows.append((t.workload_id, status, message, kernel, t.reference_ms, t.baseline_ms, t.sol_ms, counted,
                     below, json.dumps(raw)))
    aggregates = problem_aggregates(outcomes).to_dict()
    return aggregates, rows


def write_entries(items: list[Item], evaluations: list[tuple[Any, ...]], hardware_ids: dict[str, int],
                  now: datetime) -> int:
    """One entry per (problem, hardware, participant) with a scored evaluation, by rankings' rule:
    the best valid one (correct on every workload first, then the higher score, then the earlier
    submission, then the lower id), or none with the first submission's time; counting every scored
    one, reward hacks included."""
    from leaderboard.models import LeaderboardEntry

    score_at = EVALUATION_FIELDS.index("score")
    hack_at = EVALUATION_FIELDS.index("reward_hack")
    aggregates_at = EVALUATION_FIELDS.index("aggregates")
    # evaluation, best key, submitted, count, failed, workloads
    boards: dict[tuple[int, int, int], list[Any]] = {}
    for item, row in zip(items, evaluations, strict=True):
        if item.state != "scored":
            continue
        key = (item.problem, hardware_ids[item.hardware], item.owner)
        entry = boards.setdefault(key, [None, None, item.created, 0, 0, 0])
        entry[3] += 1
        score = row[score_at]
        if row[hack_at] or not score or score <= 0:
            continue
        aggregates = json.loads(row[aggregates_at])
        failed = aggregates["total"] - aggregates["passed"]
        best = (failed > 0, -score)
        # items come oldest first, so an equal key never displaces the one held
        if entry[1] is None or best < entry[1]:
            entry[:3] = item.id, best, item.created
            entry[4:] = failed, aggregates["total"]
    rows = ((n, *key, evaluation, -best[1] if best else None, submitted, count, failed, workloads, now)
            for n, (key, (evaluation, best, submitted, count, failed, workloads))
            in enumerate(boards.items(), start=1))
    return copy_rows(LeaderboardEntry, ("id", "problem", "hardware", "user", "evaluation", "score",
                                        "submitted_at", "submissions", "failed", "workloads", "updated"),
                     rows)


def reset_sequences() -> None:
    from django.core.management.color import no_style
    from django.db import connection

    models = [_model(label) for label in ("auth.User", "accounts.Profile", "submissions.AgentSubmission",
                                          "submissions.Submission", "evaluator.Evaluation",
                                          "evaluator.WorkloadResult", "leaderboard.LeaderboardEntry")]
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


def check_entries(sample: int, rng: random.Random) -> list[str]:
    """Recompute a sample of entries with rankings.recompute_entry (rolled back): any difference is
    a seeding bug."""
    from django.db import transaction

    from evaluator.rankings import recompute_entry
    from leaderboard.models import LeaderboardEntry

    problems = []
    fields = ("evaluation_id", "score", "submitted_at", "submissions", "failed", "workloads")
    ids = list(LeaderboardEntry.objects.values_list("pk", flat=True))
    for entry in LeaderboardEntry.objects.filter(pk__in=rng.sample(ids, min(sample, len(ids)))):
        with transaction.atomic():
            again = recompute_entry(entry.problem_id, entry.hardware_id, entry.user_id)
            transaction.set_rollback(True)
        seeded = tuple(getattr(entry, f) for f in fields)
        computed = tuple(getattr(again, f) for f in fields) if again else None
        if seeded != computed:
            problems.append(f"entry {entry.pk}: seeded {seeded}, rankings gives {computed}")
    return problems


