"""A board's rows come from a Jinja2 template (templates/jinja2/pages/board_rows.html), not a
Django loop over cells: the same bytes the Django template and its cells gave, every text
escaped."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from django.template import Context, Template
from django.utils import timezone

from evaluator.scoring import numbers
from leaderboard import boards
from leaderboard.boards import Column, ProblemRow
from pages.board_views import board_rows, page_url

# templates/pages/_board_rows.html as it was, included by board_page.html
TEMPLATE = (
    '{% for line in lines %}<tr{% if line.unscored %} class="unscored"{% endif %}>'
    "{% for cell in line.cells %}"
    '<td{% if cell.css %} class="{{ cell.css }}"{% endif %}>{% if cell.url %}<a href="{{ cell.url }}">'
    "{{ cell.text }}</a>{% else %}{{ cell.text }}{% endif %}</td>{% endfor %}</tr>{% if not forloop.last %}\n"
    "    {% endif %}{% endfor %}")


@dataclass(frozen=True)
class Cell:
    text: str
    css: str = ""
    url: str = ""


def old_cell(row: Any, column: Column) -> Cell:
    """Each cell's text, class and link, as pages.board_views._cell made them for the Django
    template (since: a score's link to its submission, numbers as evaluator.scoring.numbers
    writes them for the CLI too)."""
    value = getattr(row, column.key)
    css = "num" if column.numeric else ""
    if value is None:
        return Cell("no valid score", "num unscored") if column.key == "score" else Cell("–", css)
    if column.key == "score":  # linked to the submission behind it, where the board keeps it
        best = getattr(row, "submission_id", None)
        link = page_url("submission", str(best)) if best is not None else ""
        return Cell(numbers.significant(value), css, link)
    if column.kind == "score":
        return Cell(numbers.significant(value), css)
    if column.kind == "ratio":
        return Cell(numbers.share(value), css)
    if column.kind == "speedup":
        return Cell(f"{numbers.significant(value)}×", css)
    if column.kind == "time":
        return Cell(timezone.localtime(value).strftime("%Y-%m-%d %H:%M"), f"{css} time")
    url = page_url("participant", row.user) if column.key == "user" else ""
    return Cell(str(value), css, url)


def as_the_template_made_them(rows: list[Any], columns: tuple[Column, ...]) -> str:
    lines = [{"cells": [old_cell(row, c) for c in columns], "unscored": row.score is None} for row in rows]
    return Template(TEMPLATE).render(Context({"lines": lines}))


def problem_row(rank: int | None, user: str, team: str, score: float | None, **figures: Any) -> ProblemRow:
    at = datetime(2026, 12, 1, 10, 5, tzinfo=UTC)
    return ProblemRow(rank, 1, user, team, score, figures.get("visible"), figures.get("hidden"),
                      figures.get("gap"), figures.get("conditional"), figures.get("speedup"), 3, at,
                      at if score is not None else None, 7 if score is not None else None)


ROWS = [
    problem_row(1, "ada", "<b>team</b> & 'co' \"x\"", 0.98765, visible=1.0, hidden=0.5, gap=-0.25,
                conditional=0.666, speedup=12.345),
    problem_row(2, "bob<script>", "", 1e-9, visible=0.0, hidden=None, speedup=float("inf")),
    problem_row(None, "a/slash", "=cmd", None),
    problem_row(None, "caf\u00e9 \u00fc", "t\u00e9am", None, visible=float("nan")),
]


@pytest.mark.django_db
def test_problem_board_rows_are_the_bytes_the_template_gave() -> None:
    made = board_rows(ROWS, boards.PROBLEM_COLUMNS)
    assert made == as_the_template_made_them(ROWS, boards.PROBLEM_COLUMNS)
    assert "<script>" not in made and "'co'" not in made and '"x"' not in made
    assert '<td class="num"><a href="/submissions/7/">0.988</a></td>' in made
    assert '<td class="num">12.3×</td>' in made  # three significant digits, as the CLI writes them


@pytest.mark.django_db
def test_category_board_rows_are_the_bytes_the_template_gave() -> None:
    rows = [boards.CategoryRow(1, 1, "ada", "t<1>", 0.5, 2, 0.5, 0.25, 0.25, 1.0, 2.5, 9,
                               datetime(2026, 12, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC)),
            boards.CategoryRow(None, 2, "bob", "", None, 0, None, None, None, None, None, 1,
                               datetime(2026, 12, 1, tzinfo=UTC), None)]
    columns = boards.CATEGORY_COLUMNS
    assert board_rows(rows, columns) == as_the_template_made_them(rows, columns)


def test_no_rows_is_empty() -> None:
    columns = boards.PROBLEM_COLUMNS
    assert board_rows([], columns) == "" == as_the_template_made_them([], columns)
