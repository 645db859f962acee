"""The score-versus-cost frontier of a hardware's agent board in the API (docs/scoring.md, "Score
versus cost"): the listed uploads on the board, split into the frontier (cheapest first), the others
with a cost and those whose manifest gives none."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator.scoring.hardware import timing_note
from leaderboard import agent_boards
from leaderboard.agent_boards import AgentRow
from leaderboard.models import Hardware

from .agent_serializers import AgentFrontierSerializer
from .agents import board_row


class AgentFrontierView(APIView):
    """Every upload of the agent board of one hardware at its suite score and cost: the frontier is
    the uploads no other beats on both counts (a score at least as high for at most the cost)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[OpenApiParameter("hardware", str, required=True,
                                                description="the hardware's slug")],
                   responses={200: AgentFrontierSerializer,
                              400: OpenApiResponse(description="hardware left out"),
                              404: OpenApiResponse(description="an unknown hardware")})
    def get(self, request: Request) -> Response:
        slug = request.query_params.get("hardware", "")
        if not slug:
            raise ValidationError({"hardware": ["give ?hardware=<slug>"]})
        found = agent_boards.cost_frontier(get_object_or_404(Hardware, slug=slug))
        def entries(rows: list[AgentRow]) -> list[dict[str, Any]]:
            return [{**board_row(row), "on_frontier": found.on_frontier(row)} for row in rows]

        return Response(AgentFrontierSerializer({
            "hardware": slug, "timing_note": timing_note(slug), "problems": len(found.board.suite.problems),
            "frontier": entries(found.frontier), "dominated": entries(found.dominated),
            "no_cost": entries(found.no_cost)}).data)
