"""/agents/<owner>/<agent>/uploads/<id>/trajectory/?log=<path>: a .jsonl log of an upload as a list
of steps (role, content, tool calls, results), long texts cut at 2000 characters with the whole
behind "show all", a line that is not JSON shown as such (never a 500), everything escaped. The
owner and the admins always read it; anyone else once the upload is public and every one of its
solutions' sources is; a private upload's trajectory is a 404 to them, as a missing one. The upload's
part of the agent page links it, and /api/v1/agent-submissions/<id>/trajectory/ gives the same steps
as JSON under the same rule."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.api.support import client_for
from tests.platform import factories
from tests.platform.factories import workload_aggregates

pytestmark = pytest.mark.django_db
LONG = "x" * 2500 + "TAIL"
STEPS = [
    {"role": "system", "content": "You write kernels."},
    {"role": "user", "content": "Make <b>scale_shift</b> fast & right"},
    {"role": "assistant", "content": "Profiling first.",
     "tool_calls": [{"name": "bash", "arguments": {"cmd": "nvidia-smi <script>alert(1)</script>"}}]},
    {"role": "tool", "tool_result": LONG},
]
TRAJECTORY = "\n".join(json.dumps(step) for step in STEPS) + "\n{not json at all\n\n[1, 2]\n"
LOGS = {"logs/run.jsonl": TRAJECTORY, "logs/agent.log": "plain text"}


@pytest.fixture
def agent(problem: Problem, cpu: Hardware) -> AgentSubmission:
    ada = factories.make_participant("ada")
    return factories.make_agent_upload(ada, "forge", {problem: workload_aggregates([0.8], [0.7])}, cpu,
                                       logs=LOGS)


def page(agent: AgentSubmission, log: str = "logs/run.jsonl") -> str:
    return f"/agents/ada/forge/uploads/{agent.pk}/trajectory/?log={log}"


def api(agent: AgentSubmission, log: str = "logs/run.jsonl") -> str:
    return f"/api/v1/agent-submissions/{agent.pk}/trajectory/?log={log}"


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def publish_sources(agent: AgentSubmission) -> None:
    Submission.objects.filter(agent_submission=agent).update(published=True)


def test_the_steps_are_shown_escaped_and_cut(agent: AgentSubmission) -> None:
    response = signed_in(agent.owner).get(page(agent))
    assert response.status_code == 200
    body = response.content.decode()
    for role in ("system", "user", "assistant", "tool"):
        assert f'role-{role}"' in body
    assert "Make &lt;b&gt;scale_shift&lt;/b&gt; fast &amp; right" in body and "<b>scale_shift" not in body
    assert "tool call <code>bash</code>" in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script>alert" not in body
    assert "x" * 2000 + "…</pre>" in body and "show all (2504 characters)" in body
    assert body.count("TAIL") == 1, "the whole result only behind show all"
    assert "line 5 is not JSON (Expecting property name enclosed in double quotes)" in body
    assert "{not json at all" in body
    assert "line 7 is not a JSON object but a list" in body, "the blank line 6 is no step"


def test_who_reads_a_trajectory(agent: AgentSubmission, page_clock: Any) -> None:
    anyone, other = Client(), signed_in(factories.make_participant("bob"))
    admin = factories.make_participant("root")
    admin.is_staff = True
    admin.save()
    assert signed_in(admin).get(page(agent)).status_code == 200
    for client in (anyone, other):
        refused = client.get(page(agent))
        assert refused.status_code == 404 and "not public" in refused.content.decode()
    assert client_for().get(api(agent)).status_code == 404

    publish_sources(agent)
    assert anyone.get(page(agent)).status_code == 200
    steps = client_for().get(api(agent)).json()["steps"]
    assert [step["role"] for step in steps[:4]] == ["system", "user", "assistant", "tool"]
    assert steps[2]["tool_calls"] == [{"name": "bash",
                                       "arguments": '{\n "cmd": "nvidia-smi <script>alert(1)</script>"\n}'}]
    assert steps[3]["result"] == LONG, "the API gives every text whole"
    assert steps[4]["problem"].startswith("line 5 is not JSON") and steps[4]["raw"] == "{not json at all"

    AgentSubmission.objects.filter(pk=agent.pk).update(private=True)  # no way back in the app; the rule holds
    page_clock.later()  # past the anonymous copy kept of the public page
    for client in (anyone, other):
        missing = client.get(page(agent))
        assert missing.status_code == 404 and "has no upload" in missing.content.decode()
    assert client_for().get(api(agent)).status_code == 404
    assert signed_in(agent.owner).get(page(agent)).status_code == 200
    assert client_for(agent.owner).get(api(agent)).status_code == 200


def test_bad_log_parameters_are_named(agent: AgentSubmission) -> None:
    owner = signed_in(agent.owner)
    missing = owner.get(f"/agents/ada/forge/uploads/{agent.pk}/trajectory/")
    assert missing.status_code == 400 and "give log=&lt;path&gt;" in missing.content.decode()
    unknown = owner.get(page(agent, "logs/other.jsonl"))
    assert unknown.status_code == 404
    assert "has no log &#x27;logs/other.jsonl&#x27;" in unknown.content.decode()
    plain = owner.get(page(agent, "logs/agent.log"))
    assert plain.status_code == 400 and "not a trajectory" in plain.content.decode()
    other_agent = f"/agents/ada/other/uploads/{agent.pk}/trajectory/?log=logs/run.jsonl"
    assert owner.get(other_agent).status_code == 404
    mine = client_for(agent.owner)
    assert mine.get(api(agent, "logs/agent.log")).status_code == 400
    assert "not a trajectory" in mine.get(api(agent, "logs/agent.log")).json()["log"][0]
    assert mine.get(api(agent, "nope.jsonl")).status_code == 404


def test_the_agent_page_links_the_trajectory(agent: AgentSubmission, page_clock: Any) -> None:
    link = f"/agents/ada/forge/uploads/{agent.pk}/trajectory/?log=logs%2Frun.jsonl"
    assert link in signed_in(agent.owner).get("/agents/ada/forge/").content.decode()
    assert link not in Client().get("/agents/ada/forge/").content.decode(), "the logs are not public yet"
    publish_sources(agent)
    page_clock.later()  # the agent page shows a change within page_cache.STALE seconds
    body = Client().get("/agents/ada/forge/").content.decode()
    assert link in body and "logs%2Fagent.log" not in body, "only .jsonl logs are trajectories"
