"""The roofline chart of each evaluation on the submission page (pages/roofline_chart.py,
templates/pages/_chart_roofline.html): passed visible workloads at their achieved FLOP/s over their
intensity, from the rooflines the evaluation recorded (the API's); failed and hidden ones never drawn."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from django.test import Client

from evaluator.models import Evaluation, WorkloadResult
from evaluator.scoring.hardware import get_hardware
from evaluator.scoring.numbers import CUT, rate
from evaluator.scoring.roofline import roofline
from evaluator.scoring.sol import FROM_DEFINITION, WorkloadWork
from leaderboard.models import Hardware, Problem, Workload
from pages import roofline_chart as chart_module
from pages.roofline_chart import Plot, roofline_chart
from pages.templatetags.page_format import axes
from tests.api.support import client_for
from tests.platform import factories

H200 = get_hardware("h200")
RIDGE = H200.peak_flops["float32"] / H200.memory_bandwidth


def line(flops: float, nbytes: float, kernel_ms: float | None = 1.0) -> dict[str, Any]:
    """A roofline as the evaluator records it for a float32 workload on an H200."""
    return roofline(WorkloadWork(flops, nbytes, "float32", FROM_DEFINITION, FROM_DEFINITION), H200,
                    kernel_ms).to_dict()


def plot_of(rows: list[tuple[str, str, dict[str, Any] | None]]) -> Plot:
    chart = roofline_chart(rows)
    assert chart is not None and chart.plot is not None
    return chart.plot


def roof_y(plot: Plot, x: float) -> float:
    """The roof's height at `x`, read from its path (a straight slope, then level)."""
    x0, y0, x1, y1 = map(float, re.findall(r"[\d.]+", plot.roof)[:4])
    return y1 if x >= x1 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def test_a_workload_at_the_ridge_sits_at_the_ridge_and_at_its_bound_on_the_roof() -> None:
    at_ridge = line(RIDGE * 1e9, 1e9)
    plot = plot_of([("at ridge", "PASSED", line(RIDGE * 1e9, 1e9, at_ridge["sol_ms"])),
                    ("elementwise", "PASSED", line(1e9, 8e9, line(1e9, 8e9)["sol_ms"]))])
    by_label = {point.label: point for point in plot.points}
    assert by_label["at ridge"].x == pytest.approx(plot.ridge_x, abs=0.02)
    assert by_label["at ridge"].y == pytest.approx(plot.ridge_y, abs=0.02)
    elementwise = by_label["elementwise"]  # memory-bound, run at its SOL bound: on the slope
    assert elementwise.x < plot.ridge_x
    assert elementwise.y == pytest.approx(roof_y(plot, elementwise.x), abs=0.1)


def test_a_higher_rate_is_drawn_higher_and_a_higher_intensity_further_right() -> None:
    plot = plot_of([("slow", "PASSED", line(1e12, 1e9, 400.0)),
                    ("fast", "PASSED", line(1e12, 1e9, 100.0)),
                    ("dense", "PASSED", line(1e12, 1e8, 100.0)),
                    ("fast too", "PASSED", line(1e12, 1e9, 101.0))])
    by_label = {point.label: point for point in plot.points}
    assert by_label["fast"].y < by_label["slow"].y and by_label["fast"].x == by_label["slow"].x
    assert by_label["dense"].x > by_label["fast"].x
    decade = plot.y_ticks[0].position - plot.y_ticks[1].position  # one tick a decade here
    assert by_label["slow"].y - by_label["fast"].y == pytest.approx(0.602 * decade, abs=0.1)  # log10(4)
    # two points almost on top of each other: their labels are pushed apart, not printed over each other
    assert abs(by_label["fast"].y - by_label["fast too"].y) < 1
    assert abs(by_label["fast"].label_y - by_label["fast too"].label_y) >= 12


@pytest.mark.timeout(60)  # the pushing once went on for ever (23.69 + 12 - 23.69 < 12 in floats)
def test_labels_of_points_on_one_spot_end_one_below_another_wherever_the_spot_is() -> None:
    spot = chart_module._Passed("workload", "compute", 10.0, 1e12, 1e11, 0.5, 1e13, 1e12, 10.0)
    for hundredths in range(chart_module.TOP * 100, (chart_module.TOP + chart_module.HEIGHT) * 100):
        py = hundredths / 100
        points = chart_module._labelled([(300.0, py, spot)] * 3)
        heights = sorted(point.label_y for point in points)
        assert heights[0] == pytest.approx(py + 4, abs=0.01), py
        assert [b - a for a, b in itertools.pairwise(heights)] == \
            [pytest.approx(chart_module.LABEL_GAP, abs=0.011)] * 2, py


def test_ticks_are_in_engineering_units_and_long_names_are_cut_visibly() -> None:
    name = "rows=65536, cols=65536, batch=128 (smoke)"
    plot = plot_of([(name, "PASSED", line(1e12, 1e9, 100.0)), ("slow", "PASSED", line(1e9, 1e9, 10.0))])
    assert [tick.label for tick in plot.y_ticks] == ["100 GFLOP/s", "1 TFLOP/s", "10 TFLOP/s", "100 TFLOP/s"]
    assert [tick.label for tick in plot.x_ticks] == ["1", "10", "100", "1000"]
    [long] = [point for point in plot.points if point.label != "slow"]
    assert long.label.endswith(CUT) and len(long.label) < len(name)
    assert long.title.startswith(name + ": 1000 FLOP/byte, 10.0 TFLOP/s and 10.0 GB/s")
    assert plot.ridge_label == "ridge 14.0 FLOP/byte"
    assert plot.compute_label == f"compute roof {rate(H200.peak_flops['float32'], 'FLOP/s')}"


def test_failed_workloads_draw_no_point_and_zero_flop_ones_are_listed() -> None:
    chart = roofline_chart([("ok", "PASSED", line(1e9, 1e9)),
                            ("wrong", "INCORRECT_NUMERICAL", line(1e9, 1e9, None)),
                            ("no time", "PASSED", line(1e9, 1e9, None)),
                            ("old", "PASSED", None),  # stored before rooflines were
                            ("copy", "PASSED", line(0.0, 4e9, 2.0))])
    assert chart is not None and chart.plot is not None
    assert [point.label for point in chart.plot.points] == ["ok"]
    [copy] = chart.listed
    assert (copy.label, copy.bound, copy.achieved) == ("copy", "memory", "2.00 TB/s")
    assert copy.share == f"{2e12 / H200.memory_bandwidth:.0%}"
    assert roofline_chart([("wrong", "RUNTIME_ERROR", line(1e9, 1e9, None)), ("old", "PASSED", None)]) is None
    only_memory = roofline_chart([("copy", "PASSED", line(0.0, 4e9, 2.0))])
    assert only_memory is not None and only_memory.plot is None and len(only_memory.listed) == 1


# Through the page.

def page(submission_id: int) -> str:
    return f"/submissions/{submission_id}/"


def roofline_svg(body: str) -> str:
    start = body.index('<svg class="chart roofline"')
    return body[start:body.index("</svg>", start)]


def score(evaluation: Evaluation, visible_verdicts: tuple[str, ...],
          hidden_line: dict[str, Any]) -> tuple[list[Workload], Workload]:
    """Visible smoke workloads with the verdicts given (each passed one with a roofline), and one
    hidden workload that passed with `hidden_line`."""
    rows = list(evaluation.submission.problem.workloads.filter(smoke=True).order_by("position"))
    visible = [w for w in rows if w.visibility == Workload.VISIBLE][:len(visible_verdicts)]
    hidden = next(w for w in rows if w.visibility == Workload.HIDDEN)
    for workload, verdict in zip(visible, visible_verdicts, strict=True):
        passed = verdict == "PASSED"
        WorkloadResult.objects.create(
            evaluation=evaluation, workload=workload, status=verdict, latency_ms=2.0 if passed else None,
            sol_ms=0.5, score=0.4 if passed else 0.0,
            raw={"roofline": line(4e9, 2e9, 2.0 if passed else None)})
    WorkloadResult.objects.create(evaluation=evaluation, workload=hidden, status="PASSED", latency_ms=9.875,
                                  sol_ms=6.125, score=0.3, raw={"roofline": hidden_line})
    Evaluation.objects.filter(pk=evaluation.pk).update(state=Evaluation.SCORED, score=0.3, aggregates={})
    return visible, hidden


@pytest.mark.django_db
def test_the_page_draws_passed_visible_workloads_as_the_api_shows_them(problem: Problem,
                                                                        cpu: Hardware) -> None:
    owner = factories.make_user("ada")
    evaluation = factories.make_evaluation(owner=owner, problem=problem, hardware=cpu)
    hidden_line = line(7.77e15, 3.33e11, 9.875)  # numbers nothing visible has
    visible, hidden = score(evaluation, ("PASSED", "COMPILE_ERROR"), hidden_line)
    body = Client().get(page(evaluation.submission_id)).content.decode()
    svg = roofline_svg(body)
    assert svg.count('<circle class="point"') == 1  # the failed one and the hidden one draw none
    passed, failed = (axes(w.axes) for w in visible)
    assert f"{passed} (smoke)" in svg and failed not in svg
    assert axes(hidden.axes) not in body
    for secret in (rate(hidden_line["achieved_flops_per_s"], "FLOP/s"), "7.77", "9.875"):
        assert secret not in body, secret
    assert "hidden workloads are never drawn" in body
    api = client_for(owner).get(f"/api/v1/submissions/{evaluation.submission_id}/").json()
    [shown] = [row["roofline"] for row in api["evaluations"][0]["results"] if row["status"] == "PASSED"]
    title = re.search(r"<title>([^<]+)</title>", svg)
    assert title and f"{rate(shown['achieved_flops_per_s'], 'FLOP/s')} and " \
        f"{rate(shown['achieved_bytes_per_s'], 'B/s')}" in title.group(1)


@pytest.mark.django_db
def test_no_chart_when_no_workload_passed(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    score(evaluation, ("COMPILE_ERROR", "RUNTIME_ERROR"), line(1e9, 1e9, 1.0))
    body = Client().get(page(evaluation.submission_id)).content.decode()
    assert "Workloads on cpu" in body
    assert 'class="chart roofline"' not in body and "Roofline on" not in body


@pytest.mark.django_db
def test_names_are_escaped(problem: Problem, cpu: Hardware) -> None:
    evaluation = factories.make_evaluation(problem=problem, hardware=cpu)
    [workload], _ = score(evaluation, ("PASSED",), line(1e9, 1e9, 1.0))
    Workload.objects.filter(pk=workload.pk).update(axes={'<script>alert("x")</script>': 4})
    svg = roofline_svg(Client().get(page(evaluation.submission_id)).content.decode())
    assert "<script>" not in svg
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;=4" in svg
