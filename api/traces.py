"""GET /api/v1/evaluations/{id}/trace/: a scored evaluation's results as SOL-ExecBench trace JSONL
(evaluator/stored_traces.py), for whoever may read the evaluation's results."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotAcceptable, NotFound
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator import traces
from evaluator.models import Evaluation
from evaluator.stored_traces import NotScored, evaluation_traces

from .errors import ConflictError

HIDDEN_HEADER = "X-Hidden-Workloads-Left-Out"


class TraceLinesRenderer(BaseRenderer):
    """One JSON object a line (errors never come here: handle_exception gives them JSON)."""

    media_type = traces.MEDIA_TYPE
    format = "jsonl"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        return traces.to_jsonl(data if isinstance(data, list) else [data]).encode()


# What a record holds (evaluator/traces.py writes it), for the OpenAPI document only.
class TraceInputSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=list(traces.INPUT_FIELDS))
    value = serializers.JSONField(required=False, help_text="scalar inputs: the number or bool")
    path = serializers.CharField(required=False, help_text="safetensors inputs: the file")
    tensor_key = serializers.CharField(required=False, help_text="safetensors inputs: the tensor's key")


class TraceWorkloadSerializer(serializers.Serializer):
    uuid = serializers.CharField()
    axes = serializers.DictField(child=serializers.IntegerField(min_value=0))
    inputs = serializers.DictField(child=TraceInputSerializer())
    tolerance = serializers.DictField(child=serializers.FloatField(),
                                      help_text="max_atol, max_rtol, required_matched_ratio")


class TraceCorrectnessSerializer(serializers.Serializer):
    max_relative_error = serializers.FloatField(min_value=0)
    max_absolute_error = serializers.FloatField(min_value=0)
    has_nan = serializers.BooleanField()
    has_inf = serializers.BooleanField()
    extra = serializers.JSONField(allow_null=True, help_text="rounds, min_matched_ratio; not_measured: "
                                                            "the figures a result lacks (they read 0)")


class TracePerformanceSerializer(serializers.Serializer):
    latency_ms = serializers.FloatField(min_value=0)
    reference_latency_ms = serializers.FloatField(min_value=0)
    speedup_factor = serializers.FloatField(min_value=0)


class TraceEnvironmentSerializer(serializers.Serializer):
    hardware = serializers.CharField(help_text="the GPU's name, or the hardware row's without a GPU")
    libs = serializers.DictField(child=serializers.CharField(), help_text="library -> version")


class TraceEvaluationSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=list(traces.STATUSES.values()))
    log = serializers.CharField(allow_blank=True, help_text="our message: why, for anything but PASSED")
    correctness = TraceCorrectnessSerializer(allow_null=True,
                                             help_text="PASSED and INCORRECT_NUMERICAL only")
    performance = TracePerformanceSerializer(allow_null=True, help_text="PASSED only")
    environment = TraceEnvironmentSerializer()
    timestamp = serializers.CharField(help_text="ISO 8601, UTC: when the evaluation finished")


class TraceRecordSerializer(serializers.Serializer):
    definition = serializers.CharField(help_text="the problem's name")
    solution = serializers.CharField(help_text="a solution.json's name, else submission-<id>")
    workload = TraceWorkloadSerializer()
    evaluation = TraceEvaluationSerializer()


class EvaluationTraceView(APIView):
    """A scored evaluation's visible workloads as SOL-ExecBench traces, one JSON object a line
    (`?format=json`: one JSON array). The owner of the submission and admins only; hidden
    workloads are left out, and the header X-Hidden-Workloads-Left-Out says how many."""

    permission_classes = [permissions.IsAuthenticated]
    renderer_classes = [TraceLinesRenderer, JSONRenderer]

    @extend_schema(
        operation_id="evaluation_trace",
        parameters=[
            OpenApiParameter("format", str, enum=["jsonl", "json"],
                             description="jsonl (the default): application/x-ndjson; json: one array"),
            OpenApiParameter(HIDDEN_HEADER, int, OpenApiParameter.HEADER, response=[200],
                             description="hidden workloads of the evaluation, which traces never show"),
        ],
        responses={
            (200, traces.MEDIA_TYPE): OpenApiResponse(TraceRecordSerializer, description=(
                "the visible workloads' trace records: one a line, or one array with ?format=json")),
            (200, "application/json"): TraceRecordSerializer(many=True),
            404: OpenApiResponse(description="no such evaluation, or not yours"),
            406: OpenApiResponse(description="a ?format= other than jsonl or json"),
            409: OpenApiResponse(description="the evaluation is not scored (queued, running, failed or "
                                             "cancelled)"),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        evaluation = (Evaluation.objects.select_related("submission__problem", "hardware")
                      .filter(pk=pk).first())
        # the rule of the results in /submissions/{id}/: the owner and admins; anyone else, as missing
        if evaluation is None or not (request.user.is_staff
                                      or evaluation.submission.owner_id == request.user.pk):
            raise NotFound("No Evaluation matches the given query.")
        try:
            exported = evaluation_traces(evaluation)
        except NotScored as exc:
            raise ConflictError(str(exc)) from None
        headers = {HIDDEN_HEADER: str(exported.hidden_left_out)}
        if request.accepted_renderer.format == TraceLinesRenderer.format:
            headers["Content-Disposition"] = f'attachment; filename="evaluation-{pk}-traces.jsonl"'
        return Response(exported.records, headers=headers)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        try:
            return super().perform_content_negotiation(request, force)
        except Http404:  # DRF's answer to an unknown ?format=
            raise NotAcceptable("?format= must be jsonl (the default) or json") from None

    def handle_exception(self, exc: Exception) -> Response:
        """Errors are JSON, as everywhere in the API, whatever format was asked for."""
        response = super().handle_exception(exc)
        self.request.accepted_renderer, self.request.accepted_media_type = JSONRenderer(), "application/json"
        return response
