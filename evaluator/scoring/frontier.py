"""The score-versus-cost frontier of agent uploads (docs/scoring.md, "Score versus cost"): the uploads
no other upload beats on both counts, a suite score at least as high for a cost at most as low and
better on one of the two. Pure: the agent frontier page, the API and the CLI all read it from here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def dominates(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """(score, cost) `a` beats `b`: scores at least as high, costs at most as much, and is not the same."""
    return a[0] >= b[0] and a[1] <= b[1] and a != b


def cost_frontier(items: Iterable[T], score: Callable[[T], float],
                  cost: Callable[[T], float | None]) -> list[T]:
    """The items no other item dominates, cheapest first (ties in cost: the higher score, then the
    order given). Items without a cost are not compared and are never on it; two items with the same
    score and cost are both on it, neither beating the other."""
    costed = sorted((spent, -score(item), i, item) for i, item in enumerate(items)
                    if (spent := cost(item)) is not None)
    frontier: list[T] = []
    best: tuple[float, float] | None = None  # the cheapest (score, cost) with the best score so far
    for spent, negative, _, item in costed:
        point = (-negative, spent)
        if best is None or point[0] > best[0]:
            best = point
        elif point != best:
            continue  # best is as cheap or cheaper, and scores at least as high
        frontier.append(item)
    return frontier
