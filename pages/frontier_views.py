"""The score-versus-cost page of a hardware's agent board: every upload with a cost on an SVG chart,
the frontier (leaderboard.agent_boards.cost_frontier, defined in docs/scoring.md, "Score versus
cost") marked and listed, the uploads whose manifest gives no cost listed apart. Its JSON is the
API's /api/v1/agents/frontier/."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from evaluator.scoring import numbers
from leaderboard import agent_boards
from leaderboard.agent_boards import AgentRow
from leaderboard.models import Hardware

from . import frontier_chart, page_cache, page_queries
from .board_views import Tab, page_url
from .page_cache import public_page


@public_page()
def agent_frontier(request: HttpRequest, hardware: str) -> HttpResponse:
    page_cache.shows(request, *page_cache.AGENT_SUBJECTS)
    everything = list(Hardware.objects.all())
    hw = next((each for each in everything if each.slug == hardware), None)
    if hw is None:
        raise Http404(f"No hardware {hardware!r}.")
    found = agent_boards.cost_frontier(hw)
    plot = frontier_chart.frontier_plot([_plotted(row, found.on_frontier(row)) for row in found.costed])
    return render(request, "pages/agent_frontier.html", {
        "hardware": hw, "found": found, "plot": plot,
        "frontier_rows": [(row, page_url("agent", row.user, row.agent)) for row in found.frontier],
        "tabs": [Tab(other.slug, reverse("agent-frontier", args=[other.slug]), other.pk == hw.pk)
                 for other in everything],
        "board_url": reverse("agent-board", args=[hw.slug]),
        "json_url": reverse("agent-frontier-api") + "?" + urlencode({"hardware": hw.slug}),
        "timing_notes": page_queries.timing_notes([hw.slug]),
    })


def _plotted(row: AgentRow, on_frontier: bool) -> frontier_chart.Upload:
    cost = row.cost_usd or 0.0  # only rows with a cost are plotted
    label = f"{row.agent} {row.version}"
    title = (f"{label} ({row.model}) by {row.user}: suite score {numbers.significant(row.score)}, "
             f"${numbers.significant(cost)}" + (" (on the frontier)" if on_frontier else ""))
    return frontier_chart.Upload(cost, row.score, label, title, on_frontier)
