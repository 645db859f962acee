"""Evaluations (a submission on one hardware) and their per-workload results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import models

from evaluator.scoring.outcome import EvaluationOutcome, evaluation_outcome
from leaderboard.models import Workload

PRIVATE_ENVIRONMENT = ("host",)  # the worker's host name: the platform's, not the participant's


def public_environment(environment: Mapping[str, Any] | None) -> dict[str, Any]:
    return {key: value for key, value in (environment or {}).items() if key not in PRIVATE_ENVIRONMENT}


class Evaluation(models.Model):
    QUEUED, RUNNING, SCORED, FAILED, CANCELLED = "queued", "running", "scored", "failed", "cancelled"
    STATES = [(s, s) for s in (QUEUED, RUNNING, SCORED, FAILED, CANCELLED)]
    TERMINAL = (SCORED, FAILED, CANCELLED)
    PENDING = (QUEUED, RUNNING)
    # What a confirmation run said of this evaluation (evaluator/confirmations.py); "" when none has.
    CONFIRMED, DISPUTED = "confirmed", "disputed"
    CONFIRMATIONS = [("", "not confirmed"), (CONFIRMED, "confirmed"), (DISPUTED, "disputed: for review")]

    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE,
                                   related_name="evaluations")
    hardware = models.ForeignKey("leaderboard.Hardware", on_delete=models.PROTECT,
                                 related_name="evaluations")
    state = models.CharField(max_length=12, choices=STATES, default=QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    seed = models.BigIntegerField()
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="last message sent")
    lease_until = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    environment = models.JSONField(default=dict, blank=True)
    progress = models.JSONField(default=dict, blank=True, help_text=(
        "while running: {visible: how many of the workloads come first and are visible, statuses: "
        "each workload's verdict in run order, 'running', or null while pending}"))
    aggregates = models.JSONField(default=dict, blank=True)
    score = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, help_text="why the platform could not finish it")
    reward_hack = models.BooleanField(default=False, help_text="excluded from the leaderboard")
    hack_reason = models.TextField(
        blank=True, help_text="the evidence and every review, oldest first; for admins only: it may "
        "quote hidden workloads, so it is never shown to the submitter")
    hack_marked_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                       on_delete=models.SET_NULL, related_name="+",
                                       help_text="who last marked or cleared it by hand")
    hack_marked_at = models.DateTimeField(null=True, blank=True)
    harness_version = models.CharField(max_length=40, blank=True, db_default="",
                                       help_text="the harness that measured it (evaluator.harness)")
    rescore_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="rescores", help_text="the evaluation this one measures "
                                   "again under a newer harness (manage.py rescore)")
    superseded = models.BooleanField(default=False, db_default=False, help_text=(
        "a rescore of it was scored: that one counts on the boards instead"))
    confirms = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="confirmation_runs", help_text=(
                                     "the evaluation this one runs again to confirm a top-3 entry "
                                     "(evaluator/confirmations.py); it never counts on its own"))
    confirmation = models.CharField(max_length=12, choices=CONFIRMATIONS, blank=True, default="",
                                    db_default="", help_text="what its confirmation run said of it")
    declines = models.PositiveSmallIntegerField(default=0, db_default=0, help_text=(
        "a confirmation run: times the worker that measured its evaluation passed it on to another"))
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["state", "enqueued_at"], name="evaluations_to_dispatch"),
            models.Index(fields=["state", "lease_until"], name="evaluations_to_reap"),
            # the latest finished (home page)
            models.Index(fields=["finished_at", "id"], name="evaluations_by_finish"),
            # evaluations per state on a hardware page, read from the index alone
            models.Index(fields=["hardware", "state"], name="evaluations_by_hardware_state"),
        ]
        # never two confirmation runs of one evaluation queued or running at once
        constraints = [models.UniqueConstraint(fields=["confirms"], name="one_pending_confirmation",
                                               condition=models.Q(state__in=["queued", "running"]))]

    def __str__(self) -> str:
        return f"evaluation #{self.pk} ({self.state})"

    @property
    def outcome(self) -> EvaluationOutcome:
        """What happened, in words and a CSS class. The visible verdicts (hidden ones show as counts
        only) are read only when nothing passed: lists prefetch them with hidden_results.verdicts()."""
        verdicts = (result.status for result in self.results.all()
                    if result.workload.visibility == Workload.VISIBLE)
        return evaluation_outcome(self.state, self.reward_hack, self.aggregates, verdicts)


EVALUATION_STATES = Evaluation.STATES  # the API schema's name for them (settings.SPECTACULAR_SETTINGS)


class WorkloadResult(models.Model):
    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="results")
    workload = models.ForeignKey("leaderboard.Workload", on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=24)
    message = models.TextField(blank=True)
    latency_ms = models.FloatField(null=True)
    reference_latency_ms = models.FloatField(null=True)
    baseline_latency_ms = models.FloatField(null=True)
    sol_ms = models.FloatField()
    score = models.FloatField()
    below_sol = models.BooleanField(default=False)
    raw = models.JSONField(default=dict, help_text="the harness's measurements")
    shared_timing = models.ForeignKey("SharedTiming", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+", help_text=(
                                          "the shared baseline and reference times it was scored "
                                          "against; empty: timed in its own run"))

    class Meta:
        ordering = ["evaluation", "workload__position"]
        constraints = [models.UniqueConstraint(fields=["evaluation", "workload"],
                                               name="one_result_per_workload")]


class ProfileReport(models.Model):
    """The Nsight Compute report (.ncu-rep) of one workload of a profile run, as its worker brought
    it back (evaluator/profile_reports.py), for its owner to download. ncu wrote it inside the
    sandbox, where the solution could write too: nothing here reads it, and no score depends on it."""

    result = models.OneToOneField(WorkloadResult, on_delete=models.CASCADE, related_name="profile_report")
    data = models.BinaryField()
    size = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"Nsight Compute report of result #{self.result_id} ({self.size} bytes)"


class WorkerHeartbeat(models.Model):
    """A worker serving a hardware's queue, as it last said so (evaluator/workers.py): written when
    it is ready and every SOLARENA_WORKER_HEARTBEAT_SECONDS after, removed when it shuts down."""

    worker = models.CharField(max_length=200, help_text="the Celery node name and process id")
    hardware = models.ForeignKey("leaderboard.Hardware", on_delete=models.CASCADE, related_name="+")
    started = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["worker", "hardware"],
                                               name="one_beat_per_worker_queue")]
        indexes = [models.Index(fields=["hardware", "last_seen"], name="heartbeats_by_hardware")]

    def __str__(self) -> str:
        return f"{self.worker} on {self.hardware_id}"


class BaselineCalibration(models.Model):
    """The shared baseline and reference times of one problem version on one hardware, measured in
    several harness runs under one harness version and one hardware calibration (evaluator/baselines.py,
    docs/scoring.md "Shared baselines"). A key that changes gets a new row; old ones stay, so the
    evaluations that used them stay explainable."""

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATES = [(s, s) for s in (QUEUED, RUNNING, DONE, FAILED)]

    problem = models.ForeignKey("leaderboard.Problem", on_delete=models.CASCADE, related_name="+")
    hardware = models.ForeignKey("leaderboard.Hardware", on_delete=models.CASCADE, related_name="+")
    harness_version = models.CharField(max_length=40)
    hardware_calibration = models.CharField(max_length=16, blank=True, help_text=(
        "which measured peaks the hardware had (a digest of Hardware.calibrated); empty: none"))
    state = models.CharField(max_length=8, choices=STATES, default=QUEUED)
    runs = models.PositiveSmallIntegerField(help_text="harness runs asked for")
    worker = models.CharField(max_length=200, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True, help_text="last message sent; empty: to send")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["problem", "hardware", "harness_version", "hardware_calibration"],
            name="one_baseline_calibration_per_key")]

    def __str__(self) -> str:
        return f"baselines of {self.problem} on {self.hardware_id} ({self.state})"


class SharedTiming(models.Model):
    """One workload's shared times from a calibration: the median of the runs the median/MAD rule kept
    (evaluator/scoring/robust.py), their relative spread and standard error."""

    calibration = models.ForeignKey(BaselineCalibration, on_delete=models.CASCADE, related_name="timings")
    workload = models.ForeignKey("leaderboard.Workload", on_delete=models.CASCADE, related_name="+")
    reference_ms = models.FloatField()
    reference_spread = models.FloatField()
    reference_rse = models.FloatField()
    reference_kept = models.PositiveSmallIntegerField()
    reference_rejected = models.PositiveSmallIntegerField()
    baseline_ms = models.FloatField(null=True, blank=True, help_text="empty: no baseline (see below)")
    baseline_spread = models.FloatField(null=True, blank=True)
    baseline_rse = models.FloatField(null=True, blank=True)
    baseline_kept = models.PositiveSmallIntegerField(default=0)
    baseline_rejected = models.PositiveSmallIntegerField(default=0)
    baseline_is_reference = models.BooleanField(default=False, help_text="the problem has no baseline")
    baseline_error = models.TextField(blank=True, help_text="why the baseline has no time")
    runs_ms = models.JSONField(default=dict, help_text="each run's time: {reference: [...], baseline: [...]}")
    measured_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["calibration", "workload"],
                                               name="one_shared_timing_per_workload")]


class ReviewDecision(models.Model):
    """One decision of a reviewer on an evaluation in the review queue (evaluator/review.py): the log,
    oldest first. The action and the public reason are shown on the submission's page and in the API;
    the reviewer only in the admin (the pages never name reviewers, as with hack_marked_by)."""

    CONFIRM, DISQUALIFY, RERUN = "confirm", "disqualify", "rerun"
    ACTIONS = [(CONFIRM, "confirmed"), (DISQUALIFY, "disqualified"), (RERUN, "re-run")]

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="reviews")
    action = models.CharField(max_length=12, choices=ACTIONS)
    public_reason = models.TextField(blank=True, help_text=(
        "shown to everyone with the decision; required for a disqualification"))
    reasons = models.JSONField(default=list, blank=True, help_text=(
        "why it was in the queue when decided: evaluator.review's codes"))
    rerun = models.OneToOneField(Evaluation, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="asked_by_review", help_text="the evaluation a re-run queued")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                           related_name="+", help_text="the reviewer: shown in the admin only")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "created", "id"]

    def __str__(self) -> str:
        return f"{self.get_action_display()} evaluation #{self.evaluation_id}"
