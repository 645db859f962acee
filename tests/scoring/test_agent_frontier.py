"""The score-versus-cost frontier (evaluator/scoring/frontier.py, docs/scoring.md "Score versus
cost"): the uploads no other beats on both counts, cheapest first; an upload without a cost is never
on it and beats nobody; two alike are both on it; it agrees with the definition on random boards."""

from __future__ import annotations

import random

from evaluator.scoring.frontier import cost_frontier, dominates

Upload = tuple[str, float, float | None]  # name, suite score, cost


def frontier(uploads: list[Upload]) -> list[str]:
    return [name for name, _, _ in cost_frontier(uploads, lambda u: u[1], lambda u: u[2])]


def test_the_board_example() -> None:
    uploads = [("a", 0.30, 2.0), ("b", 0.50, 10.0), ("c", 0.40, 12.0), ("d", 0.55, 40.0), ("e", 0.20, 0.5),
               ("f", 0.60, None)]
    # c costs more than b for less; f gives no cost: not compared, however well it scores
    assert frontier(uploads) == ["e", "a", "b", "d"]


def test_equal_score_the_cheaper_wins_and_equal_cost_the_higher_score() -> None:
    assert frontier([("dear", 0.5, 3.0), ("cheap", 0.5, 1.0)]) == ["cheap"]
    assert frontier([("low", 0.4, 1.0), ("high", 0.5, 1.0)]) == ["high"]


def test_two_alike_are_both_on_it_in_the_order_given() -> None:
    assert frontier([("first", 0.5, 1.0), ("second", 0.5, 1.0), ("worse", 0.4, 1.0)]) == ["first", "second"]


def test_free_runs_and_zero_scores_count_like_any_other() -> None:
    assert frontier([("free", 0.0, 0.0), ("paid", 0.1, 5.0)]) == ["free", "paid"]
    assert frontier([("free", 0.2, 0.0), ("paid", 0.1, 5.0)]) == ["free"]
    assert frontier([("none", 0.9, None)]) == []
    assert frontier([]) == []


def test_it_agrees_with_the_definition_on_random_boards() -> None:
    rng = random.Random(23)
    for _ in range(300):
        uploads: list[Upload] = [
            (str(i), rng.choice([0.0, 0.1, 0.25, 0.5, rng.random()]),
             rng.choice([None, 0.0, 1.0, 2.5, 10.0, rng.uniform(0, 20)]))
            for i in range(rng.randint(0, 12))]
        costed = [(name, score, cost) for name, score, cost in uploads if cost is not None]
        expected = {name for name, score, cost in costed
                    if not any(dominates((s, c), (score, cost)) for _, s, c in costed)}
        found = cost_frontier(uploads, lambda u: u[1], lambda u: u[2])
        assert {name for name, _, _ in found} == expected
        assert [cost for _, _, cost in found] == sorted(cost for _, _, cost in found)  # cheapest first
