"""Running a cheat from cheats/ through the real pipeline and asserting it never earns a score.

A cheat is a working solution file that cheats the way its ANTICHEAT.md class describes. Cheats
that only cheat on some calls (a cache that hit, a timing loop they detected) log the shape of
each call they cheated on to `cheated.txt` beside themselves, so a test can tell "the cheat was
caught" from "the cheat never got a chance" and hold only the cheated workloads to account.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness import status
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.report import build_report
from tests.conftest import SCALE_SHIFT, Evaluated, evaluate_source
from tests.sandbox.backends import sandbox_backend

__all__ = ["sandbox_backend"]

CHEATS = Path(__file__).resolve().parent / "cheats"
CHEAT_LOG = "cheated.txt"
# Enough calls for a cache, a batch or a phase detector to get going.
MANY_CALLS: dict[str, Any] = {
    "correctness_rounds": 2,
    "timing": {"warmup": 2, "min_iterations": 12, "max_iterations": 12, "budget_seconds": 20},
}
# The same with several timed calls per round trip to the solution's process, as on a GPU.
BATCHED: dict[str, Any] = {**MANY_CALLS, "timing": {**MANY_CALLS["timing"], "batch": 4}}
# As the workers run them: in each sandbox, bubblewrap and docker (tests/sandbox/backends.py),
# every test once per backend; a module that runs no sandbox overrides `sandbox_backend`.
_current: dict[str, str] = {}
# Verdicts that mean the test itself is broken (a cheat that does not import, a bad problem).
BROKEN = {status.COMPILE_ERROR, status.INVALID_REFERENCE}


# Cheats against the cage (processes, files, memory, the channel) run in full under docker too.
# The others cheat the harness, whose code is the same in every cage: under docker one test of
# each such module shows the class still fails there; SOLARENA_DOCKER_ANTICHEAT=all runs them all
# (docs/security.md).
CAGE_CLASSES = {"test_limit_evasion", "test_reading_the_answer", "test_reporter_takeover",
                "test_result_forgery", "test_late_writes", "test_channel_attacks",
                "test_slowed_baseline", "test_honest_control", "test_hidden_work",
                "test_malformed_events", "test_out_of_memory_verdict"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("SOLARENA_DOCKER_ANTICHEAT") == "all":
        return
    seen: set[str] = set()
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        module = item.path.stem
        if (params.get("sandbox_backend") != "docker" or module in CAGE_CLASSES
                or module not in seen or item.path.parent.name != "anticheat"):
            kept.append(item)
            if params.get("sandbox_backend") == "docker":
                seen.add(module)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True)
def _in_each_sandbox(sandbox_backend: str) -> Iterator[None]:
    _current["backend"] = sandbox_backend
    yield
    _current.pop("backend", None)


def current_backend() -> str:
    """The backend of the running test."""
    return _current["backend"]


@dataclass
class CheatRun:
    evaluated: Evaluated
    report: dict[str, Any]
    solution_dir: Path

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.report["workloads"]

    @property
    def score(self) -> float:
        return float(self.report["aggregates"]["score"])

    def text_seen_by_submitter(self) -> str:
        """Everything a submitter could read back: messages, the solution error and the log."""
        parts = [str(r.get("message", "")) for r in self.rows]
        return "\n".join([*parts, str(self.report.get("solution_error") or ""), self.evaluated.outcome.log])

    def cheated_shapes(self) -> set[tuple[int, ...]]:
        log = self.solution_dir / CHEAT_LOG
        if not log.exists():
            return set()
        return {tuple(int(v) for v in line.split()) for line in log.read_text().splitlines() if line.strip()}

    def describe(self) -> str:
        return "\n".join(f"{r['uuid']} {r['axes']}: {r['status']} score={r['score']:.3g} {r['message'][:300]}"
                         for r in self.rows)


def cheat_source(name: str) -> str:
    return (CHEATS / f"{name}.py").read_text(encoding="utf-8")


def evaluate_cheat(
    tmp_path: Path,
    name: str,
    *,
    options: dict[str, Any] | None = None,
    problem_dir: Path = SCALE_SHIFT,
    seed: int = 1234,
    workload_seconds: float = 60.0,
    supervise: dict[str, Any] | None = None,
) -> CheatRun:
    """Evaluate cheats/<name>.py on the CPU (visible + hidden smoke workloads) and score it."""
    evaluated = evaluate_source(tmp_path, cheat_source(name), problem_dir=problem_dir, options=options,
                                seed=seed, workload_seconds=workload_seconds, supervise=supervise,
                                backend=current_backend())
    return scored(evaluated, tmp_path / "job" / "solution", "cpu")


def scored(evaluated: Evaluated, solution_dir: Path, hardware: str) -> CheatRun:
    """Score an evaluation as the platform does (evaluator.scoring.report.build_report)."""
    report = build_report(evaluated.problem.definition, evaluated.workloads, evaluated.outcome,
                          get_hardware(hardware))
    return CheatRun(evaluated, report, solution_dir)


def is_reward_hack(run: CheatRun) -> bool:
    """One REWARD_HACK row marks the whole evaluation (evaluator.services.ingest)."""
    return any(r["status"] == status.REWARD_HACK for r in run.rows)


def assert_not_broken(run: CheatRun) -> None:
    broken = [r for r in run.rows if r["status"] in BROKEN]
    assert not broken, f"the cheat or the problem is broken, not caught:\n{run.describe()}"


def assert_never_scores(run: CheatRun) -> None:
    """The cheat is marked REWARD_HACK, or every workload fails; either way nothing is scored."""
    assert_not_broken(run)
    if not is_reward_hack(run):
        passed = [r for r in run.rows if r["status"] == status.PASSED]
        assert not passed, f"the cheat passed {len(passed)} workload(s):\n{run.describe()}"
        assert run.score == 0.0, run.describe()


def assert_reward_hack(run: CheatRun, *keywords: str) -> None:
    """Marked REWARD_HACK, with a message that names what was done (any of `keywords`)."""
    assert_not_broken(run)
    hacks = [r for r in run.rows if r["status"] == status.REWARD_HACK]
    assert hacks, f"the cheat was not marked REWARD_HACK:\n{run.describe()}"
    messages = " ".join(r["message"] for r in hacks).lower()
    assert any(k.lower() in messages for k in keywords), (
        f"the REWARD_HACK message names none of {keywords}:\n{run.describe()}")


def assert_cheated_workloads_never_score(run: CheatRun, *, must_have_cheated: bool = False) -> None:
    """Every workload on which the cheat says it cheated failed or was marked REWARD_HACK."""
    assert_not_broken(run)
    cheated = run.cheated_shapes()
    if must_have_cheated:
        assert cheated, f"the cheat never cheated, so the test proves nothing:\n{run.describe()}"
    if is_reward_hack(run):
        return
    scoring = [r for r in run.rows if tuple(r["axes"].values()) in cheated and
              (r["status"] == status.PASSED or r["score"] > 0)]
    assert not scoring, f"the cheat scored on workloads it cheated on {sorted(cheated)}:\n{run.describe()}"
