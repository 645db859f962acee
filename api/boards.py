"""The rows of the boards in the API, and the category x hardware board endpoint. The boards are read
by leaderboard.boards, the same read model as the pages; definitions in docs/scoring.md, "Boards"."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evaluator import confirmations, entry_status
from evaluator.scoring.hardware import timing_note
from leaderboard import boards
from leaderboard.models import Category, Hardware


def ranked_and_unranked(rows: list[Any]) -> dict[str, list[Any]]:
    """A board's rows split into `entries` (with a valid score, in rank order) and `unranked`."""
    return {"entries": [row for row in rows if row.score is not None],
            "unranked": [row for row in rows if row.score is None]}


class FiguresSerializer(serializers.Serializer):
    """The columns every participant board shares."""

    rank = serializers.IntegerField(help_text="the place in the stable order: score, then the earlier "
                                              "submission, then the user id")
    user = serializers.CharField()
    team = serializers.CharField()
    score = serializers.FloatField()
    visible_score = serializers.FloatField(allow_null=True)
    hidden_score = serializers.FloatField(allow_null=True)
    generalization_gap = serializers.FloatField(allow_null=True, help_text="visible_score - hidden_score")
    conditional_correctness = serializers.FloatField(
        allow_null=True, help_text="share of hidden workloads passed, when every visible one passed")
    geomean_speedup = serializers.FloatField(allow_null=True,
                                             help_text="geometric-mean speedup over the reference")
    submissions = serializers.IntegerField(help_text="scored evaluations, reward hacks and zero scores "
                                                     "included")
    last_improved = serializers.DateTimeField(allow_null=True, help_text="when the best result was scored")


class EntryStatusSerializer(serializers.Serializer):
    """Why a participant has no rank, or what is in question about their entry (evaluator/entry_status.py):
    only what the submission's public page shows, never review notes or a hidden workload's details."""

    code = serializers.ChoiceField(choices=entry_status.CODES, help_text=(
        "reward_hack: flagged by the harness; disqualified: marked a reward hack by a reviewer; "
        "no_workload_passed; scored_zero; no_valid_score; disputed: a ranked entry under review"))
    text = serializers.CharField(help_text='what the boards show, e.g. "no workload passed: compile error"')
    submission = serializers.IntegerField(source="submission_id", allow_null=True, help_text=(
        "the submission it is about: a participant's latest that counts on the board when unranked"))


class ProblemBoardEntrySerializer(FiguresSerializer):
    rank = serializers.IntegerField(help_text="the place in the stable order: correct on every workload "
                                              "first, then score, then the earlier submission, then the "
                                              "user id")
    failed_workloads = serializers.IntegerField(
        source="failed", help_text="workloads the best evaluation failed, visible and hidden: an entry "
                                   "that failed any ranks below every entry that failed none")
    workloads = serializers.IntegerField(help_text="workloads the best evaluation ran")
    correct = serializers.CharField(help_text='"all N", or "incorrect on F of N workloads"')
    score_ci95 = serializers.FloatField(allow_null=True, help_text="the 95% half-width of the score")
    harness_version = serializers.CharField(source="harness", help_text=(
        'the harness version that measured the best evaluation ("unrecorded" before versions were kept)'))
    confirmation = serializers.ChoiceField(choices=confirmations.LABELS, help_text=(
        "confirmed: a second run of the entry (a top-3 one) on another worker agreed within the noise; "
        "disputed: it did not, and the entry is under review; provisional: not confirmed (yet)"))
    band = serializers.CharField(allow_null=True, help_text='the ranks this entry shares with the entries '
                                 'whose 95% intervals overlap its own ("2–4": tied); null when none')
    submitted_at = serializers.DateTimeField(help_text="when the best submission came in (ties go earlier)")
    submission = serializers.IntegerField(
        source="submission_id", allow_null=True,
        help_text="the best submission's id (`/api/v1/submissions/{id}/`, its page `/submissions/{id}/`)")
    status = EntryStatusSerializer(source="row_status", allow_null=True,
                                   help_text="null, or `disputed` while a reviewer looks at the entry")


class CategoryBoardEntrySerializer(FiguresSerializer):
    score = serializers.FloatField(help_text="mean over the category's problems of the best scores, "
                                             "a problem without a valid score counting 0")
    solved = serializers.IntegerField(help_text="problems with a valid score")
    confirmation = serializers.CharField(help_text='"C of S confirmed" (S: solved), with ", D disputed" '
                                                   "when a second run disputed any")
    confirmed = serializers.IntegerField(help_text="solved problems whose best entry a second run confirmed")
    disputed = serializers.IntegerField(help_text="solved problems whose best entry is disputed (reviewed)")
    submitted_at = serializers.DateTimeField(help_text="when the last of the best results counted came in "
                                                       "(ties go earlier)")


class UnrankedSerializer(serializers.Serializer):
    """A participant who submitted but has no valid score (every workload failed, or reward hacks)."""

    user = serializers.CharField()
    team = serializers.CharField()
    submissions = serializers.IntegerField()
    submitted_at = serializers.DateTimeField(help_text="when their first submission came in")


class ProblemUnrankedSerializer(UnrankedSerializer):
    status = EntryStatusSerializer(source="row_status", help_text=(
        "why: their latest evaluation that counts on the board, in public words"))


class CategoryBoardSerializer(serializers.Serializer):
    category = serializers.CharField()
    task_type = serializers.CharField(allow_null=True, help_text="the task type the board is limited to")
    hardware = serializers.CharField()
    timing_note = serializers.CharField(help_text="what this hardware's times are not (the CPU's: no GPU "
                                                  "timing); empty for a GPU")
    problems = serializers.ListField(child=serializers.CharField(),
                                     help_text="the current problems the scores are the mean over")
    entries = CategoryBoardEntrySerializer(many=True)
    unranked = UnrankedSerializer(many=True)


class CategoryBoardView(APIView):
    """A category on one hardware: each participant's mean over the category's current problems of
    their best score there, a missing problem counting 0; best first."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(parameters=[OpenApiParameter("task_type", str, enum=list(boards.TASK_TYPES),
                                                description="only the problems of this task type")],
                   responses={200: CategoryBoardSerializer,
                              400: OpenApiResponse(description="an unknown task type"),
                              404: OpenApiResponse(description="an unknown category or hardware")})
    def get(self, request: Request, category: str, hardware: str) -> Response:
        task_type = request.query_params.get("task_type") or None
        if task_type is not None and task_type not in boards.TASK_TYPES:
            raise ValidationError({"task_type": [f"unknown task type {task_type!r}; use one of: "
                                                 + ", ".join(boards.TASK_TYPES)]})
        board = boards.category_board(get_object_or_404(Category, slug=category),
                                      get_object_or_404(Hardware, slug=hardware), task_type)
        document = {"category": board.category.slug, "task_type": task_type, "hardware": board.hardware.slug,
                    "timing_note": timing_note(board.hardware.slug),
                    "problems": [p.name for p in board.problems], **ranked_and_unranked(board.rows)}
        return Response(CategoryBoardSerializer(document).data)
