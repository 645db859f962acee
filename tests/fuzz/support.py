"""Objects the fuzzers aim at: a participant with a token, the fixture problem on the cpu hardware,
one scored and one queued submission of theirs, and an agent submission."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accounts.services import create_token
from evaluator.models import Evaluation
from leaderboard.models import Problem
from submissions.models import AgentSubmission
from tests.platform import factories


@dataclass(frozen=True)
class Known:
    token: str
    problem: str
    category: str
    hardware: str
    submission: int
    queued_submission: int
    agent_submission: int

    def path_value(self, path: str, name: str, generated: Any) -> Any:
        """An existing object for the path parameter `name` of the operation at `path`."""
        if name == "id":
            if path.startswith("/api/v1/agent-submissions/"):
                return self.agent_submission
            # cancel needs something still queued; the others the scored one
            return self.queued_submission if path.endswith("/cancel/") else self.submission
        return {"name": self.problem, "problem": self.problem, "slug": self.hardware,
                "hardware": self.hardware, "category": self.category}.get(name, generated)

    def aimed_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """A generated request body with an existing problem and hardware where it has those fields."""
        aimed = dict(body)
        if "problem" in aimed:
            aimed["problem"] = self.problem
        if "hardware" in aimed:
            aimed["hardware"] = [self.hardware]
        if "problem" in aimed and "file" not in aimed:
            # sources with an entry among them, so the solution itself is read and stored
            sources = aimed.get("sources")
            if not isinstance(sources, dict) or not sources:
                sources = aimed["sources"] = {"solution.py": factories.CORRECT}
            aimed["entry"] = next(iter(sources))
        return aimed


def known_objects() -> Known:
    cpu = factories.make_hardware("cpu")
    problem = Problem.objects.filter(name="scale_shift", is_current=True).first() or factories.make_problem()
    owner = factories.make_participant()
    _, secret = create_token(owner, "fuzz")
    scored = factories.make_scored(owner, problem, cpu, 0.5)
    queued = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    agent = factories.make_agent_run(owner, "fuzz-agent", {problem: 0.25}, cpu)
    assert queued.state == Evaluation.QUEUED and isinstance(agent, AgentSubmission)
    return Known(token=secret, problem=problem.name, category=problem.category.slug, hardware=cpu.slug,
                 submission=scored.submission_id, queued_submission=queued.submission_id,
                 agent_submission=agent.pk)
