"""Hardware, categories, problems (versioned) and their workloads; precomputed ranking entries."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models

from evaluator.harness.names import NAME_MAX, SLUG_MAX, slug_of


class OrderedJSONField(models.TextField):
    """JSON stored as its text, so that objects keep their key order: PostgreSQL's jsonb sorts keys,
    and a definition's inputs and outputs are in the order its run takes and returns them."""

    def from_db_value(self, value: str | None, expression: Any, connection: Any) -> Any:
        return None if value is None else json.loads(value)

    def to_python(self, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value

    def get_prep_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value)

    def value_to_string(self, obj: models.Model) -> str:
        return json.dumps(self.value_from_object(obj))


class Hardware(models.Model):
    slug = models.SlugField(max_length=32, unique=True)
    name = models.CharField(max_length=100)
    vendor = models.CharField(max_length=40)
    memory_gb = models.FloatField()
    memory_bandwidth = models.FloatField(help_text="bytes/s, datasheet")
    l2_bytes = models.BigIntegerField()
    peak_flops = models.JSONField(help_text="dense FLOP/s per compute class, datasheet")
    calibrated = models.JSONField(default=dict, blank=True,
                                  help_text="measured peaks that override the datasheet")
    active = models.BooleanField(default=True, help_text="accepts new evaluations")

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = "hardware"

    def __str__(self) -> str:
        return self.name

    @property
    def queue(self) -> str:
        return f"hw.{self.slug}"


class Category(models.Model):
    slug = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["slug"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class Problem(models.Model):
    """One version of a problem definition; results stay attached to the version measured. The name
    is the definition's, as written (shown, and matched); the slug, made from it by
    evaluator.harness.names.slug_of, is what URLs and API paths use."""

    name = models.CharField(max_length=NAME_MAX)
    slug = models.SlugField(max_length=SLUG_MAX, help_text="made from the name: the problem in URLs")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    category = models.ForeignKey(Category, on_delete=models.PROTECT, related_name="problems")
    task_type = models.CharField(max_length=32)
    op_type = models.CharField(max_length=64, blank=True)
    description = models.TextField(blank=True)
    definition = OrderedJSONField(help_text="the whole definition, sources inline, in its key order")
    definition_hash = models.CharField(max_length=64)
    solutions_revealed = models.BooleanField(
        default=False, help_text="an admin has made every solution's source of this problem public")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="problem_name_version"),
            models.UniqueConstraint(fields=["name"], condition=models.Q(is_current=True),
                                    name="one_current_version_per_problem"),
            models.UniqueConstraint(fields=["slug"], condition=models.Q(is_current=True),
                                    name="one_current_problem_per_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.slug:
            self.slug = slug_of(self.name)
        super().save(*args, **kwargs)


class Workload(models.Model):
    VISIBLE, HIDDEN = "visible", "hidden"

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="workloads")
    uuid = models.CharField(max_length=200)
    position = models.PositiveIntegerField()
    visibility = models.CharField(max_length=8, choices=[(VISIBLE, "visible"), (HIDDEN, "hidden")])
    smoke = models.BooleanField(default=False)
    axes = models.JSONField()
    inputs = models.JSONField()
    tolerance = models.JSONField()
    # Counted from the reference at sync where the definition has no sol.flops (evaluator/scoring/sol.py)
    reference_flops = models.FloatField(null=True, blank=True, help_text=(
        "FLOPs counted from the reference at sync; empty where the definition gives sol.flops "
        "or the count failed"))
    flops_note = models.CharField(max_length=300, blank=True,
                                  help_text="why the reference's FLOPs were not counted")

    class Meta:
        ordering = ["problem", "position"]
        constraints = [models.UniqueConstraint(fields=["problem", "uuid"], name="workload_uuid")]

    def __str__(self) -> str:
        return f"{self.problem} {self.uuid}"


class LeaderboardEntry(models.Model):
    """A participant on one board (problem x hardware), precomputed: their best valid evaluation
    (rankings.is_valid; correct on every workload first), or no score at all when none of their
    scored evaluations is valid (every workload failed, or a reward hack); rows without a score are
    listed last."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="entries")
    hardware = models.ForeignKey(Hardware, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="leaderboard_entries")
    evaluation = models.ForeignKey("evaluator.Evaluation", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="+", help_text="the best valid one; none without a score")
    score = models.FloatField(null=True, blank=True, help_text="none: no valid score, listed last")
    submitted_at = models.DateTimeField(help_text="when the best submission came in: ties go earlier "
                                                  "(without a score: the first one)")
    submissions = models.PositiveIntegerField(default=1)
    failed = models.PositiveIntegerField(default=0, help_text="workloads the best evaluation failed, visible "
                                         "and hidden: any ranks the entry below every entry with none")
    workloads = models.PositiveIntegerField(default=0, help_text="workloads the best evaluation ran")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["problem", "hardware", "user"],
                                    name="one_entry_per_board_and_user"),
            models.CheckConstraint(
                condition=models.Q(score__isnull=True, evaluation__isnull=True)
                | models.Q(score__isnull=False, evaluation__isnull=False),
                name="entry_score_with_its_evaluation"),
        ]
        # A plain descending score: SQLite (the demo's database) cannot index NULLS LAST, and a
        # board is small enough for PostgreSQL to sort its unscored rows last after the lookup.
        indexes = [models.Index(fields=["problem", "hardware", "-score", "submitted_at", "user"],
                                name="board_ranking")]


class ScoreRecord(models.Model):
    """A valid evaluation that equalled or beat every earlier valid score of its board (problem x
    hardware) when it finished: the problem page's best score over time reads these few rows, not
    every evaluation of the board. Kept by evaluator.rankings (update_entry adds, recompute_entry
    makes a board's again); it may hold a few rows more (concurrent ingests), which
    pages.charts.records leaves out as it keeps only strict improvements, never one fewer."""

    problem = models.ForeignKey(Problem, on_delete=models.CASCADE, related_name="+")
    hardware = models.ForeignKey(Hardware, on_delete=models.CASCADE, related_name="+")
    evaluation = models.OneToOneField("evaluator.Evaluation", on_delete=models.CASCADE, related_name="+")
    finished_at = models.DateTimeField()
    score = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["problem", "hardware", "finished_at", "evaluation"],
                                name="score_records_by_board")]
