"""What the API reads and writes. Hidden workloads show only as one aggregate per evaluation
(evaluator.hidden_results): never a row of their own."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from evaluator import confirmations, modes, review, workers
from evaluator.hidden_results import hidden_summary, visible_row, visible_rows
from evaluator.jobs import SolutionError, SolutionFiles, SourceTooLarge, check_size
from evaluator.models import Evaluation, ReviewDecision, WorkloadResult, public_environment
from evaluator.scoring.hardware import timing_note
from evaluator.toolchains import infer_language
from leaderboard.lookup import current_problem
from leaderboard.models import Hardware, Problem, Workload
from submissions import suites as agent_suites
from submissions.bundles import DEFAULT_LIMITS, Bundle, BundleError, read_bundle
from submissions.models import LANGUAGES, AgentSubmission, Submission
from submissions.services import WorkloadRefused, check_workload

from .boards import ProblemBoardEntrySerializer, ProblemUnrankedSerializer
from .errors import BundleTooLargeError, SourceTooLargeError


def active_hardware(slugs: list[str]) -> list[Hardware]:
    """The active hardware of the slugs, in their order without repeats; unknown ones refused."""
    found = {hw.slug: hw for hw in Hardware.objects.filter(slug__in=slugs, active=True)}
    unknown = [slug for slug in slugs if slug not in found]
    if unknown:
        known = ", ".join(Hardware.objects.filter(active=True).values_list("slug", flat=True))
        raise serializers.ValidationError(
            f"unknown or inactive hardware {', '.join(map(repr, unknown))}; known: {known}")
    return [found[slug] for slug in dict.fromkeys(slugs)]


class AvailabilitySerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=workers.STATES, help_text=(
        "online: a worker serves it now; expected: none now, but the operator says workers will come "
        "(submissions wait for them); offline: none, and submissions to it are refused"))
    workers = serializers.IntegerField(help_text="workers online now")
    last_seen = serializers.DateTimeField(allow_null=True,
                                          help_text="when a worker of it was last heard from")


class HardwareSerializer(serializers.ModelSerializer):
    availability = serializers.SerializerMethodField()

    class Meta:
        model = Hardware
        fields = ["slug", "name", "vendor", "memory_gb", "memory_bandwidth", "l2_bytes", "peak_flops",
                  "calibrated", "active", "availability"]

    @extend_schema_field(AvailabilitySerializer)
    def get_availability(self, hardware: Hardware) -> dict[str, Any]:
        found = workers.availability([hardware])[hardware.slug]
        return AvailabilitySerializer(found).data


class ProblemSerializer(serializers.ModelSerializer):
    category = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = Problem
        fields = ["name", "slug", "version", "category", "task_type", "op_type", "description"]
        extra_kwargs = {"name": {"help_text": "as its definition writes it"},
                        "slug": {"help_text": "made from the name: the problem in URLs and API paths"}}


class VisibleWorkloadSerializer(serializers.Serializer):
    uuid = serializers.CharField()
    smoke = serializers.BooleanField(help_text="a small size, run on the cpu hardware")
    axes = serializers.DictField(child=serializers.IntegerField())
    inputs = serializers.JSONField()
    tolerance = serializers.JSONField()
    sol_ms = serializers.DictField(child=serializers.FloatField(),
                                   help_text="the SOL bound in ms, per hardware slug")


class ProblemDetailSerializer(ProblemSerializer):
    definition = serializers.JSONField()
    workloads = VisibleWorkloadSerializer(many=True, source="visible_workloads",
                                          help_text="the visible workloads; hidden ones are never listed")

    class Meta(ProblemSerializer.Meta):
        fields = [*ProblemSerializer.Meta.fields, "definition", "workloads"]


class VisibleResultsSerializer(serializers.ListSerializer):
    """Every list of results leaves the hidden rows out, whoever asks (an owner, an admin, a page)."""

    def to_representation(self, data: Any) -> list[dict[str, Any]]:
        rows = data.all() if isinstance(data, models.manager.BaseManager) else data  # as DRF's own
        evaluation = getattr(data, "instance", None)  # the related manager's evaluation
        timed = not isinstance(evaluation, Evaluation) or modes.timed(evaluation.submission.mode)
        return visible_rows(rows, timed)


class WorkloadResultSerializer(serializers.Serializer):
    """A visible workload's whole row. Hidden workloads have none (HiddenSummarySerializer)."""

    visibility = serializers.ChoiceField(choices=[Workload.VISIBLE])
    status = serializers.CharField()
    score = serializers.FloatField(allow_null=True, help_text="null in test and profile runs, which time "
                                   "nothing")
    uuid = serializers.CharField()
    axes = serializers.DictField(child=serializers.IntegerField())
    smoke = serializers.BooleanField()
    message = serializers.CharField()
    latency_ms = serializers.FloatField(allow_null=True)
    reference_latency_ms = serializers.FloatField(allow_null=True)
    baseline_latency_ms = serializers.FloatField(allow_null=True)
    baseline_shared = serializers.BooleanField(help_text=(
        "the baseline and reference times are the shared ones measured for this problem version, "
        "hardware and harness (docs/scoring.md, \"Shared baselines\"), not timed in this run"))
    sol_ms = serializers.FloatField()
    below_sol = serializers.BooleanField()
    roofline = serializers.DictField(
        allow_null=True, help_text="the workload under the hardware's roofline: intensity, ridge, bound, "
        "achieved FLOP/s and bytes/s, share_of_roof (docs/result-format.md); null for results stored "
        "before it was recorded")
    profile = serializers.DictField(
        allow_null=True, help_text="a profile run's top kernels of this workload under the profiler (tool, "
        "calls, kernels: name, kind, calls, total_ms, mean_ms, launch sizes; docs/measuring.md); null "
        "in the other modes. Its times never enter a score")

    class Meta:
        list_serializer_class = VisibleResultsSerializer

    def to_representation(self, instance: WorkloadResult) -> dict[str, Any]:
        return visible_row(instance)


class HiddenSummarySerializer(serializers.Serializer):
    passed = serializers.IntegerField(help_text="hidden workloads passed")
    total = serializers.IntegerField(help_text="hidden workloads run")
    score = serializers.FloatField(help_text="the mean score over the hidden workloads (failed ones 0)")


class ReviewDecisionSerializer(serializers.Serializer):
    """One decision of the review queue (docs/security.md, "Review queue"); never the reviewer."""

    evaluation = serializers.IntegerField(help_text="the evaluation decided on (for a re-run's own "
                                          "entry: the one it runs again)")
    action = serializers.ChoiceField(choices=[a for a, _ in ReviewDecision.ACTIONS])
    public_reason = serializers.CharField(help_text="the reviewer's words for everyone; may be empty "
                                          "but for a disqualification")
    decided_at = serializers.DateTimeField()
    rerun = serializers.IntegerField(allow_null=True, help_text="the evaluation a re-run queued")


class EvaluationSerializer(serializers.ModelSerializer):
    hardware = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    outcome = serializers.CharField(source="outcome.text", read_only=True, help_text=(
        "what happened, as the pages word it: queued, running, failed on the platform, cancelled, did not "
        "compile, flagged: reward hack, incorrect on every workload, scored, k of n workloads passed, "
        "scored"))
    timing_note = serializers.SerializerMethodField()
    confirmation = serializers.SerializerMethodField()
    reviews = serializers.SerializerMethodField()

    class Meta:
        model = Evaluation
        fields = ["id", "hardware", "state", "outcome", "score", "error", "reward_hack", "attempts",
                  "created", "started_at", "finished_at", "timing_note", "confirmation", "reviews"]

    def get_timing_note(self, evaluation: Evaluation) -> str:
        """What its times are not (the CPU's: no GPU timing), from the hardware table; empty for a GPU."""
        return timing_note(evaluation.hardware.slug)

    @extend_schema_field(serializers.ChoiceField(choices=confirmations.STATES, allow_null=True))
    def get_confirmation(self, evaluation: Evaluation) -> str | None:
        """What the second run of a top-3 entry said (docs/scoring.md, "Confirmed leaders"): confirmed
        when it agreed, disputed when it did not (under review), unconfirmed when it failed on the
        platform; null when none was asked for or none has finished."""
        return confirmations.status(evaluation)

    @extend_schema_field(ReviewDecisionSerializer(many=True))
    def get_reviews(self, evaluation: Evaluation) -> list[dict[str, Any]]:
        """The review log (evaluator/review.py), oldest first: for a re-run asked for by review, that
        decision first; then each decision on this evaluation (confirm, disqualify, rerun) with its
        public reason. The reviewer is never named."""
        return ReviewDecisionSerializer(review.public_log(evaluation), many=True).data


class PublicEnvironmentField(serializers.JSONField):
    """An evaluation's environment without the worker's host (kept by rows stored before it was dropped)."""

    def to_representation(self, value: Any) -> Any:
        return super().to_representation(public_environment(value))


class QueuePlaceSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="1 is next on its hardware")
    estimated_start_seconds = serializers.FloatField(
        allow_null=True, help_text="from now, going by the recent runs there and the workers online; "
        "null with no finished run to go by or no worker online")


class EvaluationDetailSerializer(EvaluationSerializer):
    results = WorkloadResultSerializer(many=True, read_only=True,
                                       help_text="the visible workloads' results (hidden ones: `hidden`)")
    hidden = serializers.SerializerMethodField()
    environment = PublicEnvironmentField(read_only=True)
    queue = serializers.SerializerMethodField()

    class Meta(EvaluationSerializer.Meta):
        fields = [*EvaluationSerializer.Meta.fields, "aggregates", "environment", "results", "hidden",
                  "queue"]

    @extend_schema_field(QueuePlaceSerializer(allow_null=True))
    def get_queue(self, evaluation: Evaluation) -> dict[str, Any] | None:
        """Where a queued evaluation stands; null once it has started."""
        place = workers.queue_place(evaluation)
        return QueuePlaceSerializer(place).data if place else None

    @extend_schema_field(HiddenSummarySerializer(allow_null=True))
    def get_hidden(self, evaluation: Evaluation) -> dict[str, Any] | None:
        """The hidden workloads as one aggregate; null before results or without hidden workloads."""
        summary = hidden_summary(evaluation)
        return summary.to_dict() if summary else None


class SubmissionSerializer(serializers.ModelSerializer):
    problem = serializers.CharField(source="problem.name", read_only=True)
    problem_slug = serializers.CharField(source="problem.slug", read_only=True,
                                         help_text="the problem in URLs and API paths")
    problem_version = serializers.IntegerField(source="problem.version", read_only=True)
    evaluations = EvaluationSerializer(many=True, read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "problem", "problem_slug", "problem_version", "language", "mode", "workload",
                  "entry", "agent_submission", "published", "created", "evaluations"]


class SubmissionDetailSerializer(SubmissionSerializer):
    """Only ever given to the owner or an admin (anyone else gets 404), so the sources are in."""

    evaluations = EvaluationDetailSerializer(many=True, read_only=True)

    class Meta(SubmissionSerializer.Meta):
        fields = [*SubmissionSerializer.Meta.fields, "sources"]


class SubmissionSourceSerializer(serializers.ModelSerializer):
    """The public read of a submission's sources (submissions.visibility decides who gets it)."""

    problem = serializers.CharField(source="problem.name", read_only=True)
    problem_slug = serializers.CharField(source="problem.slug", read_only=True,
                                         help_text="the problem in URLs and API paths")
    problem_version = serializers.IntegerField(source="problem.version", read_only=True)
    user = serializers.CharField(source="owner.get_username", read_only=True)
    solutions_revealed = serializers.BooleanField(source="problem.solutions_revealed", read_only=True,
                                                  help_text="an admin revealed every solution of the problem")

    class Meta:
        model = Submission
        fields = ["id", "problem", "problem_slug", "problem_version", "language", "user", "published",
                  "solutions_revealed", "created", "entry", "sources"]


class _SubmissionTarget(serializers.Serializer):
    problem = serializers.CharField(help_text="the problem's slug or its name as written (its current "
                                              "version is evaluated)")
    hardware = serializers.ListField(child=serializers.SlugField(), min_length=1,
                                     help_text="slugs of the hardware to evaluate on")
    language = serializers.ChoiceField(choices=LANGUAGES, required=False, help_text=(
        "left out: inferred from the sources (cuda when a solution.json names C++, triton when the code "
        "imports triton, else python)"))
    mode = serializers.ChoiceField(choices=modes.MODES, default=modes.RANKED, help_text=(
        "ranked (the default): every workload, hidden ones included, on the boards; test: correctness "
        "on the visible workloads, no timing; benchmark: the visible workloads timed; profile: each "
        "visible workload's top kernels under a profiler. test, benchmark and profile runs are private, "
        "never ranked, have their own daily quota and go ahead of ranked runs"))
    workload = serializers.CharField(required=False, allow_blank=True, max_length=200, help_text=(
        "with mode=profile only: the uuid of one visible workload of the problem, the only one profiled "
        "(on every hardware, whatever its size); left out: every visible workload"))


class SubmissionSourcesSerializer(_SubmissionTarget):
    """The JSON body of a submission (the schema's `application/json` request; the view reads it
    with SubmissionCreateSerializer)."""

    sources = serializers.DictField(child=serializers.CharField(allow_blank=True, trim_whitespace=False),
                                    help_text="file path -> text")
    entry = serializers.CharField(help_text="the file the harness loads")


class SubmissionUploadSerializer(_SubmissionTarget):
    """The multipart body of a submission: one uploaded file (the schema's `multipart/form-data`
    request)."""

    file = serializers.FileField(help_text="a .py solution or a solution.json")


class SubmissionCreateSerializer(_SubmissionTarget):
    """A solution as one uploaded file (multipart `file`), or as JSON `sources` plus `entry`."""

    file = serializers.FileField(required=False, help_text="a .py solution or a solution.json")
    sources = serializers.DictField(child=serializers.CharField(allow_blank=True, trim_whitespace=False),
                                    required=False, help_text="file path -> text")
    entry = serializers.CharField(required=False, help_text="with sources: the file the harness loads")

    def validate_problem(self, identifier: str) -> Problem:
        problem = current_problem(identifier)
        if problem is None:
            raise serializers.ValidationError(f"unknown problem {identifier!r}")
        return problem

    def validate_hardware(self, slugs: list[str]) -> list[Hardware]:
        return active_hardware(slugs)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        upload, sources = attrs.pop("file", None), attrs.pop("sources", None)
        entry = attrs.pop("entry", None)
        if (upload is None) == (sources is None):
            raise serializers.ValidationError({"file": "give either a file or sources (with entry), not both "
                                                       "and not neither"})
        if sources is not None and not entry:
            raise serializers.ValidationError({"entry": "with sources, name the file the harness loads"})
        field = "file" if upload is not None else "sources"
        limit, files = settings.SOLARENA_MAX_SOURCE_BYTES, settings.SOLARENA_MAX_SOURCE_FILES
        try:
            if upload is not None:
                check_size(upload.size, upload.name, limit)  # before reading any of it
                attrs["files"] = SolutionFiles.from_upload(upload.name, upload.read(), limit, files)
            else:
                attrs["files"] = SolutionFiles.from_sources(sources, entry, limit, files)
        except SourceTooLarge as exc:
            raise SourceTooLargeError({field: [str(exc)]}) from None
        except SolutionError as exc:
            message = str(exc)
            raise serializers.ValidationError({"entry" if message.startswith("entry:") else field: message}
                                              ) from None
        if not attrs.get("language"):
            attrs["language"] = infer_language(attrs["files"].files, attrs["files"].entry)
        attrs["workload"] = attrs.get("workload") or ""
        try:
            check_workload(attrs["problem"], attrs["mode"], attrs["workload"])
        except WorkloadRefused as exc:
            raise serializers.ValidationError({"workload": [str(exc)]}) from None
        return attrs


class LeaderboardSerializer(serializers.Serializer):
    """A problem's board on one hardware (rows: api.boards)."""

    problem = serializers.CharField(help_text="its name, as written")
    problem_slug = serializers.CharField(help_text="the problem in URLs and API paths")
    version = serializers.IntegerField()
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text="what this hardware's times are not (the CPU's: no GPU "
                                                  "timing); empty for a GPU")
    entries = ProblemBoardEntrySerializer(many=True, help_text="participants with a valid score, best first")
    unranked = ProblemUnrankedSerializer(many=True, help_text="participants without a valid score, and why")


class AgentSubmissionCreateSerializer(serializers.Serializer):
    """An agent bundle (docs/agent-bundles.md) as one multipart upload, and the hardware to run on."""

    file = serializers.FileField(help_text="the bundle: a zip or tar.gz archive")
    hardware = serializers.ListField(child=serializers.SlugField(), min_length=1,
                                     help_text="slugs of the hardware to evaluate every solution on")
    mode = serializers.ChoiceField(choices=modes.MODES, default=modes.RANKED, help_text=(
        "every solution's: ranked (the default) counts on the agent board; a test or benchmark upload "
        "runs the visible workloads only, is private and never ranked"))
    private = serializers.BooleanField(default=False, help_text=(
        "a ranked upload kept to you (and the admins) and off every board until you publish it "
        "(POST /api/v1/agent-submissions/{id}/publish/); it is evaluated all the same"))

    def validate_hardware(self, slugs: list[str]) -> list[Hardware]:
        return active_hardware(slugs)

    def validate_file(self, upload: Any) -> Bundle:
        limit = DEFAULT_LIMITS.max_archive_bytes
        name = upload.name or "bundle"
        if upload.size > limit:  # before reading any of it
            raise BundleTooLargeError({"file": [f"{name}: {upload.size} bytes is over the limit of "
                                                f"{limit} bytes on a bundle archive"]})
        try:
            return read_bundle(upload.read(), name)
        except BundleError as exc:
            raise serializers.ValidationError(str(exc)) from None


class CheckedSolutionSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="as the bundle names it")
    problem = serializers.CharField(help_text="the problem it is for")
    language = serializers.CharField(help_text="as the server infers it")
    entry = serializers.CharField()
    files = serializers.IntegerField()
    syntax_errors = serializers.ListField(child=serializers.CharField(),
                                          help_text="path:line: message of each Python source that does "
                                                    "not compile")


class BundleCheckSerializer(serializers.Serializer):
    """A dry run's answer: nothing was stored or evaluated."""

    valid = serializers.BooleanField(help_text=("an upload would be taken, every Python source compiles "
                                                "and every C++/CUDA source reads without a lexical error"))
    name = serializers.CharField()
    version = serializers.CharField()
    model = serializers.CharField()
    solutions = CheckedSolutionSerializer(many=True)
    errors = serializers.ListField(child=serializers.CharField())


AGENT_STATUSES = [agent_suites.QUEUED, agent_suites.RUNNING, agent_suites.DONE]


class SuiteSerializer(serializers.Serializer):
    hardware = serializers.CharField()
    status = serializers.ChoiceField(choices=AGENT_STATUSES)
    score = serializers.FloatField(help_text="the suite score: mean over every current problem of the suite, "
                                             "a problem left out, failed or unfinished counting 0")
    problems = serializers.IntegerField(help_text="problems in the suite (every current problem)")
    scored = serializers.IntegerField(help_text="problems with a valid score on this hardware (some "
                                                "workload passed; not a reward hack)")


class AgentUsageSerializer(serializers.Serializer):
    """What the agent spent on one problem, as its manifest's `problems` gave it (null: not given)."""

    cost_usd = serializers.FloatField(allow_null=True, default=None)
    tokens_input = serializers.IntegerField(allow_null=True, default=None)
    tokens_output = serializers.IntegerField(allow_null=True, default=None)
    wall_seconds = serializers.FloatField(allow_null=True, default=None)


class AgentSolutionSerializer(serializers.ModelSerializer):
    problem = serializers.CharField(source="problem.name", read_only=True)
    problem_slug = serializers.CharField(source="problem.slug", read_only=True,
                                         help_text="the problem in URLs and API paths")
    problem_version = serializers.IntegerField(source="problem.version", read_only=True)
    evaluations = EvaluationSerializer(many=True, read_only=True)
    agent_usage = AgentUsageSerializer(read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "problem", "problem_slug", "problem_version", "language", "agent_usage",
                  "evaluations"]


class AgentSubmissionSerializer(serializers.ModelSerializer):
    """Needs the prefetch of submissions.suites.with_evaluations."""

    status = serializers.SerializerMethodField()
    suites = serializers.SerializerMethodField()
    submissions = AgentSolutionSerializer(many=True, read_only=True)

    class Meta:
        model = AgentSubmission
        fields = ["id", "name", "version", "model", "mode", "private", "description", "budget_usd",
                  "cost_usd", "tokens", "tokens_input", "tokens_output", "wall_seconds", "created", "status",
                  "suites", "submissions"]

    @extend_schema_field(serializers.ChoiceField(choices=AGENT_STATUSES))
    def get_status(self, agent: AgentSubmission) -> str:
        return agent_suites.agent_status(agent)

    @extend_schema_field(SuiteSerializer(many=True))
    def get_suites(self, agent: AgentSubmission) -> list[dict[str, Any]]:
        return SuiteSerializer(agent_suites.suites(agent), many=True).data


class AgentSubmissionDetailSerializer(AgentSubmissionSerializer):
    """Only ever given to the owner or an admin, so the logs are in."""

    missing_problems = serializers.SerializerMethodField()

    class Meta(AgentSubmissionSerializer.Meta):
        fields = [*AgentSubmissionSerializer.Meta.fields, "missing_problems", "logs"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_missing_problems(self, agent: AgentSubmission) -> list[str]:
        """The suite's current problems the bundle has no solution for: each counts 0 in the suite
        score."""
        return agent_suites.missing_problems(agent)
