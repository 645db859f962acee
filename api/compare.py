"""GET /api/v1/compare/?a=ID&b=ID[&hardware=SLUG]: two submissions of one problem side by side
(submissions/compare.py). Anyone may ask: it holds what the two submission pages show anyone."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from submissions import compare
from submissions.models import Submission


class CellSerializer(serializers.Serializer):
    status = serializers.CharField()
    latency_ms = serializers.FloatField(allow_null=True)
    score = serializers.FloatField()


class PairSerializer(serializers.Serializer):
    uuid = serializers.CharField()
    axes = serializers.DictField(child=serializers.IntegerField())
    a = CellSerializer()
    b = CellSerializer()
    latency_ratio = serializers.FloatField(allow_null=True, help_text="b's time over a's where both passed: "
                                                                      "under 1, b is faster")
    score_delta = serializers.FloatField(help_text="b's score minus a's")


class SideSerializer(serializers.Serializer):
    submission = serializers.IntegerField()
    user = serializers.CharField()
    language = serializers.CharField()
    problem_version = serializers.IntegerField()
    state = serializers.CharField(help_text="of its evaluation on this hardware")
    score = serializers.FloatField(allow_null=True)
    hidden = serializers.DictField(allow_null=True, help_text="its hidden workloads as one aggregate")


class ComparisonSerializer(serializers.Serializer):
    problem = serializers.CharField()
    hardware = serializers.CharField()
    a = SideSerializer()
    b = SideSerializer()
    workloads = PairSerializer(many=True, help_text="the visible workloads both ran, in the problem's order")
    geomean_latency_ratio = serializers.FloatField(allow_null=True,
                                                   help_text="over the workloads both passed")
    faster_in_b = serializers.IntegerField(help_text="workloads where b's time is the shorter")


def _id(request: Request, name: str) -> int:
    value = request.query_params.get(name, "")
    if not (value.isascii() and value.isdigit()):
        raise ValidationError({name: [f"a submission id, not {value!r}" if value else "required"]})
    return int(value)


class CompareView(APIView):
    """Two submissions of one problem on one hardware: per visible workload both ran, the two
    times and scores and their ratio; hidden workloads only as each side's aggregate."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[OpenApiParameter("a", int, required=True),
                               OpenApiParameter("b", int, required=True),
                               OpenApiParameter("hardware", str,
                                                description="needed when both ran on several")],
                   responses={200: ComparisonSerializer, 400: OpenApiResponse(description="cannot compare"),
                              404: OpenApiResponse(description="an unknown submission")})
    def get(self, request: Request) -> Response:
        a, b = _id(request, "a"), _id(request, "b")
        try:
            found = compare.compare(a, b, request.query_params.get("hardware") or None, request.user)
        except Submission.DoesNotExist as exc:
            raise NotFound(str(exc)) from None
        except compare.CannotCompare as exc:
            raise ValidationError({"detail": [str(exc)]}) from None
        document: dict[str, Any] = {**asdict(found), "geomean_latency_ratio": found.geomean_latency_ratio,
                                    "faster_in_b": found.faster_in_b}
        return Response(ComparisonSerializer(document).data)
