"""An agent upload's figures over a suite of problems on one hardware (docs/scoring.md, "Agent
suites"), from each problem's aggregates: the suite score, the visible and hidden scores, and the
generalization figures, which keep correctness apart from speed (a hidden shape that passes but runs
slower is no generalization failure). Pure functions: the agent board, the agent page, the compare
page, the API, the CLI and the downloads all read these numbers."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .order import rank_key


@dataclass(frozen=True)
class ProblemResult:
    """One problem of a suite: what the upload's evaluation that counts gave on the hardware.
    `valid` is the boards' rule (scored, not a reward hack, some workload passed); anything else
    (left out aside, which has no ProblemResult) counts as nothing passed and scores 0."""

    problem: str
    task_type: str
    valid: bool = False
    score: float = 0.0
    visible_score: float | None = None
    hidden_score: float | None = None
    visible_passed: int = 0
    visible_total: int = 0
    hidden_passed: int = 0
    hidden_total: int = 0
    conditional_correctness: float | None = None

    @classmethod
    def of(cls, problem: str, task_type: str, valid: bool, score: float | None,
           aggregates: Mapping[str, Any]) -> ProblemResult:
        """From an evaluation's stored aggregates (evaluator.scoring.score.ProblemAggregates); an
        invalid one keeps its workload counts but nothing of it passed."""
        totals = {key: _count(aggregates.get(key)) for key in ("visible_total", "hidden_total")}
        if not valid:
            return cls(problem, task_type, **totals)
        return cls(problem, task_type, True, _share(score) or 0.0,
                   _share(aggregates.get("visible_score")), _share(aggregates.get("hidden_score")),
                   visible_passed=_count(aggregates.get("visible_passed")),
                   hidden_passed=_count(aggregates.get("hidden_passed")),
                   conditional_correctness=_share(aggregates.get("conditional_correctness")), **totals)

    @property
    def solved_visible(self) -> bool:
        """Every visible workload passed."""
        return self.valid and 0 < self.visible_total == self.visible_passed

    @property
    def solved_all(self) -> bool:
        """Every workload passed, visible and hidden."""
        return self.solved_visible and self.hidden_passed == self.hidden_total

    @property
    def generalization_gap(self) -> float | None:
        if self.visible_score is None or self.hidden_score is None:
            return None
        return self.visible_score - self.hidden_score

    @property
    def correctness_gap(self) -> float | None:
        """The share of visible workloads passed minus the share of hidden ones: what fails only on
        shapes the agent never saw. Null without both kinds of workload or a valid score."""
        if not self.valid or not self.visible_total or not self.hidden_total:
            return None
        return self.visible_passed / self.visible_total - self.hidden_passed / self.hidden_total

    @property
    def speed_gap(self) -> float | None:
        """The mean score of the visible workloads that passed minus that of the hidden ones that
        passed: how much further from the bound the hidden shapes run when they are right. Null
        unless some of each passed."""
        visible = _passed_score(self.visible_score, self.visible_passed, self.visible_total)
        hidden = _passed_score(self.hidden_score, self.hidden_passed, self.hidden_total)
        return None if visible is None or hidden is None else visible - hidden

    @property
    def failed(self) -> int:
        """The workloads that did not pass, visible and hidden."""
        return self.visible_total - self.visible_passed + self.hidden_total - self.hidden_passed

    def rank_key(self) -> tuple[Any, ...]:
        """Its place by the boards' rule (evaluator.scoring.order): correct first, then the score."""
        return rank_key(self.failed, self.score if self.valid else None)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), **{name: getattr(self, name) for name in DERIVED}}


DERIVED = ("solved_visible", "solved_all", "generalization_gap", "correctness_gap", "speed_gap")


@dataclass(frozen=True)
class SuiteFigures:
    """An upload over a suite (every current problem, or those of one task type) on one hardware."""

    problems: int  # the suite's size: its problems, or those the upload solved where more
    attempted: int  # problems the upload has a solution for
    solved: int  # with a valid score
    solved_visible: int  # every visible workload passed
    solved_all: int  # every workload passed, visible and hidden
    score: float  # mean over the suite of the problems' scores, left out and invalid ones 0
    visible_score: float  # the same mean of the visible scores
    hidden_score: float  # and of the hidden scores
    generalization_gap: float  # visible_score - hidden_score: correctness and speed together
    correctness_gap: float | None  # mean over the solved problems where it is defined
    speed_gap: float | None  # the same
    conditional_correctness: float | None  # the same

    @property
    def failed_problems(self) -> int:
        """Problems with a solution that failed some workload, visible or hidden (invalid ones too)."""
        return self.attempted - self.solved_all

    def rank_key(self, *ties: Any) -> tuple[Any, ...]:
        """Its place by the boards' rule (evaluator.scoring.order), the suite being one entry: an
        upload with a problem that failed some workload ranks below every upload whose problems all
        passed every workload, whatever the suite scores; then the higher suite score, then `ties`."""
        return rank_key(self.failed_problems, self.score if self.solved else None, *ties)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


FIGURES = tuple(SuiteFigures.__dataclass_fields__)
MEANS_OVER_SOLVED = ("correctness_gap", "speed_gap", "conditional_correctness")


def suite_figures(results: Sequence[ProblemResult], size: int) -> SuiteFigures:
    """The figures of an upload's results over a suite of `size` problems (at least the results')."""
    size = max(size, len(results))
    valid = [r for r in results if r.valid]

    def mean(values: Iterable[float | None]) -> float:
        return math.fsum(v or 0.0 for v in values) / size if size else 0.0

    visible, hidden = mean(r.visible_score for r in valid), mean(r.hidden_score for r in valid)
    return SuiteFigures(
        problems=size, attempted=len(results), solved=len(valid),
        solved_visible=sum(r.solved_visible for r in valid), solved_all=sum(r.solved_all for r in valid),
        score=mean(r.score for r in valid), visible_score=visible, hidden_score=hidden,
        generalization_gap=visible - hidden,
        correctness_gap=_plain_mean(r.correctness_gap for r in valid),
        speed_gap=_plain_mean(r.speed_gap for r in valid),
        conditional_correctness=_plain_mean(r.conditional_correctness for r in valid))


def by_task_type(results: Sequence[ProblemResult], sizes: Mapping[str, int]) -> dict[str, SuiteFigures]:
    """suite_figures per task type: the suite's problems of each type (`sizes`), and every type the
    upload has a solution of; in the order of `sizes`, then by name."""
    grouped: dict[str, list[ProblemResult]] = {task_type: [] for task_type in sizes}
    for result in results:
        grouped.setdefault(result.task_type, []).append(result)
    order = [*sizes, *sorted(set(grouped) - set(sizes))]
    return {task_type: suite_figures(grouped[task_type], sizes.get(task_type, 0)) for task_type in order}


@dataclass(frozen=True)
class ProblemDelta:
    """One problem in two uploads; b minus a, a problem left out or invalid scoring 0."""

    problem: str
    task_type: str
    a: ProblemResult | None  # None: the upload left it out
    b: ProblemResult | None

    @property
    def score(self) -> float:
        return _score_of(self.b, "score") - _score_of(self.a, "score")

    @property
    def visible_score(self) -> float:
        return _score_of(self.b, "visible_score") - _score_of(self.a, "visible_score")

    @property
    def hidden_score(self) -> float:
        return _score_of(self.b, "hidden_score") - _score_of(self.a, "hidden_score")

    @property
    def better(self) -> str | None:
        """Which of the two ranks higher on the problem by the boards' rule ("a" or "b"), correct
        first, then the score; None where they stand level (a left-out problem has no score)."""
        return better(_key(self.a), _key(self.b))

    @property
    def change(self) -> str:
        """What happened to the problem from a to b, in words."""
        before, after = _standing(self.a), _standing(self.b)
        return "same" if before == after else f"{before} -> {after}"


def compare(a: Sequence[ProblemResult], b: Sequence[ProblemResult],
            suite: Sequence[tuple[str, str]]) -> list[ProblemDelta]:
    """Problem by problem over the suite's (name, task type) and every problem either upload has,
    by name."""
    mine, theirs = {r.problem: r for r in a}, {r.problem: r for r in b}
    task_types = dict(suite)
    for result in (*a, *b):
        task_types.setdefault(result.problem, result.task_type)
    return [ProblemDelta(name, task_types[name], mine.get(name), theirs.get(name))
            for name in sorted(task_types)]


def figure_deltas(a: SuiteFigures | None, b: SuiteFigures | None) -> dict[str, float | None]:
    """b minus a for each figure of two suites; null where either has none. A missing suite (a task
    type one upload has no problem of) counts 0 problems and scores 0, and has no gaps."""
    def value(figures: SuiteFigures | None, name: str) -> float | None:
        if figures is None:
            return None if name in MEANS_OVER_SOLVED else 0.0
        return getattr(figures, name)

    deltas = {}
    for name in FIGURES:
        before, after = value(a, name), value(b, name)
        deltas[name] = None if before is None or after is None else after - before
    return deltas


def better(a: tuple[Any, ...], b: tuple[Any, ...]) -> str | None:
    """"a" or "b", whichever rank key sorts first; None where they are equal."""
    return "a" if a < b else "b" if b < a else None


def _key(result: ProblemResult | None) -> tuple[Any, ...]:
    return rank_key(0, None) if result is None else result.rank_key()


def _standing(result: ProblemResult | None) -> str:
    if result is None:
        return "left out"
    if result.solved_all:
        return "all workloads"
    if result.solved_visible:
        return "visible only"
    return "partly" if result.valid else "no valid score"


def _score_of(result: ProblemResult | None, name: str) -> float:
    if result is None or not result.valid:
        return 0.0
    return getattr(result, name) or 0.0


def _passed_score(mean: float | None, passed: int, total: int) -> float | None:
    """The mean score of the passed workloads, from the mean over all of them (failed ones 0)."""
    if mean is None or not passed or not total:
        return None
    return min(1.0, mean * total / passed)


def _plain_mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return math.fsum(present) / len(present) if present else None


def _share(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
