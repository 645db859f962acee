"""One agent upload's own pages beside the agent's page (agent_views.py): a trajectory step by step,
and the owner's button that publishes a private upload (submissions/agent_publication.py). Who sees
what is submissions.agent_visibility's: a private upload reads as missing to anyone but its owner
and the admins, and its logs follow its sources."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from submissions import agent_publication, agent_visibility, trajectories
from submissions.models import AgentSubmission

from . import page_cache
from .page_cache import public_page

STEPS_PER_PAGE = 500


@public_page(params=("log", "page"))
def trajectory(request: HttpRequest, owner: str, name: str, upload: int) -> HttpResponse:
    """?log=<path>: one trajectory of the upload, STEPS_PER_PAGE steps a page (?page=)."""
    page_cache.shows(request, *page_cache.AGENT_SUBJECTS)
    agent = (AgentSubmission.objects.filter(agent_visibility.visible_to(request.user), pk=upload,
                                            owner__username=owner, owner__is_active=True, name=name)
             .select_related("owner").first())
    if agent is None:
        return _error(request, 404, f"Agent {name!r} of {owner!r} has no upload #{upload}.")
    if not agent_visibility.can_read_logs(request.user, agent):
        return _error(request, 404, f"The logs of upload #{upload} are not public: they are once every one "
                      "of its solutions' sources is (its owner and the admins read them before).")
    path = request.GET.get("log", "")
    try:
        steps = trajectories.read(agent.logs, path, agent.pk)
    except trajectories.BadTrajectory as exc:
        return _error(request, 400, str(exc))
    except trajectories.NoSuchTrajectory as exc:
        return _error(request, 404, str(exc))
    page = Paginator(steps, STEPS_PER_PAGE).get_page(request.GET.get("page"))
    here = reverse("agent-trajectory", args=[owner, name, agent.pk])
    return render(request, "pages/agent_trajectory.html", {
        "agent": agent, "owner": agent.owner, "name": name, "path": path, "page": page,
        "shown": trajectories.SHOWN, "shown_slice": f":{trajectories.SHOWN}",
        "upload_url": upload_url(owner, name, agent.pk),
        "others": [(other, f"{here}?{urlencode({'log': other})}")
                   for other in trajectories.trajectories(agent.logs) if other != path],
        "previous_url": _page_url(here, path, page.previous_page_number()) if page.has_previous() else "",
        "next_url": _page_url(here, path, page.next_page_number()) if page.has_next() else "",
        "json_url": reverse("agent-submission-trajectory", args=[agent.pk]) + "?" + urlencode({"log": path}),
    })


@login_required
@require_POST
def publish(request: HttpRequest, owner: str, name: str, upload: int) -> HttpResponse:
    """The owner's Publish button on a private upload (anyone else: 404)."""
    agent = AgentSubmission.objects.filter(pk=upload, owner=request.user, owner__username=owner,
                                           name=name).first()
    if agent is None:
        return _error(request, 404, f"Agent {name!r} of {owner!r} has no upload #{upload} of yours.")
    try:
        changed = agent_publication.publish_agent_submission(agent)
    except agent_publication.NotPublishable as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Upload #{agent.pk} is public now: anyone may see it, and its results are "
                         "on the boards (the agent board once its evaluations finish)." if changed
                         else f"Upload #{agent.pk} was public already.")
    return HttpResponseRedirect(upload_url(owner, name, agent.pk))


def _page_url(here: str, path: str, number: int) -> str:
    return f"{here}?{urlencode({'log': path, 'page': number})}"


def upload_url(owner: str, name: str, upload: int) -> str:
    return reverse("agent", args=[owner, name]) + f"?{urlencode({'upload': upload})}#upload-detail"


def _error(request: HttpRequest, status: int, message: str) -> HttpResponse:
    title = "Not found" if status == 404 else "Bad request"
    return render(request, "pages/error.html", {"title": title, "message": message}, status=status)
