"""Agents in the API, readable by anyone for listed uploads (submissions.agent_visibility): the agent
board, one upload's results problem by problem, one agent's uploads (the agent page's JSON) and two
uploads compared; and an upload's trajectories, readable where its logs are. Every figure comes from
submissions.agent_results (docs/scoring.md, "Agent suites")."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.harness.problem import TASK_TYPES
from evaluator.scoring.hardware import timing_note
from evaluator.scoring.suite import SuiteFigures
from leaderboard import agent_boards
from leaderboard.models import Hardware
from submissions import agent_compare, agent_results, agent_visibility, trajectories
from submissions.agent_results import HardwareResults, UploadResults
from submissions.models import AgentSubmission

from .agent_serializers import (
    AgentBoardSerializer,
    AgentComparisonSerializer,
    AgentDocumentSerializer,
    TrajectorySerializer,
    UploadResultsSerializer,
)
from .views import query_flag

MAX_ID = 2**63 - 1  # the id column's largest value: a larger number would fail the look-up itself
NOT_FOUND = OpenApiResponse(description="no such upload, or not one the caller may read")


def _figures(figures: SuiteFigures | None) -> dict[str, Any] | None:
    return None if figures is None else figures.to_dict()


def _task_types(here: HardwareResults) -> list[dict[str, Any]]:
    return [{"task_type": name, **figures.to_dict()} for name, figures in here.task_types.items()]


def hardware_document(here: HardwareResults) -> dict[str, Any]:
    return {"hardware": here.hardware, "timing_note": timing_note(here.hardware), "status": here.status,
            "suite": here.suite.to_dict(),
            "task_types": _task_types(here), "missing_problems": here.missing,
            "problems": [row.to_dict() for row in here.problems]}


def upload_document(upload: UploadResults) -> dict[str, Any]:
    agent = upload.agent
    return {"id": agent.pk, "agent": agent.name, "version": agent.version, "model": agent.model,
            "user": agent.owner.get_username(), "mode": agent.mode, "private": agent.private,
            "created": agent.created,
            "cost_usd": agent.cost_usd, "budget_usd": agent.budget_usd, "tokens": agent.tokens,
            "tokens_input": agent.tokens_input, "tokens_output": agent.tokens_output,
            "wall_seconds": agent.wall_seconds, "hardware": [hardware_document(h) for h in upload.hardware]}


def board_row(row: agent_boards.AgentRow) -> dict[str, Any]:
    """A board row as AgentRowSerializer reads it: who, what the upload spent as its manifest says
    (`tokens`: input + output where only those are given), its suite figures."""
    upload = row.upload
    return {"rank": row.rank, "agent": row.agent, "version": row.version, "model": row.model,
            "user": row.user, "team": row.team, "agent_submission": row.agent_submission,
            "submitted_at": row.submitted_at, "cost_usd": row.cost_usd, "tokens": row.tokens,
            "tokens_input": upload.tokens_input, "tokens_output": upload.tokens_output,
            "wall_seconds": upload.wall_seconds, **row.figures.to_dict()}


def readable(request: Request) -> QuerySet[AgentSubmission]:
    return (AgentSubmission.objects.filter(agent_visibility.visible_to(request.user)).select_related("owner")
            .defer("logs"))


def _upload(request: Request, value: str, name: str) -> AgentSubmission:
    if not value:
        raise ValidationError({name: ["required: an agent submission's id"]})
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_ID:
        raise ValidationError({name: [f"an agent submission's id (a whole number), not {value!r}"]})
    found = readable(request).filter(pk=int(value)).first()
    if found is None:
        raise NotFound(f"no agent submission #{value}")
    return found


class AgentBoardView(APIView):
    """The agent board of one hardware: every listed upload whose evaluations there have all
    finished, by suite score (over one task type's problems with ?task_type=)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[
        OpenApiParameter("hardware", str, required=True, description="the hardware's slug"),
        OpenApiParameter("task_type", str, enum=list(TASK_TYPES), description="the figures over this task "
                         "type's problems, and only the uploads with a solution of one"),
        OpenApiParameter("problems", bool, description="each entry with every problem's results")],
        responses={200: AgentBoardSerializer, 400: OpenApiResponse(description="a missing or bad parameter"),
                   404: OpenApiResponse(description="an unknown hardware")})
    def get(self, request: Request) -> Response:
        slug = request.query_params.get("hardware", "")
        if not slug:
            raise ValidationError({"hardware": ["give ?hardware=<slug>"]})
        task_type = request.query_params.get("task_type") or None
        if task_type is not None and task_type not in TASK_TYPES:
            raise ValidationError({"task_type": [f"unknown task type {task_type!r}; use one of: "
                                                 + ", ".join(TASK_TYPES)]})
        with_problems = query_flag(request, "problems")
        board = agent_boards.agent_board(get_object_or_404(Hardware, slug=slug), task_type)
        entries = [{**board_row(row), "task_types": _task_types(row.results),
                    "missing_problems": row.results.missing,
                    **({"results": [p.to_dict() for p in row.results.problems]} if with_problems else {})}
                   for row in board.rows]
        size = board.suite.sizes.get(task_type, 0) if task_type else len(board.suite.problems)
        return Response(AgentBoardSerializer({"hardware": board.hardware.slug,
                                              "timing_note": timing_note(board.hardware.slug),
                                              "task_type": task_type, "problems": size,
                                              "entries": entries}).data)


class UploadResultsView(APIView):
    """One upload's results in one call: on every hardware it ran on, the suite's and each task
    type's figures and every problem of the suite (left-out ones too)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(responses={200: UploadResultsSerializer,
                              400: OpenApiResponse(description="an id no upload can have"), 404: NOT_FOUND})
    def get(self, request: Request, pk: int) -> Response:
        upload = _upload(request, str(pk), "id")
        return Response(UploadResultsSerializer(upload_document(agent_results.upload_results(upload))).data)


class AgentResultsView(APIView):
    """One agent's uploads (its owner and manifest name), newest first, each with its results: the
    agent page's JSON."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[OpenApiParameter("user", str, required=True, description="the owner"),
                               OpenApiParameter("agent", str, required=True, description="its name")],
                   responses={200: AgentDocumentSerializer,
                              400: OpenApiResponse(description="user or agent left out"),
                              404: OpenApiResponse(description="no such agent")})
    def get(self, request: Request) -> Response:
        user, name = request.query_params.get("user", ""), request.query_params.get("agent", "")
        missing = {key: ["required"] for key, value in (("user", user), ("agent", name)) if not value}
        if missing:
            raise ValidationError(missing)
        uploads = list(readable(request).filter(owner__username=user, name=name).order_by("-created", "-pk"))
        if not uploads:
            raise NotFound(f"no agent named {name!r} was uploaded by {user!r}")
        found = agent_results.results(uploads)
        return Response(AgentDocumentSerializer({"user": user, "agent": name, "uploads": [
            upload_document(found[upload.pk]) for upload in uploads]}).data)


class AgentCompareView(APIView):
    """Two uploads problem by problem on one hardware, b minus a."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[
        OpenApiParameter("a", int, required=True, description="an upload's id"),
        OpenApiParameter("b", int, required=True, description="another upload's id"),
        OpenApiParameter("hardware", str, description="default: the first both ran on")],
        responses={200: AgentComparisonSerializer, 400: OpenApiResponse(description="no shared hardware"),
                   404: NOT_FOUND})
    def get(self, request: Request) -> Response:
        a = _upload(request, request.query_params.get("a", ""), "a")
        b = _upload(request, request.query_params.get("b", ""), "b")
        try:
            found = agent_compare.compare_uploads(a, b, request.query_params.get("hardware") or None)
        except agent_compare.CompareError as exc:
            raise ValidationError({"hardware": [str(exc)]}) from None
        return Response(AgentComparisonSerializer(comparison_document(found)).data)


def _compared(upload: UploadResults, here: HardwareResults) -> dict[str, Any]:
    agent = upload.agent
    return {"id": agent.pk, "agent": agent.name, "version": agent.version, "model": agent.model,
            "user": agent.owner.get_username(), "status": here.status, "suite": here.suite.to_dict()}


def comparison_document(found: agent_compare.Comparison) -> dict[str, Any]:
    return {
        "hardware": found.hardware, "timing_note": timing_note(found.hardware),
        "a": _compared(found.a, found.a_here), "b": _compared(found.b, found.b_here),
        "delta": found.suite_delta, "better": found.better, "improved": found.improved, "worse": found.worse,
        "task_types": [{"task_type": t.task_type, "a": _figures(t.a), "b": _figures(t.b), "delta": t.delta}
                       for t in found.task_types],
        "problems": [{"problem": p.delta.problem, "task_type": p.delta.task_type,
                      "a": p.a.to_dict() if p.a else None, "b": p.b.to_dict() if p.b else None,
                      "score_delta": p.delta.score, "visible_delta": p.delta.visible_score,
                      "hidden_delta": p.delta.hidden_score, "change": p.delta.change,
                      "better": p.delta.better}
                     for p in found.problems],
    }


class TrajectoryView(APIView):
    """One trajectory of an upload (a log whose path ends in .jsonl), step by step: its owner's and
    the admins', anyone's once the upload is listed and every one of its solutions' sources is public
    (submissions.agent_visibility.can_read_logs)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[OpenApiParameter("log", str, required=True,
                                                 description="the log's path in the bundle")],
                   responses={200: TrajectorySerializer,
                              400: OpenApiResponse(description="no log named, or a log that is no "
                                                               "trajectory"),
                              404: OpenApiResponse(description="no such upload or log, or not one the caller "
                                                               "may read")})
    def get(self, request: Request, pk: int) -> Response:
        agent = (AgentSubmission.objects.filter(agent_visibility.visible_to(request.user), pk=pk)
                 .select_related("owner").first() if pk <= MAX_ID else None)
        if agent is None:
            raise NotFound(f"no agent submission #{pk}")
        if not agent_visibility.can_read_logs(request.user, agent):
            raise NotFound(f"the logs of agent submission #{pk} are not public: they are once every one of "
                           "its solutions' sources is")
        path = request.query_params.get("log", "")
        try:
            steps = trajectories.read(agent.logs, path, agent.pk)
        except trajectories.BadTrajectory as exc:
            raise ValidationError({"log": [str(exc)]}) from None
        except trajectories.NoSuchTrajectory as exc:
            raise NotFound(str(exc)) from None
        return Response(TrajectorySerializer({
            "id": agent.pk, "agent": agent.name, "version": agent.version, "user": agent.owner.get_username(),
            "log": path, "steps": [step.to_dict() for step in steps]}).data)
