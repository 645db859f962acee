"""Finding a current problem by what a participant calls it: its slug (as in URLs) or its name as
written in its definition. Sync keeps the two unambiguous: a slug-shaped name is its own slug, and
no two current problems share a slug, so one word never names two problems."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Q, QuerySet

from .models import Problem


def current_problem(identifier: str, problems: QuerySet[Problem] | None = None) -> Problem | None:
    """The current version of the problem whose slug or name is `identifier`, or None."""
    rows = (Problem.objects.all() if problems is None else problems).filter(
        Q(slug=identifier) | Q(name=identifier), is_current=True)
    return min(rows, key=lambda row: row.slug != identifier, default=None)


def current_problems(identifiers: Iterable[str]) -> dict[str, Problem]:
    """Each identifier (slug or name) that names a current problem, with that problem; one query."""
    wanted = list(identifiers)
    rows = list(Problem.objects.filter(Q(slug__in=wanted) | Q(name__in=wanted), is_current=True))
    by_slug = {row.slug: row for row in rows}
    by_name = {row.name: row for row in rows}
    found = {}
    for identifier in wanted:
        row = by_slug.get(identifier) or by_name.get(identifier)
        if row is not None:
            found[identifier] = row
    return found
