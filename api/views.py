"""The REST API's endpoints; reading and writing go through the apps' services and ranking modules."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, Throttled, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator import confirmations, hidden_results
from evaluator.counting import counted
from evaluator.models import WorkloadResult
from evaluator.scoring.hardware import timing_note
from leaderboard import boards
from leaderboard.lookup import current_problem
from leaderboard.models import Hardware, Problem
from leaderboard.problems import visible_sol_bounds
from submissions import agent_publication, services, suites
from submissions.models import AgentSubmission, Submission
from submissions.visibility import can_view_source

from .boards import ranked_and_unranked
from .errors import ConflictError, QuotaExceededError
from .filters import ProblemFilter
from .parsers import BoundedJSONParser
from .serializers import (
    AgentSubmissionCreateSerializer,
    AgentSubmissionDetailSerializer,
    AgentSubmissionSerializer,
    BundleCheckSerializer,
    HardwareSerializer,
    LeaderboardSerializer,
    ProblemDetailSerializer,
    ProblemSerializer,
    SubmissionCreateSerializer,
    SubmissionDetailSerializer,
    SubmissionSerializer,
    SubmissionSourceSerializer,
    SubmissionSourcesSerializer,
    SubmissionUploadSerializer,
)

LIMIT_REACHED = OpenApiResponse(description="the daily submission quota of a problem, or the evaluations "
                                            "queued or running at once, would be exceeded")


class HardwareViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = Hardware.objects.all()
    serializer_class = HardwareSerializer
    permission_classes = [permissions.AllowAny]
    lookup_field = "slug"


class ProblemViewSet(viewsets.ReadOnlyModelViewSet):
    """Current versions of the problems."""

    queryset = Problem.objects.filter(is_current=True).select_related("category").order_by("name")
    permission_classes = [permissions.AllowAny]
    filterset_class = ProblemFilter
    lookup_field = "slug"
    lookup_value_regex = "[^/]+"  # the name as written is accepted too (it may hold dots)

    def get_object(self) -> Problem:
        problem = current_problem(self.kwargs["slug"], self.get_queryset())
        if problem is None:
            raise NotFound(f"no problem {self.kwargs['slug']!r}")
        self.check_object_permissions(self.request, problem)
        return problem

    def get_serializer_class(self) -> type[ProblemSerializer]:
        return ProblemDetailSerializer if self.action == "retrieve" else ProblemSerializer

    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        problem = self.get_object()
        problem.visible_workloads = [
            {"uuid": w.uuid, "smoke": w.smoke, "axes": w.axes, "inputs": w.inputs, "tolerance": w.tolerance,
             "sol_ms": bounds}
            for w, bounds in visible_sol_bounds(problem, Hardware.objects.filter(active=True))
        ]
        return Response(self.get_serializer(problem).data)


class SubmissionViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                        viewsets.GenericViewSet):
    """The caller's own submissions (an admin may open anyone's; others get 404), and the public
    sources of published submissions and of problems whose solutions are revealed."""

    permission_classes = [permissions.IsAuthenticated]
    # JSON sources, or one uploaded file; no url-encoded form, which can carry neither.
    parser_classes = [BoundedJSONParser, MultiPartParser]
    lookup_value_regex = "[0-9]+"

    def get_queryset(self) -> QuerySet[Submission]:
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular inspecting, no user
            return Submission.objects.none()
        submissions = Submission.objects.select_related("problem").order_by("-created", "-pk")
        if self.action == "list" or not self.request.user.is_staff:
            submissions = submissions.filter(owner=self.request.user)
        # one per hardware: the evaluation that counts, with where its confirmation stands
        evaluations = (confirmations.with_status(counted()).select_related("hardware")
                       .prefetch_related("reviews", "rescore_of__reviews")
                       .order_by("hardware__slug"))
        if self.action == "list":
            evaluations = evaluations.prefetch_related(hidden_results.verdicts())
            return submissions.prefetch_related(Prefetch("evaluations", queryset=evaluations))
        results = WorkloadResult.objects.select_related("workload").order_by("workload__position")
        return submissions.prefetch_related(
            Prefetch("evaluations", queryset=evaluations),
            Prefetch("evaluations__results", queryset=results))

    def get_serializer_class(self) -> type:
        return {"list": SubmissionSerializer, "create": SubmissionCreateSerializer,
                "upload": SubmissionCreateSerializer,
                "source": SubmissionSourceSerializer}.get(self.action, SubmissionDetailSerializer)

    # The JSON body and the file upload are two operations, each with its one request body: a
    # client generated from the schema gets a function for each (one operation offering both
    # trips openapi-python-client, which then emits code that does not import). `create` still
    # reads a multipart upload as well, for the clients that send one there.
    @extend_schema(request={"application/json": SubmissionSourcesSerializer},
                   responses={201: SubmissionDetailSerializer,
                              413: OpenApiResponse(description="sources over the size limit"),
                              429: LIMIT_REACHED})
    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            submission = services.create_submission(request.user, data["problem"], data["files"],
                                                    data["language"], data["hardware"], mode=data["mode"],
                                                    workload=data["workload"])
        except services.UnsupportedLanguage as exc:
            raise ValidationError({"language": [str(exc)]}) from None
        except services.SolutionRefused as exc:
            raise ValidationError({"file" if "file" in request.data else "sources": [str(exc)]}) from None
        except services.WorkloadRefused as exc:
            raise ValidationError({"workload": [str(exc)]}) from None
        except services.NoWorkerOnline as exc:
            raise ValidationError({"hardware": [str(exc)]}) from None
        except services.SubmittingTooFast as exc:
            raise Throttled(wait=exc.retry_after) from None  # DRF's message and Retry-After, as before
        except services.QuotaExceeded as exc:
            raise QuotaExceededError(str(exc)) from None
        created = self.get_queryset().get(pk=submission.pk)
        return Response(SubmissionDetailSerializer(created).data, status=status.HTTP_201_CREATED)

    @extend_schema(request={"multipart/form-data": SubmissionUploadSerializer},
                   responses={201: SubmissionDetailSerializer,
                              413: OpenApiResponse(description="the file is over the size limit"),
                              429: LIMIT_REACHED})
    @action(detail=False, methods=["post"], parser_classes=[MultiPartParser])
    def upload(self, request: Request) -> Response:
        """A submission as one uploaded file (a .py solution or a solution.json)."""
        return self.create(request)

    @extend_schema(request=None, responses={200: SubmissionDetailSerializer,
                                            409: OpenApiResponse(description="nothing left queued")})
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """Cancel the evaluations no worker has started yet."""
        submission = self.get_object()
        if submission.owner_id != request.user.pk:
            self.permission_denied(request, "only the owner may cancel a submission")
        try:
            services.cancel_submission(submission)
        except services.NotCancellable as exc:
            raise ConflictError(str(exc)) from None
        return Response(SubmissionDetailSerializer(self.get_queryset().get(pk=submission.pk)).data)

    @extend_schema(responses={200: SubmissionSourceSerializer, 404: OpenApiResponse(
        description="no such submission, or its sources are not public")})
    @action(detail=True, methods=["get"], permission_classes=[permissions.AllowAny])
    def source(self, request: Request, pk: str | None = None) -> Response:
        """The sources, for anyone once published or revealed (always for the owner and admins).
        A private submission is answered exactly as a missing one."""
        submission = Submission.objects.select_related("problem", "owner").filter(pk=pk).first()
        if submission is None or not can_view_source(request.user, submission):
            raise NotFound("No Submission matches the given query.")
        return Response(SubmissionSourceSerializer(submission).data)

    @extend_schema(request=None, responses={200: SubmissionDetailSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str | None = None) -> Response:
        """Make the sources public (the owner only)."""
        return self._set_published(request, True)

    @extend_schema(request=None, responses={200: SubmissionDetailSerializer})
    @action(detail=True, methods=["post"])
    def unpublish(self, request: Request, pk: str | None = None) -> Response:
        """Make the sources private again (the owner only)."""
        return self._set_published(request, False)

    def _set_published(self, request: Request, published: bool) -> Response:
        submission = self.get_object()
        if submission.owner_id != request.user.pk:
            self.permission_denied(request, "only the owner may publish or unpublish a submission")
        services.set_published(submission, published)
        return Response(SubmissionDetailSerializer(self.get_queryset().get(pk=submission.pk)).data)


class LeaderboardView(APIView):
    """One board: the current version of a problem on one hardware, best first; participants
    without a valid score apart."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=LeaderboardSerializer)
    def get(self, request: Request, problem: str, hardware: str) -> Response:
        current = current_problem(problem)
        if current is None:
            raise NotFound(f"no problem {problem!r}")
        board = boards.problem_board(current, get_object_or_404(Hardware, slug=hardware))
        document = {"problem": current.name, "problem_slug": current.slug, "version": current.version,
                    "hardware": board.hardware.slug, "timing_note": timing_note(board.hardware.slug),
                    **ranked_and_unranked(board.rows)}
        return Response(LeaderboardSerializer(document).data)


class AgentSubmissionViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                             viewsets.GenericViewSet):
    """The caller's own agent submissions (an admin may open anyone's; others get 404)."""

    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [MultiPartParser]  # the bundle is a file

    def get_queryset(self) -> QuerySet[AgentSubmission]:
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular inspecting, no user
            return AgentSubmission.objects.none()
        agents = AgentSubmission.objects.order_by("-created", "-pk")
        if self.action == "list" or not self.request.user.is_staff:
            agents = agents.filter(owner=self.request.user)
        return suites.with_evaluations(agents)

    def get_serializer_class(self) -> type:
        return {"list": AgentSubmissionSerializer, "create": AgentSubmissionCreateSerializer}.get(
            self.action, AgentSubmissionDetailSerializer)

    @extend_schema(parameters=[OpenApiParameter(
                       "validate", bool, description="a dry run: check the bundle (manifest, problems, "
                       "languages, hardware, Python syntax, C++/CUDA lexical errors) and answer 200 with "
                       "what an upload would do, storing and evaluating nothing")],
                   responses={201: AgentSubmissionDetailSerializer, 200: BundleCheckSerializer,
                              400: OpenApiResponse(description="a bad bundle, an unknown problem or a "
                                                               "version already uploaded"),
                              413: OpenApiResponse(description="the archive is over the size limit"),
                              429: LIMIT_REACHED})
    def create(self, request: Request, *args: object, **kwargs: object) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        dry_run = query_flag(request, "validate")
        try:
            if dry_run:
                checked = services.check_agent_bundle(request.user, data["file"], data["hardware"],
                                                      mode=data["mode"])
                return Response(BundleCheckSerializer(_bundle_check(data["file"], checked)).data)
            agent = services.create_agent_submission(request.user, data["file"], data["hardware"],
                                                     mode=data["mode"], private=data["private"])
        except (services.BundleProblemsError, services.UnsupportedLanguage, services.VersionTaken) as exc:
            raise ValidationError({"file": [str(exc)]}) from None
        except services.NoWorkerOnline as exc:
            raise ValidationError({"hardware": [str(exc)]}) from None
        except services.SubmittingTooFast as exc:
            raise Throttled(wait=exc.retry_after) from None  # DRF's message and Retry-After, as before
        except services.QuotaExceeded as exc:
            raise QuotaExceededError(str(exc)) from None
        created = self.get_queryset().get(pk=agent.pk)
        return Response(AgentSubmissionDetailSerializer(created).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={
        200: AgentSubmissionDetailSerializer,
        400: OpenApiResponse(description="a test, benchmark or profile upload: never on a board"),
        404: OpenApiResponse(description="no upload of the caller's with this id (an admin's too)")})
    @action(detail=True, methods=["post"])
    def publish(self, request: Request, pk: str | None = None) -> Response:
        """Publish a private upload (the owner only): listed, and its ranked results on the boards, from
        now on. Publishing a public upload again changes nothing."""
        number = str(pk)
        whole = number.isascii() and number.isdigit() and int(number) < 2**63
        agent = AgentSubmission.objects.filter(owner=request.user, pk=int(number)).first() if whole else None
        if agent is None:
            raise NotFound(f"no agent submission {pk} of yours")
        try:
            agent_publication.publish_agent_submission(agent)
        except agent_publication.NotPublishable as exc:
            raise ValidationError({"mode": [str(exc)]}) from None
        return Response(AgentSubmissionDetailSerializer(self.get_queryset().get(pk=agent.pk)).data)


def query_flag(request: Request, name: str) -> bool:
    value = request.query_params.get(name, "").lower()
    if value not in ("", "0", "1", "true", "false"):
        raise ValidationError({name: [f"1 or 0 (true or false), not {value!r}"]})
    return value in ("1", "true")


def _bundle_check(bundle: Any, checked: list[services.CheckedSolution]) -> dict[str, Any]:
    errors = [f"{c.name}: {error}" for c in checked for error in c.syntax_errors]
    return {"valid": not errors, "name": bundle.manifest.name, "version": bundle.manifest.version,
            "model": bundle.manifest.model, "solutions": checked, "errors": errors}
