"""What a submission is for, and what that changes in how its evaluations run (docs/evaluations.md,
"Modes"). `ranked` runs every workload, hidden ones included, and counts on the boards. The others
run the visible workloads only (hidden ones are never drawn for them; a profile run lists each
one's top kernels under torch's profiler, harness/profiling.py), are private to the owner,
never ranked, have a daily quota of their own, and go ahead of ranked runs in the queue where the
broker orders messages by priority (Redis)."""

from __future__ import annotations

from django.conf import settings

RANKED, TEST, BENCHMARK, PROFILE = "ranked", "test", "benchmark", "profile"
MODES = [(RANKED, "ranked: every workload, on the boards"),
         (TEST, "test: correctness on the visible workloads, no timing"),
         (BENCHMARK, "benchmark: the visible workloads timed, private"),
         (PROFILE, "profile: the top kernels of each visible workload under a profiler, private")]
NAMES = tuple(name for name, _ in MODES)
# Celery message priorities on Redis, where 0 is served first and a message sent without one is 0.
FIRST, LATER = 0, 6


def is_ranked(mode: str) -> bool:
    return mode == RANKED


def runs_hidden(mode: str) -> bool:
    return mode == RANKED


def timed(mode: str) -> bool:
    """Whether the run times anything: a profile's times come from a profiler and score nothing."""
    return mode not in (TEST, PROFILE)


def profiled(mode: str) -> bool:
    return mode == PROFILE


def priority(mode: str) -> int | None:
    """The message priority of an evaluation in this mode; None where the broker has none (the
    server-less broker, or RabbitMQ queues declared without x-max-priority)."""
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        return None
    return LATER if is_ranked(mode) else FIRST
