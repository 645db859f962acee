"""Which hardware has a worker online, and where a queued evaluation stands.

A worker writes a heartbeat per hardware queue it serves when it is ready and every
SOLARENA_WORKER_HEARTBEAT_SECONDS after (evaluator/tasks.py), and removes it when it shuts down;
one not heard from for LIVE_BEATS beats is gone (killed, or its machine lost). A submission to
hardware with no worker online is refused (submissions/services.py) unless the operator expects
workers there (SOLARENA_EXPECTED_HARDWARE)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Max
from django.utils import timezone

from leaderboard.models import Hardware

from .models import Evaluation, WorkerHeartbeat

LIVE_BEATS = 3
ONLINE, EXPECTED, OFFLINE = "online", "expected", "offline"
STATES = (ONLINE, EXPECTED, OFFLINE)
RECENT_RUNS = 50  # finished evaluations an estimate of the next start is taken from


@dataclass(frozen=True)
class Availability:
    slug: str
    state: str  # ONLINE, EXPECTED (no worker now, but the operator says they will come) or OFFLINE
    workers: int
    last_seen: datetime | None

    @property
    def text(self) -> str:
        """What a submitter needs to know of the hardware's workers, in a few words."""
        if self.state == ONLINE:
            return f"{self.workers} worker{'s' if self.workers != 1 else ''} online"
        if self.state == EXPECTED:
            return "no worker online yet, workers expected"
        return "no worker online: submissions are refused"


def beat(worker: str, slugs: Iterable[str]) -> None:
    """Record that `worker` serves the queues of these hardware slugs now."""
    now = timezone.now()
    for hardware in Hardware.objects.filter(slug__in=list(slugs)):
        WorkerHeartbeat.objects.update_or_create(
            worker=worker, hardware=hardware, defaults={"last_seen": now},
            create_defaults={"started": now, "last_seen": now})


def stop(worker: str) -> None:
    WorkerHeartbeat.objects.filter(worker=worker).delete()


def live_since() -> datetime:
    return timezone.now() - timedelta(seconds=LIVE_BEATS * settings.SOLARENA_WORKER_HEARTBEAT_SECONDS)


def node_of(name: str) -> str:
    """The Celery node of a heartbeat's worker ("node/pid") or of an evaluation's claim
    ("node/pid/token", evaluator.tasks.worker_name): one per GPU where a host runs a worker per GPU."""
    return name.split("/", 1)[0]


def free_besides(hardware_id: int, node: str) -> bool:
    """Whether a worker of another node than `node` serves the hardware now and runs nothing: one
    that waits on the queue, and so takes a message sent there before `node` asks again."""
    online = {node_of(name) for name in WorkerHeartbeat.objects.filter(
        hardware_id=hardware_id, last_seen__gte=live_since()).values_list("worker", flat=True)}
    busy = {node_of(name) for name in Evaluation.objects.filter(state=Evaluation.RUNNING)
            .values_list("worker", flat=True)}
    return bool(online - busy - {node})


def expected(slug: str) -> bool:
    names = {name.strip() for name in settings.SOLARENA_EXPECTED_HARDWARE.split(",") if name.strip()}
    return "*" in names or slug in names


def availability(hardware: Iterable[Hardware]) -> dict[str, Availability]:
    """Each hardware's state, its workers online and when one was last heard from."""
    slugs = [hw.slug for hw in hardware]
    seen = dict(WorkerHeartbeat.objects.filter(hardware__slug__in=slugs).values("hardware__slug")
                .annotate(last=Max("last_seen")).values_list("hardware__slug", "last"))
    online = dict(WorkerHeartbeat.objects.filter(hardware__slug__in=slugs, last_seen__gte=live_since())
                  .values("hardware__slug").annotate(n=Count("worker", distinct=True))
                  .values_list("hardware__slug", "n"))
    return {slug: Availability(slug, ONLINE if online.get(slug) else EXPECTED if expected(slug) else OFFLINE,
                               online.get(slug, 0), seen.get(slug)) for slug in slugs}


def online_slugs() -> list[str]:
    """The hardware with a worker online now, by slug: one query, for the line every page ends with
    (pages.context_processors)."""
    return list(WorkerHeartbeat.objects.filter(last_seen__gte=live_since()).order_by("hardware__slug")
                .values_list("hardware__slug", flat=True).distinct())


class NoWorkerOnline(Exception):
    """A submission to hardware that no worker serves now, nor is expected to; the message names
    what is online."""


def check_served(hardware: list[Hardware]) -> None:
    """Raises NoWorkerOnline for the first of `hardware` with no worker online nor expected."""
    states = availability(hardware)
    missing = [hw.slug for hw in hardware if states[hw.slug].state == OFFLINE]
    if not missing:
        return
    active = Hardware.objects.filter(active=True)
    served = [slug for slug, a in availability(active).items() if a.state != OFFLINE]
    raise NoWorkerOnline(f"no worker for {', '.join(missing)} is online, so its evaluation would wait "
                         f"with no end; online now: {', '.join(served) or 'none'}")


@dataclass(frozen=True)
class QueuePlace:
    position: int  # 1 is next
    estimated_start_seconds: float | None  # None without finished runs to go by, or without workers


def queue_place(evaluation: Evaluation) -> QueuePlace | None:
    """Where a queued evaluation stands on its hardware: its place in line, and when it should
    start going by the recent runs there and the workers online. None once it is not queued."""
    if evaluation.state != Evaluation.QUEUED:
        return None
    ahead = Evaluation.objects.filter(hardware_id=evaluation.hardware_id, state=Evaluation.QUEUED,
                                      pk__lt=evaluation.pk).count()
    running = Evaluation.objects.filter(hardware_id=evaluation.hardware_id, state=Evaluation.RUNNING).count()
    workers = WorkerHeartbeat.objects.filter(hardware_id=evaluation.hardware_id,
                                             last_seen__gte=live_since()).values("worker").distinct().count()
    recent = (Evaluation.objects.filter(hardware_id=evaluation.hardware_id, state=Evaluation.SCORED,
                                        started_at__isnull=False, finished_at__isnull=False)
              .order_by("-finished_at").values_list("started_at", "finished_at")[:RECENT_RUNS])
    durations = [(end - start).total_seconds() for start, end in recent]
    estimate = None
    if workers and durations:
        # Every worker busy with what runs now and what waits ahead, half a run done on average.
        estimate = (ahead + running / 2) * statistics.median(durations) / workers
    return QueuePlace(ahead + 1, estimate)
