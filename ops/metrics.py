"""Prometheus metrics, computed from the database when scraped.

Every figure is read from the database, the source of truth, rather than counted in memory: the
web tier runs several processes and the workers run on other hosts, so a per-process counter
would be partial and lost on restart, while any web process can read the database and give the
same exact answer. The evaluation figures come from one grouped query over the evaluations; the
duration histogram counts every finished evaluation, so its buckets only grow and rate() over
them gives recent durations.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Q, Sum
from django.utils import timezone
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware
from submissions.models import AgentSubmission, Submission

# Upper bounds of the run-duration buckets, in seconds: CPU smoke runs take seconds, a full GPU
# suite up to SOLARENA_EVAL_SECONDS (30 minutes by default).
DURATION_BUCKETS = (1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600)
TIMED_STATES = (Evaluation.SCORED, Evaluation.FAILED)


def _bucket(i: int) -> str:
    return f"le_{i}"


def evaluation_rows() -> list[dict]:
    """Per (hardware, state): how many, the oldest creation, reward hacks, and the run-duration
    histogram of those that ran to the end. One query."""
    ran = Q(started_at__isnull=False, finished_at__isnull=False)
    buckets = {_bucket(i): Count("id", filter=ran & Q(run__lte=timedelta(seconds=b)))
               for i, b in enumerate(DURATION_BUCKETS)}
    return list(
        Evaluation.objects.alias(run=ExpressionWrapper(F("finished_at") - F("started_at"),
                                                       output_field=DurationField()))
        .values("hardware__slug", "state")
        .annotate(count=Count("id"), oldest=Min("created"),
                  hacks=Count("id", filter=Q(reward_hack=True)),
                  run_count=Count("id", filter=ran), run_sum=Sum("run", filter=ran), **buckets)
        .order_by()
    )


class DatabaseCollector(Collector):
    def describe(self) -> list[Metric]:
        return []  # nothing is queried when the collector is registered

    def collect(self) -> Iterator[Metric]:
        hardware = list(Hardware.objects.values_list("slug", flat=True))
        yield from evaluation_metrics(evaluation_rows(), hardware)
        yield workload_metric()
        submissions = CounterMetricFamily("solarena_submissions", "Submissions stored.")
        submissions.add_metric([], Submission.objects.count())
        yield submissions
        agents = CounterMetricFamily("solarena_agent_submissions", "Agent bundles stored.")
        agents.add_metric([], AgentSubmission.objects.count())
        yield agents


def evaluation_metrics(rows: list[dict], hardware: list[str]) -> Iterator[Metric]:
    now = timezone.now()
    counts = {(slug, state): 0 for slug in hardware for state, _ in Evaluation.STATES}
    hacks = dict.fromkeys(hardware, 0)
    oldest: dict[str, float] = dict.fromkeys(hardware, 0.0)
    durations = HistogramMetricFamily(
        "solarena_evaluation_run_seconds",
        "From claim to result of evaluations that ran to the end (the last attempt), by final state.",
        labels=["hardware", "state"])
    for row in rows:
        slug, state = row["hardware__slug"], row["state"]
        counts[(slug, state)] = row["count"]
        hacks[slug] = hacks.get(slug, 0) + row["hacks"]
        if state == Evaluation.QUEUED:
            oldest[slug] = max(0.0, (now - row["oldest"]).total_seconds())
        if state in TIMED_STATES:
            cumulative = [(str(float(b)), row[_bucket(i)]) for i, b in enumerate(DURATION_BUCKETS)]
            total = row["run_sum"].total_seconds() if row["run_sum"] else 0.0
            durations.add_metric([slug, state], [*cumulative, ("+Inf", row["run_count"])], total)
    evaluations = GaugeMetricFamily(
        "solarena_evaluations",
        "Evaluations by hardware and state; queued and running are the queue depth of hw.<hardware>.",
        labels=["hardware", "state"])
    for (slug, state), count in sorted(counts.items()):
        evaluations.add_metric([slug, state], count)
    yield evaluations
    waiting = GaugeMetricFamily("solarena_evaluations_oldest_queued_seconds",
                                "Age of the oldest queued evaluation of the hardware (0 when none).",
                                labels=["hardware"])
    flagged = GaugeMetricFamily("solarena_evaluations_reward_hack",
                                "Evaluations flagged as reward hacks.", labels=["hardware"])
    for slug in sorted(oldest):
        waiting.add_metric([slug], oldest[slug])
    for slug in sorted(hacks):
        flagged.add_metric([slug], hacks[slug])
    yield waiting
    yield flagged
    yield durations


def workload_metric() -> Metric:
    results = CounterMetricFamily("solarena_workload_results",
                                  "Stored workload verdicts by hardware and status.",
                                  labels=["hardware", "status"])
    rows = (WorkloadResult.objects.values("evaluation__hardware__slug", "status")
            .annotate(count=Count("id")).order_by("evaluation__hardware__slug", "status"))
    for row in rows:
        results.add_metric([row["evaluation__hardware__slug"], row["status"]], row["count"])
    return results


def render() -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector())
    return generate_latest(registry)
