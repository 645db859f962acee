"""How `solarena agents`, `agent-results` and `agent-compare` print the server's documents: the
figures of docs/scoring.md ("Agent suites") as the pages show them, three significant digits.
Names come from manifests, so nothing here is console markup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from evaluator.scoring import numbers

# (title, key in a suite's figures, how it is written)
FIGURES = (("suite score", "score", numbers.significant), ("solved", "solved", str),
           ("all visible", "solved_visible", str), ("all workloads", "solved_all", str),
           ("visible", "visible_score", numbers.significant), ("hidden", "hidden_score", numbers.significant),
           ("gap", "generalization_gap", numbers.significant),
           ("correctness gap", "correctness_gap", numbers.significant),
           ("speed gap", "speed_gap", numbers.significant),
           ("cond. correct", "conditional_correctness", numbers.share))
GAPS_NOTE = ("gap = visible - hidden score; correctness gap: hidden workloads that fail (a failure to "
             "generalize); speed gap: hidden workloads that pass but score lower (slower, not wrong)")


def _table(title: str, columns: Sequence[tuple[str, bool]]) -> Table:
    table = Table(title=title)
    for column, numeric in columns:
        table.add_column(column, overflow="fold", justify="right" if numeric else "left")
    return table


def _figures(figures: Mapping[str, Any]) -> list[str]:
    return [write(figures.get(key)) if figures.get(key) is not None else "-" for _, key, write in FIGURES]


def _signed(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:+d}" if value else "0"
    text = numbers.significant(value)
    return f"+{text}" if isinstance(value, int | float) and value > 0 else text


def _whole(value: Any) -> str:
    return "-" if value is None else str(value)


def _usage(problem: Mapping[str, Any]) -> list[str]:
    """A problem's cost, tokens read/written and wall time, as the manifest's `problems` gives them."""
    tokens = ("-" if problem.get("tokens_input") is None and problem.get("tokens_output") is None
              else f"{_whole(problem.get('tokens_input'))}/{_whole(problem.get('tokens_output'))}")
    return [numbers.significant(problem.get("cost_usd")), tokens,
            numbers.significant(problem.get("wall_seconds"))]


def print_board(document: Mapping[str, Any], console: Console) -> None:
    entries = document.get("entries") or []
    over = f"task type {document['task_type']}" if document.get("task_type") else "every current problem"
    if not entries:
        console.print(f"agents on {document['hardware']} ({over}): no entries yet (no finished upload)")
        return
    table = _table(f"agents on {document['hardware']}: one row per upload, suite of {document['problems']} "
                   f"problems ({over})",
                   [("rank", True), ("agent", False), ("version", False), ("model", False), ("owner", False),
                    ("upload", True), *((title, True) for title, _, _ in FIGURES), ("cost USD", True),
                    ("tokens", True)])
    for e in entries:
        table.add_row(str(e["rank"]), e["agent"], e["version"], e["model"], e["user"],
                      str(e["agent_submission"]), *_figures(e), numbers.significant(e.get("cost_usd")),
                      _whole(e.get("tokens")))
    console.print(table)
    console.print(GAPS_NOTE)


def print_upload(document: Mapping[str, Any], console: Console) -> None:
    console.print(f"agent submission {document['id']}: {document['agent']} {document['version']} "
                  f"({document['model']}) by {document['user']}")
    for here in document.get("hardware") or []:
        suites = _table(f"on {here['hardware']} ({here['status']})",
                        [("over", False), *((title, True) for title, _, _ in FIGURES)])
        suites.add_row("the suite", *_figures(here["suite"]))
        for figures in here.get("task_types") or []:
            suites.add_row(figures["task_type"], *_figures(figures))
        console.print(suites)
        problems = _table(f"problems on {here['hardware']}",
                          [("problem", False), ("task type", False), ("outcome", False), ("score", True),
                           ("visible", True), ("hidden", True), ("visible passed", True),
                           ("hidden passed", True), ("correctness gap", True), ("speed gap", True),
                           ("cost USD", True), ("tokens in/out", True), ("wall s", True)])
        for p in here.get("problems") or []:
            scores = (numbers.significant(p.get(key)) for key in ("score", "visible_score", "hidden_score"))
            gaps = (numbers.significant(p.get(key)) for key in ("correctness_gap", "speed_gap"))
            problems.add_row(p["problem"], p["task_type"], p["outcome"], *scores,
                             f"{p['visible_passed']}/{p['visible_total']}",
                             f"{p['hidden_passed']}/{p['hidden_total']}", *gaps, *_usage(p))
        console.print(problems)
        if here.get("missing_problems"):
            console.print(f"left out (each counts 0): {', '.join(here['missing_problems'])}")
    console.print(GAPS_NOTE)


def print_comparison(document: Mapping[str, Any], console: Console) -> None:
    a, b = document["a"], document["b"]
    suites = _table(f"on {document['hardware']}: a = #{a['id']} {a['agent']} {a['version']}, "
                    f"b = #{b['id']} {b['agent']} {b['version']}",
                    [("", False), *((title, True) for title, _, _ in FIGURES)])
    suites.add_row("a", *_figures(a["suite"]))
    suites.add_row("b", *_figures(b["suite"]))
    suites.add_row("b - a", *(_signed(document["delta"].get(key)) for _, key, _ in FIGURES))
    console.print(suites)
    types = _table("by task type, b - a", [("task type", False), ("a score", True), ("b score", True),
                                           ("score", True), ("hidden", True), ("all workloads", True)])
    for t in document.get("task_types") or []:
        delta = t["delta"]
        types.add_row(t["task_type"], numbers.significant((t.get("a") or {}).get("score")),
                      numbers.significant((t.get("b") or {}).get("score")), _signed(delta.get("score")),
                      _signed(delta.get("hidden_score")), _signed(delta.get("solved_all")))
    console.print(types)
    problems = _table("problem by problem, b - a", [
        ("problem", False), ("task type", False), ("a", False), ("b", False), ("a score", True),
        ("b score", True), ("score", True), ("visible", True), ("hidden", True), ("change", False)])
    for p in document.get("problems") or []:
        first, second = p.get("a") or {}, p.get("b") or {}
        problems.add_row(p["problem"], p["task_type"], first.get("outcome", "-"), second.get("outcome", "-"),
                         numbers.significant(first.get("score", 0.0)),
                         numbers.significant(second.get("score", 0.0)),
                         _signed(p["score_delta"]), _signed(p["visible_delta"]), _signed(p["hidden_delta"]),
                         p["change"])
    console.print(problems)
    console.print(verdict(document.get("better")))
    console.print(f"b ranks above a on {document['improved']} problems and below it on {document['worse']} "
                  f"(correct on every workload first, then the score)")


def verdict(better: str | None) -> str:
    """Which upload ranks higher over the suite, in the agent board's words."""
    if better not in ("a", "b"):
        return "a and b stand level by the agent board's rule"
    return (f"{better} is better by the agent board's rule: an upload with a problem that failed some "
            "workload ranks below one whose problems passed them all, then the higher suite score")


def print_frontier(document: Mapping[str, Any], console: Console) -> None:
    """The frontier, cheapest first, then the other uploads with a cost and those without one."""
    hardware = document["hardware"]
    if not document["frontier"] and not document["no_cost"] and not document["dominated"]:
        console.print(f"score versus cost on {hardware}: no entries yet (no finished upload)")
        return
    columns = [("rank", True), ("agent", False), ("version", False), ("model", False), ("owner", False),
               ("upload", True), ("suite score", True), ("cost USD", True), ("tokens", True)]
    for key, title in (("frontier", "the frontier: no other upload scores at least as high for at most the "
                                    "cost; cheapest first"),
                       ("dominated", "beaten on both counts by an upload of the frontier")):
        if not document[key]:
            continue
        table = _table(f"score versus cost on {hardware}, {title}", columns)
        for e in document[key]:
            table.add_row(str(e["rank"]), e["agent"], e["version"], e["model"], e["user"],
                          str(e["agent_submission"]), numbers.significant(e["score"]),
                          numbers.significant(e["cost_usd"]), _whole(e.get("tokens")))
        console.print(table)
    if not document["frontier"]:
        console.print(f"no upload on {hardware} gives a cost yet: the frontier is empty")
    if document["no_cost"]:
        console.print("no cost given (not compared): " + ", ".join(
            f"{e['agent']} {e['version']} (#{e['agent_submission']}, score {numbers.significant(e['score'])})"
            for e in document["no_cost"]))
