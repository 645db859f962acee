"""Test data for the platform: hardware rows, the fixture problem stored as sync would, users,
submissions and fake scored reports."""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.names import slug_of
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles
from evaluator.models import Evaluation
from evaluator.scoring.hardware import HARDWARE
from leaderboard.models import Category, Hardware, Problem, Workload
from leaderboard.problems import workloads_for
from submissions.models import Submission
from tests.conftest import SCALE_SHIFT, TEST_SECRET

CORRECT = "import torch\n\n\ndef run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
_names = itertools.count(1)


def make_hardware(slug: str = "cpu") -> Hardware:
    spec = HARDWARE[slug]
    row, _ = Hardware.objects.get_or_create(slug=slug, defaults={
        "name": spec.name, "vendor": spec.vendor, "memory_gb": spec.memory_gb,
        "memory_bandwidth": spec.memory_bandwidth, "l2_bytes": spec.l2_bytes,
        "peak_flops": dict(spec.peak_flops),
    })
    return row


def make_problem(directory: Path = SCALE_SHIFT, secret: str = TEST_SECRET) -> Problem:
    """The problem with its visible, smoke and hidden (full and smoke) workloads."""
    loaded = load_problem(directory)
    definition = loaded.definition.to_json()
    category, _ = Category.objects.get_or_create(slug=loaded.definition.category.lower(),
                                                 defaults={"name": loaded.definition.category})
    problem = Problem.objects.create(
        name=loaded.name, category=category, task_type=loaded.definition.task_type,
        op_type=loaded.definition.op_type or "", description=loaded.definition.description,
        definition=definition,
        definition_hash=hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest(),
    )
    every = (loaded.workloads + loaded.smoke_workloads + draw_hidden(loaded, secret)
             + draw_hidden(loaded, secret, smoke=True))
    Workload.objects.bulk_create(
        Workload(problem=problem, uuid=w.uuid, position=i, visibility=w.visibility, smoke=w.smoke,
                 axes=w.axes, inputs=w.inputs, tolerance=asdict(w.tolerance))
        for i, w in enumerate(every)
    )
    return problem


def make_user(name: str | None = None) -> AbstractBaseUser:
    return get_user_model().objects.create_user(name or f"user{next(_names)}", password="x")


def solution(source: str = CORRECT) -> SolutionFiles:
    return SolutionFiles({"solution.py": source}, "solution.py")


def make_evaluation(
    owner: AbstractBaseUser | None = None,
    problem: Problem | None = None,
    hardware: Hardware | None = None,
    source: str = CORRECT,
    **fields: Any,
) -> Evaluation:
    """A submission and its evaluation, written directly (no messages sent)."""
    problem = problem or make_problem()
    submission = Submission.objects.create(owner=owner or make_user(), problem=problem,
                                           language="python", sources={"solution.py": source},
                                           entry="solution.py")
    return Evaluation.objects.create(submission=submission, hardware=hardware or make_hardware(),
                                     seed=fields.pop("seed", 1234), **fields)


def fake_report(evaluation: Evaluation, score: float = 0.5, verdict: str = "PASSED",
                message: str = "") -> dict[str, Any]:
    """A scored report as build_report shapes it, for every workload the evaluation runs."""
    problem = evaluation.submission.problem
    workloads = workloads_for(problem, smoke=evaluation.hardware.slug == "cpu")
    rows = [{"uuid": w.uuid, "axes": dict(w.axes), "visibility": w.visibility, "smoke": w.smoke,
             "status": verdict, "message": message, "latency_ms": 1.0, "reference_latency_ms": 2.0,
             "baseline_latency_ms": 2.0, "sol_ms": 0.1, "score": score, "below_sol": False,
             "correctness": {"rounds": 2, "shape": list(w.axes.values())}}
            for w in workloads]
    return {"schema": "solarena.eval/1", "environment": {"torch": "test"}, "solution_error": None,
            "workloads": rows, "aggregates": {"score": score, "total": len(rows),
                                              "passed": len(rows) if verdict == "PASSED" else 0}}


def make_named_problem(name: str, category: str = "l1", task_type: str = "from_reference") -> Problem:
    """The fixture problem stored under another name, category (slug) and task type, for boards that
    span several problems."""
    problem = make_problem()
    problem.name, problem.slug, problem.task_type = name, slug_of(name), task_type
    problem.category, _ = Category.objects.get_or_create(slug=category, defaults={"name": category.upper()})
    problem.save(update_fields=["name", "slug", "task_type", "category"])
    return problem


def make_scored(owner: AbstractBaseUser, problem: Problem, hardware: Hardware, score: float,
                verdict: str = "PASSED", **aggregates: Any) -> Evaluation:
    """A submission scored through the real claim and ingestion path (which keeps the entries), its
    report's aggregates holding `aggregates` besides the score."""
    from evaluator import services  # local: new factory code is only appended to this module

    evaluation = make_evaluation(owner=owner, problem=problem, hardware=hardware)
    report = fake_report(evaluation, score, verdict=verdict)
    report["aggregates"].update(aggregates)
    claimed = services.claim(evaluation.pk, "factory-worker")
    assert claimed is not None and services.ingest(evaluation.pk, "factory-worker", report)
    evaluation.refresh_from_db()
    return evaluation


def make_agent_run(owner: AbstractBaseUser, name: str, scores: dict[Problem, float | None],
                   hardware: Hardware, version: str = "1.0", model: str = "a-model") -> Any:
    """An agent submission with one evaluation per problem on `hardware`, already finished: scored
    with the given score, or failed where it is None."""
    from submissions.models import AgentSubmission  # local: new factory code is only appended here

    agent = AgentSubmission.objects.create(owner=owner, name=name, version=version, model=model)
    for problem, score in scores.items():
        submission = Submission.objects.create(owner=owner, problem=problem, language="python",
                                               sources={"solution.py": CORRECT}, entry="solution.py",
                                               agent_submission=agent)
        state = Evaluation.FAILED if score is None else Evaluation.SCORED
        Evaluation.objects.create(submission=submission, hardware=hardware, seed=1, state=state, score=score,
                                  finished_at=agent.created)
    return agent


def make_participant(name: str | None = None) -> AbstractBaseUser:
    """A user without a usable password: no password hashing, so tests can make many quickly."""
    return get_user_model().objects.create_user(name or f"user{next(_names)}")


def make_probe(owner: AbstractBaseUser, problem: Problem, cpu: Hardware, hidden_verdicts: tuple[str, ...],
               when: Any = None) -> int:
    """A scored submission whose hidden workloads got these verdicts, in run order; a failed one's
    message and times quote its shape, as the harness's would before ingestion redacts them. `when`:
    its one time for every timestamp, so that probes read alike."""
    from evaluator import services
    from evaluator.scoring.score import WorkloadOutcome, problem_aggregates

    evaluation = make_evaluation(owner=owner, problem=problem, hardware=cpu)
    assert services.claim(evaluation.pk, "probe-worker") is not None
    report = fake_report(evaluation, 0.5)
    hidden = [row for row in report["workloads"] if row["visibility"] == Workload.HIDDEN]
    assert len(hidden) == len(hidden_verdicts)
    for row, verdict in zip(hidden, hidden_verdicts, strict=True):
        if verdict != "PASSED":
            shape = tuple(row["axes"].values())
            row.update(status=verdict, score=0.0, message=f"got shape {shape}", latency_ms=sum(shape) / 7)
    report["aggregates"] = problem_aggregates([
        WorkloadOutcome(uuid=r["uuid"], visibility=r["visibility"], status=r["status"],
                        kernel_ms=r["latency_ms"], reference_ms=r["reference_latency_ms"],
                        baseline_ms=r["baseline_latency_ms"], sol_ms=r["sol_ms"], score=r["score"])
        for r in report["workloads"]]).to_dict()
    assert services.ingest(evaluation.pk, "probe-worker", report)
    if when is not None:
        Evaluation.objects.filter(pk=evaluation.pk).update(created=when, started_at=when, finished_at=when)
        Submission.objects.filter(pk=evaluation.submission_id).update(created=when)
    return evaluation.submission_id


def workload_aggregates(visible: list[float | None], hidden: list[float | None]) -> dict[str, Any]:
    """An evaluation's aggregates as build_report makes them, from each workload's score (None: it
    failed), visible ones first."""
    from evaluator.scoring.score import WorkloadOutcome, problem_aggregates

    outcomes = [WorkloadOutcome(uuid=f"w{i}", visibility=visibility, status="PASSED" if s is not None
                                else "INCORRECT_NUMERICAL", score=s or 0.0)
                for i, (visibility, s) in enumerate([("visible", s) for s in visible]
                                                    + [("hidden", s) for s in hidden])]
    return problem_aggregates(outcomes).to_dict()


def make_agent_upload(owner: AbstractBaseUser, name: str, runs: dict[Problem, dict[str, Any] | None],
                      hardware: Hardware, version: str = "1.0", model: str = "a-model", **fields: Any) -> Any:
    """An agent submission with one finished evaluation per problem on `hardware`: scored with the
    given aggregates (workload_aggregates), or failed on the platform where they are None."""
    from submissions.models import AgentSubmission

    agent = AgentSubmission.objects.create(owner=owner, name=name, version=version, model=model, **fields)
    for problem, aggregates in runs.items():
        submission = Submission.objects.create(owner=owner, problem=problem, language="python",
                                               sources={"solution.py": CORRECT}, entry="solution.py",
                                               agent_submission=agent, mode=agent.mode)
        state = Evaluation.FAILED if aggregates is None else Evaluation.SCORED
        Evaluation.objects.create(submission=submission, hardware=hardware, seed=1, state=state,
                                  score=None if aggregates is None else aggregates["score"],
                                  aggregates=aggregates or {}, finished_at=agent.created)
    return agent
