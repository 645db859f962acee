"""submissions.suites.summaries (counted by the database, for pages listing many uploads) gives
each agent submission the same status and suites as agent_status and suites over its prefetched
evaluations: every state, reward hacks, failures, several hardware, a problem left out."""

from __future__ import annotations

import pytest
from django.db.models import Count

from evaluator.models import Evaluation
from submissions import suites
from submissions.models import AgentSubmission
from tests.platform import factories

pytestmark = pytest.mark.django_db


def test_summaries_match_the_suites() -> None:
    problem, cpu = factories.make_named_problem("scale_one"), factories.make_hardware("cpu")
    owner = factories.make_participant("ada")
    other = factories.make_named_problem("scale_two")
    factories.make_named_problem("scale_three")  # in the suite, in no bundle: counts 0
    h200 = factories.make_hardware("h200")
    done = factories.make_agent_run(owner, "bot", {problem: 0.5, other: None}, cpu)
    hacked = factories.make_agent_run(owner, "bot", {problem: 0.75, other: 0.25}, cpu, version="2")
    Evaluation.objects.filter(submission__agent_submission=hacked, score=0.75).update(reward_hack=True)
    mixed = factories.make_agent_run(owner, "bot", {problem: 0.5, other: 0.5}, cpu, version="3")
    for submission in mixed.submissions.all():
        Evaluation.objects.create(submission=submission, hardware=h200, seed=1)  # queued there
    running = factories.make_agent_run(owner, "bot", {problem: 0.5}, h200, version="4")
    Evaluation.objects.filter(submission__agent_submission=running).update(state=Evaluation.RUNNING,
                                                                          score=None, finished_at=None)
    queued = factories.make_agent_run(owner, "bot", {problem: 0.5, other: 0.5}, h200, version="5")
    Evaluation.objects.filter(submission__agent_submission=queued).update(state=Evaluation.QUEUED,
                                                                         score=None, finished_at=None)
    empty = AgentSubmission.objects.create(owner=owner, name="bot", version="6", model="m")

    expected = {agent.pk: (suites.agent_status(agent), suites.suites(agent))
                for agent in suites.with_evaluations(AgentSubmission.objects.all())}
    agents = list(suites.with_suite_size(AgentSubmission.objects.all())
                  .annotate(solutions=Count("submissions")))
    summaries = suites.summaries(agents)
    assert summaries == expected
    assert {summaries[a.pk][0] for a in (done, hacked, mixed, running, queued, empty)} == {
        suites.DONE, suites.RUNNING, suites.QUEUED}
    assert [s.hardware for s in summaries[mixed.pk][1]] == ["cpu", "h200"]
