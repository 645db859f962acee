"""The board pages: the stable order (ties, participants without a valid score last), sorting by a
whitelisted column, hardware tabs and the task-type filter, the CSV download, the JSON one (the API's
board, where ?format=json redirects), and user content escaped on every board."""

from __future__ import annotations

import csv
import io
from html.parser import HTMLParser
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from accounts.services import profile_of
from evaluator import services as evaluations
from leaderboard.models import Hardware, LeaderboardEntry, Problem
from tests.platform import factories

pytestmark = pytest.mark.django_db
BOARD = "/boards/problems/scale_shift/cpu/"
Users = dict[str, AbstractBaseUser]


class BoardTable(HTMLParser):
    """The text of each cell of the body of <table class="board">."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.in_board = self.in_body = self.in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and ("class", "board") in attrs:
            self.in_board = True
        elif self.in_board and tag == "tbody":
            self.in_body = True
        elif self.in_body and tag == "tr":
            self.rows.append([])
        elif self.in_body and tag == "td":
            self.in_cell = True
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self.in_cell = False
        elif tag == "table":
            self.in_board = self.in_body = False

    def handle_data(self, data: str) -> None:
        if self.in_cell:
            self.rows[-1][-1] += data.strip()


def table(client: Client, url: str, **params: str) -> list[list[str]]:
    response = client.get(url, params)
    assert response.status_code == 200, response.content.decode()[:2000]
    parser = BoardTable()
    parser.feed(response.content.decode())
    return parser.rows


def download(client: Client, url: str, fmt: str, **params: str) -> Any:
    response = client.get(url, {"format": fmt, **params})
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment; filename=")
    return response


def api_json(client: Client, url: str, api_url: str, **params: str) -> Any:
    """The board's JSON: ?format=json on the page redirects to the API's board, which the page's
    download link names too."""
    response = client.get(url, {"format": "json", **params})
    assert response.status_code == 302 and response["Location"] == api_url
    page = client.get(url, params).content.decode()
    assert f'href="{api_url}" download>JSON</a>' in page
    answer = client.get(api_url)
    assert answer.status_code == 200 and answer["Content-Type"].startswith("application/json")
    return answer.json()


scored = factories.make_scored


@pytest.fixture
def ranked(problem: Problem, cpu: Hardware) -> Users:
    """ada 0.5, bob 0.9, cyd 0.5 later, dan all failed, eve a reward hack, fay 0.5 with ada's time."""
    users = {name: factories.make_participant(name) for name in ("ada", "bob", "cyd", "dan", "eve", "fay")}
    scored(users["ada"], problem, cpu, 0.5, visible_score=0.6, hidden_score=0.4, generalization_gap=0.2,
           geomean_speedup=3.0)
    scored(users["bob"], problem, cpu, 0.9, visible_score=0.9, hidden_score=0.9, geomean_speedup=1.5)
    scored(users["cyd"], problem, cpu, 0.5)
    scored(users["cyd"], problem, cpu, 0.3)
    scored(users["dan"], problem, cpu, 0.0, verdict="INCORRECT_NUMERICAL")
    scored(users["eve"], problem, cpu, 0.0, verdict="REWARD_HACK")
    scored(users["fay"], problem, cpu, 0.5)
    ada = LeaderboardEntry.objects.get(user=users["ada"])
    LeaderboardEntry.objects.filter(user=users["fay"]).update(submitted_at=ada.submitted_at)  # a full tie
    return users


def test_stable_order_ties_to_the_earlier_submission_then_user_id_unscored_last(
        client: Client, ranked: Users) -> None:
    rows = table(client, BOARD)
    assert [(r[0], r[1], r[3]) for r in rows] == [
        ("1", "bob", "0.900"), ("2–4", "ada", "0.500"), ("2–4", "fay", "0.500"), ("2–4", "cyd", "0.500"),
        ("–", "dan", "no valid score"), ("–", "eve", "no valid score")]
    assert rows[3][10] == "2"  # cyd's submissions
    assert rows[1][4].startswith("all ")  # every workload passed
    assert rows[1][5:10] == ["0.600", "0.400", "0.200", "–", "3.00×"]


def test_a_reward_hack_found_later_takes_its_owner_off_the_ranks(
        client: Client, problem: Problem, cpu: Hardware, ranked: Users) -> None:
    best = LeaderboardEntry.objects.get(user=ranked["bob"]).evaluation
    evaluations.mark_reward_hack(best, factories.make_participant("reviewer"), "replays answers")
    rows = table(client, BOARD)  # unscored rows in the order of their first submission
    assert [(r[0], r[1]) for r in rows] == [
        ("1–3", "ada"), ("1–3", "fay"), ("1–3", "cyd"), ("–", "bob"), ("–", "dan"), ("–", "eve")]


def test_sort_by_any_column_keeps_ties_in_rank_order_and_empty_cells_last(
        client: Client, ranked: Users) -> None:
    def users(sort: str) -> list[str]:
        return [r[1] for r in table(client, BOARD, sort=sort)]

    assert users("-user") == ["fay", "eve", "dan", "cyd", "bob", "ada"]
    assert users("-geomean_speedup") == ["ada", "bob", "fay", "cyd", "dan", "eve"]
    assert users("geomean_speedup") == ["bob", "ada", "fay", "cyd", "dan", "eve"]
    assert users("score") == ["ada", "fay", "cyd", "bob", "dan", "eve"]
    assert users("-submissions") == ["cyd", "bob", "ada", "fay", "dan", "eve"]
    assert users("-rank") == ["cyd", "fay", "ada", "bob", "dan", "eve"]


def test_unknown_sort_or_format_is_refused_naming_what_is_allowed(
        client: Client, ranked: Users) -> None:
    response = client.get(BOARD, {"sort": "password"})
    assert response.status_code == 400
    text = response.content.decode()
    assert "password" in text and "geomean_speedup" in text
    response = client.get(BOARD, {"format": "xml"})
    assert response.status_code == 400 and "xml" in response.content.decode()
    assert client.get("/boards/problems/nope/cpu/").status_code == 404
    assert client.get("/boards/problems/scale_shift/tpu9/").status_code == 404


def test_csv_download_has_every_row_in_the_asked_order(client: Client, ranked: Users) -> None:
    profile = profile_of(ranked["ada"])
    profile.team = "=HYPERLINK(\"http://evil\")"
    profile.save()
    response = download(client, BOARD, "csv", sort="-user")
    assert response.headers["Content-Disposition"] == 'attachment; filename="scale_shift-cpu.csv"'
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["user"] for r in rows] == ["fay", "eve", "dan", "cyd", "bob", "ada"]
    ada, eve = rows[-1], rows[1]
    assert (ada["rank"], ada["score"], ada["visible_score"], ada["geomean_speedup"]) == (
        "2", "0.5", "0.6", "3.0")
    assert ada["team"] == "'=HYPERLINK(\"http://evil\")"  # a spreadsheet shows it, never runs it
    assert (eve["rank"], eve["score"], eve["last_improved"]) == ("", "", "")


def test_json_download_is_the_api_board_naming_the_board_and_its_columns(
        client: Client, ranked: Users) -> None:
    document = api_json(client, BOARD, "/api/v1/leaderboards/scale_shift/cpu/")
    assert {k: document[k] for k in ("problem", "version", "hardware")} == {
        "problem": "scale_shift", "version": 1, "hardware": "cpu"}
    assert list(document["entries"][0])[:4] == ["rank", "user", "team", "score"]
    assert [(r["rank"], r["user"], r["score"]) for r in document["entries"]] == [
        (1, "bob", 0.9), (2, "ada", 0.5), (3, "fay", 0.5), (4, "cyd", 0.5)]
    assert [r["user"] for r in document["unranked"]] == ["dan", "eve"]
    assert document["entries"][0]["last_improved"].startswith("20")
    # the sort is the page's: the API's board is in rank order, where the redirect goes whatever it was
    assert client.get(BOARD, {"format": "json", "sort": "-user"})["Location"] == (
        "/api/v1/leaderboards/scale_shift/cpu/")


def test_hardware_tabs_lead_to_the_same_board_elsewhere_keeping_the_sort(
        client: Client, problem: Problem, cpu: Hardware) -> None:
    h200 = factories.make_hardware("h200")
    scored(factories.make_participant("ada"), problem, h200, 0.7)
    content = client.get(BOARD, {"sort": "-score"}).content.decode()
    assert 'href="/boards/problems/scale_shift/h200/?sort=-score"' in content
    assert 'href="/boards/problems/scale_shift/cpu/?sort=-score" class="active"' in content
    assert table(client, "/boards/problems/scale_shift/h200/")[0][1] == "ada"
    assert [r[0] for r in table(client, BOARD)] == ["Nobody on this board yet."]


def test_category_board_means_over_problems_and_filters_by_task_type(client: Client, cpu: Hardware) -> None:
    plain = factories.make_named_problem("plain")
    tuned = factories.make_named_problem("tuned", task_type="optimize_triton")
    ada, bob, cyd = (factories.make_participant(n) for n in ("ada", "bob", "cyd"))
    scored(ada, plain, cpu, 0.4)
    scored(ada, tuned, cpu, 0.4)
    scored(bob, tuned, cpu, 1.0)
    scored(cyd, plain, cpu, 0.0, verdict="RUNTIME_ERROR")
    url = "/boards/categories/l1/cpu/"
    assert [(r[0], r[1], r[3], r[4]) for r in table(client, url)] == [
        ("1", "bob", "0.500", "1"), ("2", "ada", "0.400", "2"), ("–", "cyd", "no valid score", "0")]
    assert [(r[1], r[3]) for r in table(client, url, task_type="optimize_triton")] == [
        ("bob", "1.00"), ("ada", "0.400")]
    content = client.get(url, {"task_type": "optimize_triton"}).content.decode()
    assert '<option value="optimize_triton" selected>' in content
    assert 'href="/boards/problems/tuned/cpu/"' in content and "/boards/problems/plain/" not in content
    refused = client.get(url, {"task_type": "golf"})
    assert refused.status_code == 400 and "golf" in refused.content.decode()
    assert client.get("/boards/categories/nope/cpu/").status_code == 404
    document = api_json(client, url, "/api/v1/leaderboards/categories/l1/cpu/?task_type=optimize_triton",
                        task_type="optimize_triton")
    assert (document["category"], document["task_type"], document["problems"]) == (
        "l1", "optimize_triton", ["tuned"])
    assert download(client, url, "csv", task_type="optimize_triton").headers["Content-Disposition"] == (
        'attachment; filename="l1-optimize_triton-cpu.csv"')


def test_agent_board_shows_name_version_model_and_owner(client: Client, cpu: Hardware) -> None:
    problem, other = factories.make_named_problem("one"), factories.make_named_problem("other")
    ada, bob = factories.make_participant("ada"), factories.make_participant("bob")
    factories.make_agent_run(ada, "kernelsmith", {problem: 0.8, other: None}, cpu, "2.1", "m-large")
    factories.make_agent_run(bob, "tritonbot", {problem: 0.6, other: 0.6}, cpu, "0.3", "m-small")
    rows = table(client, "/boards/agents/cpu/")
    assert [r[:8] for r in rows] == [["1", "tritonbot", "0.3", "m-small", "bob", "", "0.600", "2"],
                                     ["2", "kernelsmith", "2.1", "m-large", "ada", "", "0.400", "1"]]
    assert [r[1] for r in table(client, "/boards/agents/cpu/", sort="agent")] == ["kernelsmith", "tritonbot"]
    rows = list(csv.DictReader(io.StringIO(download(client, "/boards/agents/cpu/", "csv").content.decode())))
    assert [(r["agent"], r["model"], r["version"], r["user"]) for r in rows] == [
        ("tritonbot", "m-small", "0.3", "bob"), ("kernelsmith", "m-large", "2.1", "ada")]
    document = api_json(client, "/boards/agents/cpu/", "/api/v1/leaderboards/agents/?hardware=cpu")
    assert document["hardware"] == "cpu"
    assert [entry["user"] for entry in document["entries"]] == ["bob", "ada"]


PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(2)>']


def test_user_content_is_escaped_on_every_board(client: Client, problem: Problem, cpu: Hardware) -> None:
    user = factories.make_participant(PAYLOADS[0])
    profile = profile_of(user)
    profile.team = PAYLOADS[1]
    profile.save()
    scored(user, problem, cpu, 0.5)
    factories.make_agent_run(user, PAYLOADS[1], {problem: 0.5}, cpu, version=PAYLOADS[0], model=PAYLOADS[0])
    for url in (BOARD, "/boards/categories/l1/cpu/", "/boards/agents/cpu/", "/"):
        content = client.get(url).content.decode()
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content, url
        for payload in PAYLOADS:
            assert payload not in content, url
    assert [r[1] for r in table(client, BOARD)] == [PAYLOADS[0]]  # the name itself, shown as text
