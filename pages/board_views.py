"""The board pages: tables sortable by any column (?sort=), one tab per hardware, a task-type filter
on category boards, and the same rows as a CSV download (?format=csv). The JSON of a board is the
API's (/api/v1/leaderboards/...): the page links to it, and ?format=json redirects there."""

from __future__ import annotations

import functools
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import get_object_or_404, render
from django.template.loader import get_template
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from evaluator.scoring import numbers
from evaluator.scoring.hardware import timing_note
from leaderboard import agent_boards, boards
from leaderboard.boards import Column
from leaderboard.lookup import current_problem
from leaderboard.models import Category, Hardware, Problem
from solarena import changes

from . import agent_downloads, downloads, page_cache
from .page_cache import public_page

FORMATS = ("html", "csv", "json")


class BadRequest(ValueError):
    """A query parameter the page cannot use; the message says which and what it takes."""


@dataclass(frozen=True)
class Header:
    column: Column
    url: str
    arrow: str


@dataclass(frozen=True)
class Tab:
    label: str
    url: str
    active: bool


@dataclass(frozen=True)
class Rows:
    """A board's rows, computed only when the response needs them (not for a bad parameter)."""

    columns: tuple[Column, ...]
    compute: Callable[[], Sequence[Any]]


BOARD_PARAMS = ("format", "sort")


@public_page(params=BOARD_PARAMS)
def problem_board(request: HttpRequest, problem: str, hardware: str) -> HttpResponse:
    current = current_problem(problem, Problem.objects.select_related("category"))
    if current is None:
        raise Http404(f"no problem {problem!r}")
    hw, tabs = _hardware(hardware)
    page_cache.shows(request, changes.board(current.pk, hw.pk), changes.NAMES, changes.SITE)
    rows = Rows(boards.PROBLEM_COLUMNS, lambda: boards.problem_board(current, hw).rows)
    meta = {"board": "problem", "problem": current.name, "category": current.category.slug,
            "task_type": current.task_type, "hardware": hw.slug}
    context = {"problem": current, "hardware": hw, "all_hardware": tabs,
               "category_url": reverse("category-board", args=[current.category.slug, hw.slug]),
               "rules_url": reverse("problem", args=[current.slug]) + "#rules"}
    return _respond(request, rows, "pages/board_problem.html", context, meta,
                    lambda slug: reverse("problem-board", args=[current.slug, slug]),
                    reverse("leaderboard", args=[current.slug, hw.slug]))


@public_page(params=(*BOARD_PARAMS, "task_type"))
def category_board(request: HttpRequest, category: str, hardware: str) -> HttpResponse:
    cat = get_object_or_404(Category, slug=category)
    hw, tabs = _hardware(hardware)
    try:
        task_type = task_type_of(request)
    except BadRequest as exc:
        return bad_request(request, str(exc))
    problems = boards.current_problems(cat, task_type)
    page_cache.shows(request, *(changes.board(p.pk, hw.pk) for p in problems), changes.NAMES, changes.SITE)
    rows = Rows(boards.CATEGORY_COLUMNS, lambda: boards.category_board(cat, hw, task_type, problems).rows)
    meta = {"board": "category", "category": cat.slug, "task_type": task_type, "hardware": hw.slug}
    context = {"category": cat, "hardware": hw, "all_hardware": tabs, "task_type": task_type,
               "task_types": boards.TASK_TYPES,
               "problems": [(p, reverse("problem-board", args=[p.slug, hw.slug])) for p in problems]}
    return _respond(request, rows, "pages/board_category.html", context, meta,
                    lambda slug: reverse("category-board", args=[cat.slug, slug]),
                    _with_query(reverse("category-leaderboard", args=[cat.slug, hw.slug]),
                                task_type=task_type))


@public_page(params=(*BOARD_PARAMS, "task_type", "by"))
def agent_board(request: HttpRequest, hardware: str) -> HttpResponse:
    """One row per upload; ?format=csv&by=task_type or by=problem: one line per upload and task type
    or problem (pages/agent_downloads.py)."""
    hw, tabs = _hardware(hardware)
    page_cache.shows(request, *page_cache.AGENT_SUBJECTS)
    try:
        task_type = task_type_of(request)
        by = agent_downloads.by_of(request.GET)
    except (BadRequest, agent_downloads.BadDownload) as exc:
        return bad_request(request, str(exc))
    if by is not None:
        name = "-".join(filter(None, ["agents", task_type, hw.slug, f"by-{by}"]))
        return downloads.download(agent_downloads.board_csv(agent_boards.agent_board(hw, task_type), by),
                                  "text/csv", name, "csv")
    rows = Rows(agent_boards.AGENT_COLUMNS, lambda: agent_boards.agent_board(hw, task_type).rows)
    by_urls = [(by.replace("_", " "), _with_query(request.path, format="csv", task_type=task_type, by=by))
               for by in agent_downloads.BY]
    context = {"hardware": hw, "all_hardware": tabs, "task_type": task_type, "task_types": boards.TASK_TYPES,
               "by_urls": by_urls}
    meta = {"board": "agents", "hardware": hw.slug}
    return _respond(request, rows, "pages/board_agents.html", context, meta,
                    lambda slug: reverse("agent-board", args=[slug]),
                    _with_query(reverse("agent-leaderboard"), hardware=hw.slug, task_type=task_type))


def _hardware(slug: str) -> tuple[Hardware, list[Hardware]]:
    """The hardware of the board and every hardware (its tabs), in one query; 404 for an unknown slug."""
    everything = list(Hardware.objects.all())
    found = next((hw for hw in everything if hw.slug == slug), None)
    if found is None:
        raise Http404(f"No hardware {slug!r}.")
    return found, everything


def task_type_of(request: HttpRequest) -> str | None:
    task_type = request.GET.get("task_type") or None
    if task_type is not None and task_type not in boards.TASK_TYPES:
        raise BadRequest(f"unknown task type {task_type!r}; use one of: {', '.join(boards.TASK_TYPES)}")
    return task_type


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "pages/board_error.html", {"message": message}, status=400)


def _with_query(url: str, **params: str | None) -> str:
    given = {key: value for key, value in params.items() if value}
    return f"{url}?{urlencode(given)}" if given else url


def _respond(request: HttpRequest, rows: Rows, template: str, context: dict[str, Any], meta: dict[str, Any],
             url_on: Callable[[str], str], api_url: str) -> HttpResponse:
    """The board as a page or a CSV download, sorted as asked; `api_url`: the same board in the API,
    where ?format=json is sent (the one JSON form of a board)."""
    fmt = request.GET.get("format") or "html"
    sort = request.GET.get("sort", "")
    columns = rows.columns
    if fmt not in FORMATS:
        return bad_request(request, f"unknown format {fmt!r}; use csv or json, or leave it out for the page")
    if fmt == "json":
        return HttpResponseRedirect(api_url)
    try:
        boards.sort_rows([], sort or "rank", columns)  # checks the column's name
    except boards.UnknownSort as exc:
        return bad_request(request, str(exc))

    def ordered() -> Sequence[Any]:
        computed = rows.compute()
        return boards.sort_rows(computed, sort, columns) if sort else computed

    name = "-".join(filter(None, [meta.get("problem") or meta.get("category") or meta["board"],
                                  meta.get("task_type") if meta["board"] == "category" else None,
                                  meta["hardware"]]))
    if fmt == "csv":
        return downloads.download(_csv(ordered(), columns), "text/csv", name, "csv")
    query = request.GET.copy()
    hardware: list[Hardware] = context["all_hardware"]
    current: Hardware = context["hardware"]
    return render(request, template, {
        **context,
        "headers": _headers(query, columns, sort),
        "board_rows": board_rows(ordered(), columns, context.get("rules_url", "")),
        "timing_note": timing_note(current.slug),
        "tabs": [Tab(hw.slug, url_on(hw.slug) + _query(query), hw.pk == current.pk) for hw in hardware],
        "csv_url": _query(query, format="csv"), "json_url": api_url,
    })


def _query(query: QueryDict, **changes: str) -> str:
    """The page's query string with `changes` made (a blank value drops the key)."""
    changed = query.copy()
    for key, value in changes.items():
        if value:
            changed[key] = value
        else:
            changed.pop(key, None)
    encoded = changed.urlencode()
    return f"?{encoded}" if encoded else ""


def _headers(query: QueryDict, columns: Sequence[Column], sort: str) -> list[Header]:
    """Each header links to the board sorted by its column: numbers best-first (descending) on the
    first click, then the other way."""
    headers = []
    for column in columns:
        first = f"-{column.key}" if column.numeric and column.key != "rank" else column.key
        other = column.key if first.startswith("-") else f"-{column.key}"
        target = other if sort == first else first
        arrow = {column.key: "▲", f"-{column.key}": "▼"}.get(sort or "rank", "")
        headers.append(Header(column, _query(query, sort="" if target == "rank" else target), arrow))
    return headers


Cell = tuple[str, str, str]  # CSS class, text, link


def board_rows(rows: Sequence[Any], columns: Sequence[Column], rules_url: str = "") -> SafeString:
    """The table's rows (templates/jinja2/pages/board_rows.html), each cell's text and class
    made here by one formatter per column, texts escaped (the engine does not autoescape: its
    escaping cost 9 ms of a 300-row board); rows without a score get the "unscored" class.
    `rules_url`: the problem's rules, which a problem board's reward-hack statuses link to."""
    links = _Links(get_script_prefix(), get_urlconf())
    cells = [_cell(column, links, rules_url) for column in columns]
    made_with = (tuple(columns), rules_url, links, timezone.get_current_timezone_name())
    lines = [(row.score is None, _cells_of(row, cells, made_with)) for row in rows]
    made = get_template("pages/board_rows.html", using="jinja2").render({"lines": lines})
    return mark_safe(made)  # every text was escaped by its cell


# A row's cells as this process last made them, under everything they were made from: a board made
# again after one change finds most of its rows as they were (formatting the cells was most of the
# time of making a 300-row board).
_cells_made: dict[tuple[Any, ...], list[Cell]] = {}
CELLS_KEPT = 8_000  # rows (about 2.5 KB each); forgotten all at once past it


def _cells_of(row: Any, cells: list[Callable[[Any], Cell]], made_with: tuple[Any, ...]) -> list[Cell]:
    try:
        key = (made_with, type(row), *vars(row).values())
        kept = _cells_made.get(key)
    except TypeError:  # a field no key can hold (a list): made every time
        return [cell(row) for cell in cells]
    if kept is None:
        if len(_cells_made) >= CELLS_KEPT:
            _cells_made.clear()
        kept = _cells_made[key] = [cell(row) for cell in cells]
    return kept


@dataclass(frozen=True)
class _Links:
    """page_url for one board's cells: the script prefix and URL conf read once, not per cell
    (reading them per cell was a tenth of a problem board's time)."""

    prefix: str
    urlconf: str | None

    def __call__(self, name: str, *args: str) -> str:
        return _page_url(self.prefix, self.urlconf, name, args)

    def best(self, row: Any) -> str:
        """The page of the submission behind a row's score, where the board keeps it: for an
        agent's row, its upload's row on the agent's page."""
        upload = getattr(row, "agent_submission", None)
        if upload is not None:
            agent = self("agent", row.user, row.agent)
            return f"{agent}#upload-{upload}" if agent else ""
        submission = getattr(row, "submission_id", None)
        return self("submission", str(submission)) if submission is not None else ""

    def status(self, row: Any) -> str:
        """The page of the submission a row's status is about (leaderboard.boards.ProblemRow.row_status)."""
        status = getattr(row, "row_status", None)
        return self("submission", str(status.submission_id)) if status and status.submission_id else ""


def _cell(column: Column, links: _Links, rules_url: str = "") -> Callable[[Any], Cell]:
    """The column's cell of a row: its text, escaped (numbers as the column's kind shows them,
    "–" for none), CSS class, and a link: a name's to its profile page, a problem board's score
    to the submission that made it ("no valid score" to the submission its status explains), a
    status to the problem's rules when it is a reward hack, else to that submission."""
    key = column.key
    css = "num" if column.numeric else ""
    empty = ("num unscored", "no valid score", "") if key == "score" else (css, "–", "")
    number = {"score": numbers.significant, "ratio": numbers.share,
              "speedup": lambda v: f"{numbers.significant(v)}×"}.get(column.kind)
    if key == "score":
        def score(row: Any) -> Cell:
            if (v := row.score) is None:
                return (*empty[:2], html.escape(links.status(row)))
            return css, numbers.with_interval(v, getattr(row, "score_ci95", None)), links.best(row)
        return score
    if key == "status":
        return lambda row: (empty if (v := getattr(row, "row_status", None)) is None else
                            (css, html.escape(v.text),
                             html.escape(rules_url if v.broke_rules and rules_url else links.status(row))))
    if key == "rank":
        return lambda row: empty if row.rank is None else _rank_cell(row)
    if number is not None:
        return lambda row: empty if (v := getattr(row, key)) is None else (css, number(v), "")
    if column.kind == "time":  # the zone looked up once: per cell it was a fifth of a category board
        zone = timezone.get_current_timezone()
        return lambda row: (empty if (v := getattr(row, key)) is None else
                            (f"{css} time", timezone.localtime(v, zone).strftime("%Y-%m-%d %H:%M"), ""))
    if key == "user":
        return lambda row: (empty if (v := row.user) is None else
                            (css, html.escape(str(v)), html.escape(links("participant", v))))
    if key == "agent":
        return lambda row: (empty if (v := row.agent) is None else
                            (css, html.escape(str(v)), html.escape(links("agent", row.user, v))))
    return lambda row: empty if (v := getattr(row, key)) is None else (css, html.escape(str(v)), "")


def _rank_cell(row: Any) -> Cell:
    """The rank, or the band of ranks a tied row shares (leaderboard.boards._band)."""
    band = getattr(row, "band", None)
    return ("num tied", band, "") if band else ("num", str(row.rank), "")


def page_url(name: str, *args: str) -> str:
    """A participant's, an agent's or a submission's page, or "" for a name no URL can carry
    (a slash in a username made outside the sign-up form)."""
    return _page_url(get_script_prefix(), get_urlconf(), name, args)


@functools.lru_cache(maxsize=4096)
def _page_url(prefix: str, urlconf: str | None, name: str, args: tuple[str, ...]) -> str:
    """page_url, remembered by the process: a board links every row to a profile, and reversing
    300 URLs took a few milliseconds of each board."""
    try:
        return reverse(name, args=args, urlconf=urlconf)
    except NoReverseMatch:
        return ""


def _csv(rows: Sequence[Any], columns: Sequence[Column]) -> str:
    return downloads.csv_text([c.key for c in columns],
                              ([getattr(row, c.key) for c in columns] for row in rows))
