"""Nothing a participant, an agent manifest or a problem author writes runs in a reader's browser:
names, teams, agent names, models, descriptions and logs, sources, workload messages, and problem
descriptions (Markdown with raw HTML and javascript: links) on every page kind of this issue."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from accounts.models import Profile
from evaluator.models import Evaluation, WorkloadResult
from leaderboard.models import Hardware, Problem, Workload
from submissions.models import AgentSubmission, Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db
SCRIPT = "<script>alert(1)</script>"
ATTRIBUTE = '"><img src=x onerror=alert(2)>'
NAME = "<img src=x onerror=alert(3)>"  # a user name cannot hold a slash: its page's URL has it
DESCRIPTION = f"""## Title {SCRIPT}

Raw <b onmouseover="alert(4)">html</b> and {ATTRIBUTE} and <iframe src="https://evil.test"></iframe>.

[a link](javascript:alert(5)) <a href="javascript:alert(6)">another</a>
[data](data:text/html;base64,PHNjcmlwdD4=)

```python
print("{SCRIPT}")
```
"""


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser would build them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def assert_inert(body: str) -> None:
    parser = Elements()
    parser.feed(body)
    for tag, attrs in parser.tags:
        assert tag not in ("iframe", "img", "object", "embed"), (tag, attrs)
        assert tag != "script" or attrs.get("src") == "/static/vendor/htmx.min.js", attrs
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, attrs)
            if name in ("href", "src", "action", "hx-get"):
                assert (value or "").strip().lower().startswith(("/", "?", "#", "http")), (tag, attrs)
    for payload in (SCRIPT, ATTRIBUTE, NAME):
        assert payload not in body, payload


@pytest.fixture
def hostile(problem: Problem, cpu: Hardware) -> Submission:
    """A problem, a participant, an agent and a scored submission, every text of them hostile."""
    Problem.objects.filter(pk=problem.pk).update(description=DESCRIPTION)
    user = factories.make_user(NAME)
    Profile.objects.create(user=user, team=f"team {SCRIPT}{ATTRIBUTE}")
    agent = AgentSubmission.objects.create(
        owner=user, name=f"bot/{SCRIPT}", version=ATTRIBUTE, model=f"model {SCRIPT}",
        description=f"about {SCRIPT}", logs={f"log {SCRIPT}.txt": f"thinking {SCRIPT}{ATTRIBUTE}"})
    evaluation = factories.make_evaluation(owner=user, problem=problem, hardware=cpu,
                                           source=f"# {SCRIPT}\n# {ATTRIBUTE}\n", error=f"error {SCRIPT}")
    Submission.objects.filter(pk=evaluation.submission_id).update(agent_submission=agent, published=True)
    workload = problem.workloads.filter(visibility=Workload.VISIBLE, smoke=True).first()
    WorkloadResult.objects.create(evaluation=evaluation, workload=workload, status="RUNTIME_ERROR",
                                  message=f"message {SCRIPT}{ATTRIBUTE}", sol_ms=0.5, score=0.0)
    Evaluation.objects.filter(pk=evaluation.pk).update(
        state=Evaluation.SCORED, score=0.0, environment={"torch": SCRIPT, ATTRIBUTE: ATTRIBUTE})
    factories.make_scored(user, problem, cpu, 0.5)  # a board row and a record in the history chart
    return Submission.objects.get(pk=evaluation.submission_id)


def test_every_page_kind_renders_hostile_text_inert(client: Client, hostile: Submission) -> None:
    owner = hostile.owner
    client.force_login(owner)  # the owner sees the most: the source, messages and logs
    pages = [f"/problems/{hostile.problem.name}/", "/problems/", f"/submissions/{hostile.pk}/",
             f"/submissions/{hostile.pk}/live/", "/hardware/", "/hardware/cpu/",
             f"/u/{owner.username}/", f"/agents/{owner.username}/{hostile.agent_submission.name}/"]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_inert(response.content.decode())


def test_the_hostile_text_is_shown_as_text(client: Client, hostile: Submission) -> None:
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    client.force_login(hostile.owner)
    problem = client.get(f"/problems/{hostile.problem.name}/").content.decode()
    assert f"<h2>Title {escaped}</h2>" in problem  # Markdown still renders, raw HTML as text
    assert "a link" in problem and '<a href="javascript' not in problem and '<a href="data' not in problem
    assert "&lt;img src=x onerror=alert(3)&gt;" in problem  # the user name on the board and chart
    submission = client.get(f"/submissions/{hostile.pk}/").content.decode()
    for text in (f"# {escaped}", f"message {escaped}", f"error {escaped}", f"<dd>{escaped}</dd>"):
        assert text in submission, text
    agent = client.get(f"/agents/{hostile.owner.username}/{hostile.agent_submission.name}/").content.decode()
    assert f"thinking {escaped}" in agent and f"model {escaped}" in agent and f"about {escaped}" in agent
    profile = client.get(f"/u/{hostile.owner.username}/").content.decode()
    assert f"team team {escaped}" in profile
