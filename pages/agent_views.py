"""An agent's page (its uploads with their generalization figures, one upload problem by problem and
task type by task type, its CSV downloads) and the page comparing two of its uploads. The figures
are submissions.agent_results' (docs/scoring.md, "Agent suites"); the JSON is the API's."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse

from submissions import agent_compare, agent_visibility, trajectories
from submissions.models import AgentSubmission

from . import agent_downloads, downloads, page_cache, page_queries
from .page_cache import public_page


@public_page(params=("upload", "format", "by"))
def agent(request: HttpRequest, owner: str, name: str) -> HttpResponse:
    """?upload=<id> picks the upload shown problem by problem (the latest by default); ?format=csv
    downloads the uploads (by=task_type, by=problem: one line per task type or problem) and
    ?format=json is the API's document of the agent."""
    page_cache.shows(request, *page_cache.AGENT_SUBJECTS)
    user = _owner(owner)
    uploads = page_queries.agent_uploads(user, name, request.user) if user else []
    if not uploads:
        return _error(request, 404, f"No agent named {name!r} was uploaded by {owner!r}.")
    fmt = request.GET.get("format") or "html"
    try:
        by = agent_downloads.by_of(request.GET)
    except agent_downloads.BadDownload as exc:
        return _error(request, 400, str(exc))
    if fmt == "csv":
        text = agent_downloads.agent_csv([upload.results for upload in uploads], by)
        return downloads.download(text, "text/csv", "-".join(filter(None, [owner, name, by and f"by-{by}"])),
                                  "csv")
    if fmt == "json":
        return HttpResponseRedirect(_api_url(owner, name))
    if fmt != "html":
        return _error(request, 400, f"unknown format {fmt!r}; use csv or json, or leave it out for the page")
    chosen = request.GET.get("upload")
    shown = next((u for u in uploads if str(u.agent.pk) == chosen), None) if chosen else uploads[0]
    if shown is None:
        return _error(request, 404, f"Agent {name!r} of {owner!r} has no upload #{chosen}; its uploads are "
                      + ", ".join(f"#{u.agent.pk} ({u.agent.version})" for u in uploads) + ".")
    # with the request: the owner's Publish button holds its CSRF token (a page kept for anonymous
    # visitors never does: page_cache keeps no response that used one)
    content = render_to_string("pages/_agent.html", _agent(request, user, name, uploads, shown),
                               request=request)
    return render(request, "pages/agent.html", {"owner": user, "name": name, "content": content})


def _agent(request: HttpRequest, owner: AbstractBaseUser, name: str, uploads: list[page_queries.Upload],
           shown: page_queries.Upload) -> dict[str, Any]:
    page = request.path
    return {
        "owner": owner, "name": name, "latest": uploads[0].agent, "uploads": uploads, "shown": shown,
        "best": page_queries.best_suites(uploads),
        "timing_notes": page_queries.timing_notes([h.hardware for u in uploads for h in u.suites]),
        "compare_url": reverse("agent-compare", args=[owner.get_username(), name]),
        "downloads": [("uploads", f"{page}?format=csv"),
                      *((f"by {by.replace('_', ' ')}", f"{page}?{urlencode({'format': 'csv', 'by': by})}")
                        for by in agent_downloads.BY)],
        "json_url": _api_url(owner.get_username(), name),
        "can_publish": shown.agent.private and request.user.pk == owner.pk,
        "publish_url": reverse("agent-publish", args=[owner.get_username(), name, shown.agent.pk]),
        "trajectories": _trajectories(owner.get_username(), name, shown),
    }


@public_page(params=("a", "b", "hardware"))
def agent_compare_page(request: HttpRequest, owner: str, name: str) -> HttpResponse:
    """Two uploads of the agent, ?a=<id>&b=<id>, problem by problem on one hardware (?hardware=,
    by default the first both ran on)."""
    page_cache.shows(request, *page_cache.AGENT_SUBJECTS)
    user = _owner(owner)
    uploads = {u.agent.pk: u for u in page_queries.agent_uploads(user, name, request.user)} if user else {}
    if not uploads:
        return _error(request, 404, f"No agent named {name!r} was uploaded by {owner!r}.")
    picked = []
    for key in ("a", "b"):
        value = request.GET.get(key, "")
        upload = uploads.get(int(value)) if value.isascii() and value.isdigit() else None
        if upload is None:
            known = ", ".join(f"{pk} ({u.agent.version})" for pk, u in uploads.items())
            unranked = _unranked_upload(request, user, name, value)
            if unranked is not None:
                return _error(request, 400, f"{key}={value} is a {unranked.mode} upload: test and benchmark "
                              "uploads are on no agent page; compare them with `solarena agent-compare "
                              f"{request.GET.get('a', '')} {request.GET.get('b', '')}` or GET "
                              f"/api/v1/agent-submissions/compare/. This page compares {known}.")
            what = f"{key}={value!r} is not an upload of this agent" if value else f"give {key}=<upload id>"
            return _error(request, 400, f"{what}; its uploads are {known}.")
        picked.append(upload)
    try:
        found = agent_compare.compare_uploads(picked[0].agent, picked[1].agent,
                                              request.GET.get("hardware") or None)
    except agent_compare.CompareError as exc:
        return _error(request, 400, str(exc))
    return render(request, "pages/agent_compare.html", {
        "owner": user, "name": name, "found": found, "uploads": list(uploads.values()),
        "api_url": reverse("agent-submissions-compare") + "?" + urlencode(
            {"a": found.a.agent.pk, "b": found.b.agent.pk, "hardware": found.hardware}),
        "hardware": _shared_hardware(found), "timing_notes": page_queries.timing_notes([found.hardware]),
    })


def _unranked_upload(request: HttpRequest, owner: AbstractBaseUser, name: str,
                     value: str) -> AgentSubmission | None:
    """The agent's test or benchmark upload of that id, where the viewer may read it (its owner, an
    admin): the API and the CLI compare it, the agent pages do not show it."""
    if not (value.isascii() and value.isdigit()) or len(value) > 12:
        return None
    return (AgentSubmission.objects.filter(agent_visibility.visible_to(request.user), owner=owner, name=name,
                                           pk=int(value)).exclude(agent_visibility.on_agent_pages(request.user))
            .only("pk", "mode").first())


def _trajectories(owner: str, name: str, shown: page_queries.Upload) -> list[tuple[str, str]]:
    """The shown upload's trajectories with their pages, where the viewer may read its logs."""
    if not shown.logs_visible:
        return []
    page = reverse("agent-trajectory", args=[owner, name, shown.agent.pk])
    paths = trajectories.trajectories(shown.agent.logs)
    return [(path, f"{page}?{urlencode({'log': path})}") for path in paths]


def _shared_hardware(found: agent_compare.Comparison) -> list[str]:
    theirs = {here.hardware for here in found.b.hardware}
    return [here.hardware for here in found.a.hardware if here.hardware in theirs]


def _owner(username: str) -> AbstractBaseUser | None:
    return get_user_model().objects.filter(username=username, is_active=True).first()


def _api_url(owner: str, name: str) -> str:
    return reverse("agent-document") + "?" + urlencode({"user": owner, "agent": name})


def _error(request: HttpRequest, status: int, message: str) -> HttpResponse:
    title = "Not found" if status == 404 else "Bad request"
    return render(request, "pages/error.html", {"title": title, "message": message}, status=status)
