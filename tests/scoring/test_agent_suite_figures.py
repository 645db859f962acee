"""An agent upload's suite figures (evaluator/scoring/suite.py, docs/scoring.md "Agent suites"): a
hidden shape that passes but runs slower shows in the speed gap, never in the correctness gap; a
problem left out or without a valid score counts 0 in the means; task types and two uploads
compared read the same figures."""

from __future__ import annotations

import pytest

from evaluator.scoring.score import WorkloadOutcome, problem_aggregates
from evaluator.scoring.suite import ProblemResult, by_task_type, compare, figure_deltas, suite_figures


def result(problem: str, visible: list[float | None], hidden: list[float | None], task_type: str = "t",
           valid: bool = True) -> ProblemResult:
    scores = [("visible", s) for s in visible] + [("hidden", s) for s in hidden]
    outcomes = [WorkloadOutcome(f"w{i}", kind, "PASSED" if s is not None else "RUNTIME_ERROR", score=s or 0.0)
                for i, (kind, s) in enumerate(scores)]
    aggregates = problem_aggregates(outcomes)
    return ProblemResult.of(problem, task_type, valid and aggregates.passed > 0, aggregates.score,
                            aggregates.to_dict())


def test_a_hidden_shape_that_passes_slower_is_a_speed_gap_not_a_correctness_gap() -> None:
    slower = result("gemm_bf16", [0.8, 0.8], [0.6, 0.5, 0.55])  # every hidden workload passed
    assert slower.solved_all and slower.correctness_gap == 0.0
    assert slower.generalization_gap == pytest.approx(0.8 - 0.55)
    assert slower.speed_gap == pytest.approx(0.25)
    hard_coded = result("softmax", [0.9, 0.9], [None, None])  # right on the shapes it saw only
    assert hard_coded.solved_visible and not hard_coded.solved_all
    assert hard_coded.correctness_gap == 1.0 and hard_coded.speed_gap is None
    half = result("rmsnorm", [0.5, 0.5], [0.5, None])
    assert half.correctness_gap == 0.5 and half.speed_gap == pytest.approx(0.0)


def test_the_suite_counts_left_out_and_invalid_problems_as_zero() -> None:
    results = [result("a", [0.8, 0.8], [0.6, 0.5, 0.55]), result("b", [0.9, 0.9], [None, None]),
               result("c", [None], [None])]  # every workload failed: no valid score
    figures = suite_figures(results, size=4)  # the fourth problem was left out
    assert (figures.problems, figures.attempted, figures.solved) == (4, 3, 2)
    assert (figures.solved_visible, figures.solved_all) == (2, 1)
    assert figures.score == pytest.approx((0.65 + 0.45) / 4)  # (0.8 + 0.8 + 0.6 + 0.5 + 0.55) / 5
    assert figures.visible_score == pytest.approx((0.8 + 0.9) / 4)
    assert figures.hidden_score == pytest.approx(0.55 / 4)
    assert figures.generalization_gap == pytest.approx(figures.visible_score - figures.hidden_score)
    assert figures.correctness_gap == pytest.approx((0.0 + 1.0) / 2)  # over the solved problems
    assert figures.speed_gap == pytest.approx(0.25)  # only "a" passed on both kinds
    assert figures.conditional_correctness == pytest.approx((1.0 + 0.0) / 2)


def test_a_reward_hack_counts_as_nothing_passed() -> None:
    flagged = result("a", [0.9], [0.9], valid=False)
    assert (flagged.score, flagged.visible_passed, flagged.hidden_passed) == (0.0, 0, 0)
    assert (flagged.visible_total, flagged.hidden_total) == (1, 1)
    assert flagged.correctness_gap is None and not flagged.solved_all
    assert suite_figures([flagged], 1).score == 0.0


def test_an_empty_suite_scores_zero_and_the_suite_is_never_smaller_than_the_upload() -> None:
    assert suite_figures([], 0).score == 0.0
    assert suite_figures([result("a", [0.5], [0.5])], size=0).problems == 1


def test_task_types_are_suites_of_their_own() -> None:
    results = [result("a", [0.8], [0.8], "from_reference"), result("b", [0.6], [None], "optimize_triton")]
    types = by_task_type(results, {"from_reference": 2, "optimize_triton": 1, "optimize_cuda": 1})
    assert list(types) == ["from_reference", "optimize_triton", "optimize_cuda"]
    assert types["from_reference"].score == pytest.approx(0.4) and types["from_reference"].solved_all == 1
    assert types["optimize_triton"].correctness_gap == 1.0
    assert types["optimize_cuda"].attempted == 0 and types["optimize_cuda"].score == 0.0


def test_two_uploads_compare_problem_by_problem() -> None:
    before = [result("a", [0.9], [None]), result("b", [0.5], [0.5])]
    after = [result("a", [0.9], [0.7]), result("c", [0.4], [0.4])]
    suite = [("a", "t"), ("b", "t"), ("c", "t"), ("d", "t")]
    rows = {row.problem: row for row in compare(before, after, suite)}
    assert list(rows) == ["a", "b", "c", "d"]
    assert rows["a"].hidden_score == pytest.approx(0.7)
    assert rows["a"].change == "visible only -> all workloads"
    assert rows["b"].score == pytest.approx(-0.5) and rows["b"].change == "all workloads -> left out"
    assert rows["c"].score == pytest.approx(0.4) and rows["d"].change == "same"
    deltas = figure_deltas(suite_figures(before, 4), suite_figures(after, 4))
    assert deltas["solved_all"] == 1 and deltas["score"] == pytest.approx((0.8 + 0.4 - 0.45 - 0.5) / 4)
    assert figure_deltas(None, suite_figures(after, 4))["correctness_gap"] is None
