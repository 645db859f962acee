"""Query filters of the problem list."""

from __future__ import annotations

import django_filters
from django.db.models import QuerySet

from leaderboard.models import Problem


class ProblemFilter(django_filters.FilterSet):
    category = django_filters.CharFilter(field_name="category__slug", help_text="a category slug")
    task_type = django_filters.CharFilter(help_text="from_reference, optimize_triton or optimize_cuda")
    hardware = django_filters.CharFilter(method="on_hardware",
                                         help_text="only problems with a leaderboard entry on this hardware")

    class Meta:
        model = Problem
        fields = ["category", "task_type", "hardware"]

    def on_hardware(self, queryset: QuerySet[Problem], name: str, slug: str) -> QuerySet[Problem]:
        return queryset.filter(entries__hardware__slug=slug).distinct()
