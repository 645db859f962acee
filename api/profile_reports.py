"""GET /api/v1/submissions/{id}/profile/{hardware}/{workload}.ncu-rep: the Nsight Compute report of
one workload of a profile run (evaluator/profile_reports.py), for the submission's owner and
admins. Anyone else, signed in or not, gets the 404 of a report that is not there."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import NotFound
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator import profile_reports

MEDIA_TYPE = "application/octet-stream"


class ReportRenderer(BaseRenderer):
    """What an `Accept: application/octet-stream` asks for; errors never come here (handle_exception)."""

    media_type = MEDIA_TYPE
    format = "ncu-rep"
    charset = None
    render_style = "binary"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        return bytes(data)


class ProfileReportView(APIView):
    """The report as ncu exported it in the sandbox (the solution could have rewritten it): a
    download for Nsight Compute, `ncu --import` or ncu-ui; nothing on the server reads it."""

    permission_classes = [permissions.AllowAny]  # no login reads as no report: 404, as for others
    renderer_classes = [JSONRenderer, ReportRenderer]

    @extend_schema(
        operation_id="submission_profile_report",
        responses={(200, MEDIA_TYPE): OpenApiResponse(OpenApiTypes.BINARY, description=(
                       "the .ncu-rep file, as an attachment")),
                   404: OpenApiResponse(description="no such report (no profile run under Nsight Compute "
                                                    "there, or its report was not kept), or not yours")},
    )
    def get(self, request: Request, pk: int, hardware: str, workload: str) -> HttpResponse:
        report = profile_reports.find(request.user, pk, hardware, workload)
        if report is None:
            raise NotFound("No profile report matches the given query.")
        name = re.sub(r"[^A-Za-z0-9._-]", "_", f"submission-{pk}-{hardware}-{workload}")[:200]
        response = HttpResponse(bytes(report.data), content_type=MEDIA_TYPE)
        response["Content-Disposition"] = f'attachment; filename="{name}.ncu-rep"'
        return response

    def handle_exception(self, exc: Exception) -> Response:
        """Errors are JSON, as everywhere in the API, whatever was asked for."""
        response = super().handle_exception(exc)
        self.request.accepted_renderer, self.request.accepted_media_type = JSONRenderer(), "application/json"
        return response
