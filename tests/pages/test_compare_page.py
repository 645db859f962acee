"""/compare/: two submissions of one problem side by side. The table shows what submissions.compare
gives (the same pairs, times, ratios and deltas), hidden workloads only as each side's aggregate,
another's private run reads as missing, bad input is a 400 or 404 that says what is wrong, and
what people write is escaped."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from evaluator import modes
from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem, Workload
from pages.templatetags.page_format import axes, ms, score
from submissions import compare
from submissions.models import Submission
from tests.api.test_agent_submissions_api import another_problem
from tests.pages.test_escaping import ATTRIBUTE, NAME, SCRIPT, assert_inert
from tests.platform import factories

pytestmark = pytest.mark.django_db
HIDDEN_MS = 777.0  # every hidden workload's time: it must never show


def scored(problem: Problem, hardware: Hardware, latencies: list[float | None], user: Any = None,
           **fields: Any) -> Evaluation:
    """Scored through claim and ingest; visible workload i takes latencies[i] ms (None: it failed)."""
    evaluation = factories.make_evaluation(owner=user, problem=problem, hardware=hardware, **fields)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    report = factories.fake_report(evaluation)
    visible = [row for row in report["workloads"] if row["visibility"] == Workload.VISIBLE]
    for row, latency in zip(visible, latencies, strict=True):
        row["latency_ms"], row["score"] = latency, 0.1 / latency if latency else 0.0
        if latency is None:
            row["status"], row["message"] = "RUNTIME_ERROR", "boom"
    for row in report["workloads"]:
        if row["visibility"] != Workload.VISIBLE:
            row["latency_ms"] = HIDDEN_MS
    assert evaluations.ingest(evaluation.pk, "worker-a", report)
    return evaluation


def visible_count(problem: Problem) -> int:
    return problem.workloads.filter(visibility=Workload.VISIBLE, smoke=True).count()


def rows(body: str) -> list[list[str]]:
    """The text of each cell of the per-workload table."""
    table = re.search(r'<table class="pairs">.*?<tbody>(.*?)</tbody>', body, re.S)
    assert table is not None
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell)).strip()
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", table.group(1), re.S)]


def url(a: Any, b: Any, **more: str) -> str:
    extra = "".join(f"&{name}={value}" for name, value in more.items())
    return f"/compare/?a={a}&b={b}{extra}"


@pytest.fixture
def pair(problem: Problem, cpu: Hardware) -> tuple[Evaluation, Evaluation]:
    n = visible_count(problem)
    a = scored(problem, cpu, [1.0 + i for i in range(n)])
    b = scored(problem, cpu, [0.5] + [1.5 * (2.0 + i) for i in range(n - 1)])  # faster, then slower
    return a, b


def test_the_table_shows_what_compare_gives(client: Client, pair: tuple[Evaluation, Evaluation]) -> None:
    a, b = pair
    found = compare.compare(a.submission_id, b.submission_id)
    response = client.get(url(a.submission_id, b.submission_id))
    assert response.status_code == 200
    body = response.content.decode()
    expected = [[axes(p.axes), ms(p.a["latency_ms"]), ms(p.b["latency_ms"]),
                 f"{score(p.latency_ratio)}×" if p.latency_ratio is not None else "–",
                 score(p.a["score"]), score(p.b["score"]),
                 ("+" if p.score_delta > 0 else "") + score(p.score_delta),
                 "" if p.b["status"] == "PASSED" else f"b: {p.b['status']}"] for p in found.workloads]
    assert rows(body) == expected and len(expected) == visible_count(a.submission.problem) >= 2
    assert [row[3] for row in expected] == ["0.500×"] + ["1.50×"] * (len(expected) - 1)
    text = html.unescape(re.sub(r"\s+", " ", body))
    assert found.faster_in_b == 1 and found.geomean_latency_ratio is not None
    assert (f"b is faster on 1 of {len(expected)} workloads both passed; b's time over a's, geometric "
            f"mean: <strong>{score(found.geomean_latency_ratio)}×</strong>") in text
    assert text.count('<rect class="faster"') == 1 and text.count('<rect class="slower"') == len(expected) - 1
    assert all(f'href="/submissions/{side.submission_id}/"' in body for side in pair)
    assert "say nothing of a GPU's speed" in text  # the cpu's timing note


def test_a_workload_not_passed_has_no_ratio_and_says_why(client: Client, problem: Problem,
                                                          cpu: Hardware) -> None:
    n = visible_count(problem)
    a = scored(problem, cpu, [1.0] * n)
    b = scored(problem, cpu, [0.5] + [None] * (n - 1))
    body = client.get(url(a.submission_id, b.submission_id)).content.decode()
    shown = rows(body)
    assert [row[3] for row in shown] == ["0.500×"] + ["–"] * (n - 1)
    assert [row[2] for row in shown[1:]] == ["–"] * (n - 1)
    assert [row[-1] for row in shown] == [""] + ["b: RUNTIME_ERROR"] * (n - 1)
    assert body.count("<rect ") == 1 and body.count(">not both passed</text>") == n - 1
    assert "b is faster on 1 of 1 workload both passed" in html.unescape(re.sub(r"\s+", " ", body))


def test_hidden_workloads_only_as_each_sides_aggregate(client: Client,
                                                       pair: tuple[Evaluation, Evaluation]) -> None:
    a, b = pair
    body = html.unescape(client.get(url(a.submission_id, b.submission_id)).content.decode())
    hidden = a.submission.problem.workloads.filter(smoke=True).exclude(visibility=Workload.VISIBLE).count()
    assert hidden > 0 and ms(HIDDEN_MS) not in body
    assert len(rows(body)) == visible_count(a.submission.problem)
    assert body.count(f"{hidden} of {hidden} passed, mean score 0.500") == 2


def test_a_private_run_of_someone_else_reads_as_missing(client: Client, problem: Problem,
                                                        cpu: Hardware) -> None:
    n = visible_count(problem)
    owner = factories.make_participant("ada")
    private = scored(problem, cpu, [1.0] * n, user=owner)
    Submission.objects.filter(pk=private.submission_id).update(mode=modes.BENCHMARK)
    public = scored(problem, cpu, [2.0] * n)
    address = url(public.submission_id, private.submission_id)
    for visitor in (None, factories.make_participant("eve")):
        if visitor is not None:
            client.force_login(visitor)
        response = client.get(address)
        assert response.status_code == 404
        assert f"No submission #{private.submission_id}." in response.content.decode()
    client.force_login(owner)
    assert client.get(address).status_code == 200


@pytest.mark.parametrize(("query", "message"), [
    ("?a=1", "B is missing: give the id of a submission."),
    ("?a=x&b=2", "A must be a submission id (a number), not &#x27;x&#x27;."),
    ("?a=1&b=%C2%B2", "B must be a submission id (a number), not &#x27;²&#x27;."),
])
def test_bad_ids_are_a_400_that_says_which(client: Client, query: str, message: str) -> None:
    response = client.get(f"/compare/{query}")
    assert response.status_code == 400 and message in response.content.decode()
    assert '<form method="get" action="/compare/"' in response.content.decode()  # to put it right


def test_unknown_id_two_problems_and_hardware_are_said_plainly(client: Client, problem: Problem,
                                                                cpu: Hardware) -> None:
    n = visible_count(problem)
    a = scored(problem, cpu, [1.0] * n)
    for unknown in (999999, 10 ** 30):  # the second beyond any database integer
        missing = client.get(url(a.submission_id, unknown))
        assert missing.status_code == 404 and f"No submission #{unknown}." in missing.content.decode()
    other = factories.make_evaluation(problem=another_problem("other_problem"), hardware=cpu)
    apart = client.get(url(a.submission_id, other.submission_id))
    assert apart.status_code == 400
    assert html.unescape(apart.content.decode()).count(
        f"#{a.submission_id} is for {problem.name}, #{other.submission_id} for other_problem: "
        "compare submissions of one problem.") == 1
    h200 = factories.make_hardware("h200")
    b = scored(problem, cpu, [2.0] * n)
    Evaluation.objects.create(submission=a.submission, hardware=h200, seed=1)
    Evaluation.objects.create(submission=b.submission, hardware=h200, seed=2)
    ambiguous = client.get(url(a.submission_id, b.submission_id))
    assert ambiguous.status_code == 400 and "both ran on cpu, h200: name one (hardware)" in html.unescape(
        ambiguous.content.decode())
    assert client.get(url(a.submission_id, b.submission_id, hardware="cpu")).status_code == 200
    assert client.get("/compare/").status_code == 200  # the bare form


def test_what_people_write_is_escaped(client: Client, problem: Problem, cpu: Hardware) -> None:
    n = visible_count(problem)
    a = scored(problem, cpu, [1.0] * n, user=factories.make_user(NAME))
    b = scored(problem, cpu, [2.0] * n, user=factories.make_user(NAME + "2"))
    shown = client.get(url(a.submission_id, b.submission_id))
    assert shown.status_code == 200 and html.escape(NAME) in shown.content.decode()
    assert_inert(shown.content.decode())
    for hostile in (url(a.submission_id, b.submission_id, hardware=SCRIPT),
                    url(ATTRIBUTE, b.submission_id), url(a.submission_id, SCRIPT)):
        response = client.get(hostile)
        assert response.status_code == 400
        assert_inert(response.content.decode())


def test_the_submission_page_offers_a_comparison(client: Client, problem: Problem, cpu: Hardware) -> None:
    evaluation = scored(problem, cpu, [1.0] * visible_count(problem))
    body = client.get(f"/submissions/{evaluation.submission_id}/").content.decode()
    assert '<form method="get" action="/compare/" class="compare-with">' in body
    assert f'<input type="hidden" name="a" value="{evaluation.submission_id}">' in body


def test_the_page_takes_a_fixed_number_of_queries(client: Client, pair: tuple[Evaluation, Evaluation],
                                                  django_assert_num_queries: Any) -> None:
    a, b = pair
    # the hardware of the form; submissions, evaluations, results; the workers online (every page's last line)
    with django_assert_num_queries(5):
        assert client.get(url(a.submission_id, b.submission_id)).status_code == 200
