"""GET/POST /submit/: the browser's submission form. Bad input is refused beside its field (or as a
form error for size and quota) and stores nothing; a good one queues evaluations and redirects; the
optional agent fields, all or none, store it under a one-problem agent submission."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from django.utils.html import escape

from evaluator import services as evaluations
from evaluator.models import Evaluation
from leaderboard.models import Hardware, Problem
from submissions.models import AgentSubmission, Submission
from tests.platform import factories

pytestmark = pytest.mark.django_db
SUBMIT = "/submit/"


@pytest.fixture
def user(db: Any) -> AbstractBaseUser:
    return factories.make_user()


@pytest.fixture
def browser(client: Client, user: AbstractBaseUser) -> Client:
    client.force_login(user)
    return client


@pytest.fixture(autouse=True)
def no_messages() -> Any:
    with mock.patch.object(evaluations, "send") as send:
        yield send


def post(client: Client, content: bytes | None = factories.CORRECT.encode(), name: str = "solution.py",
         **fields: Any) -> Any:
    data: dict[str, Any] = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python", **fields}
    if content is not None:
        data["file"] = SimpleUploadedFile(name, content)
    return client.post(SUBMIT, data)


def field_errors(response: Any, field: str) -> list[str]:
    return list(response.context["form"].errors.get(field, []))


def test_anonymous_is_sent_to_log_in(client: Client, problem: Problem, cpu: Hardware) -> None:
    for response in (client.get(SUBMIT), post(client)):
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=/submit/")
    assert not Submission.objects.exists()


def test_the_form_lists_current_problems_and_active_hardware(browser: Client, problem: Problem,
                                                            cpu: Hardware) -> None:
    factories.make_hardware("h200")
    Hardware.objects.filter(slug="h200").update(active=False)
    response = browser.get(SUBMIT)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'enctype="multipart/form-data"' in page and "csrfmiddlewaretoken" in page
    assert 'value="scale_shift"' in page and 'type="checkbox"' in page and 'value="cpu"' in page
    assert 'value="h200"' not in page
    assert "PyTorch" in page and "Triton" in page and "CUDA C++" in page
    assert 'href="/submit/"' in page and 'href="/submissions/"' in page  # the layout's links


def test_a_good_upload_queues_evaluations_and_redirects(
        browser: Client, user: AbstractBaseUser, problem: Problem, cpu: Hardware,
        no_messages: mock.MagicMock, django_capture_on_commit_callbacks: Any) -> None:
    factories.make_hardware("h200")
    with django_capture_on_commit_callbacks(execute=True):
        response = post(browser, hardware=["cpu", "h200"], language="triton")
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"
    assert (submission.owner, submission.problem, submission.language) == (user, problem, "triton")
    assert submission.sources == {"solution.py": factories.CORRECT} and submission.entry == "solution.py"
    assert sorted(submission.evaluations.values_list("hardware__slug", "state")) == [
        ("cpu", Evaluation.QUEUED), ("h200", Evaluation.QUEUED)]
    assert sorted(call.args[1] for call in no_messages.call_args_list) == ["hw.cpu", "hw.h200"]


def test_a_solution_json_upload(browser: Client, problem: Problem, cpu: Hardware) -> None:
    document = json.dumps({"sources": [{"path": "kernel.py", "content": factories.CORRECT}],
                           "spec": {"entry_point": "kernel.py::run"}})
    response = post(browser, document.encode(), name="solution.json")
    assert response.status_code == 302
    assert Submission.objects.get().entry == "solution.json"


def test_pasted_code_is_stored_as_solution_py(browser: Client, problem: Problem, cpu: Hardware) -> None:
    response = post(browser, None, code=factories.CORRECT.replace("\n", "\r\n"), language="triton")
    assert response.status_code == 302
    submission = Submission.objects.get()
    assert submission.sources == {"solution.py": factories.CORRECT}  # line ends as written
    assert (submission.entry, submission.language) == ("solution.py", "triton")
    assert submission.evaluations.get().state == Evaluation.QUEUED


@pytest.mark.parametrize("with_file, code", [(True, factories.CORRECT), (False, ""), (False, "   \n")])
def test_exactly_one_of_file_and_code(browser: Client, problem: Problem, cpu: Hardware,
                                      with_file: bool, code: str) -> None:
    response = post(browser, factories.CORRECT.encode() if with_file else None, code=code)
    assert response.status_code == 400
    if code.strip() or (not with_file and not code):
        assert field_errors(response, "file") == [
            "give either a file or pasted code, not both and not neither"]
        assert '<span class="error">give either a file or pasted code' in response.content.decode()
    else:  # only whitespace pasted: empty code
        assert field_errors(response, "code") == ["solution.py: the file is empty"]
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


@pytest.mark.parametrize("fields, field", [
    ({"hardware": ["nope"]}, "hardware"),
    ({"hardware": ["h200"]}, "hardware"),  # inactive
    ({"hardware": []}, "hardware"),
    ({"problem": "no_such_problem"}, "problem"),
    ({"language": "fortran"}, "language"),
])
def test_bad_choices_are_refused_beside_their_field(browser: Client, problem: Problem, cpu: Hardware,
                                                    fields: dict[str, Any], field: str) -> None:
    factories.make_hardware("h200")
    Hardware.objects.filter(slug="h200").update(active=False)
    response = post(browser, **fields)
    assert response.status_code == 400
    assert field_errors(response, field), response.context["form"].errors
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


def test_an_old_problem_version_cannot_be_chosen(browser: Client, problem: Problem, cpu: Hardware) -> None:
    Problem.objects.filter(pk=problem.pk).update(is_current=False)
    response = post(browser)
    assert response.status_code == 400 and field_errors(response, "problem")
    assert not Submission.objects.exists()


@pytest.mark.parametrize("content, name, message", [
    (b"\xff\xfe not utf-8", "solution.py", "solution.py: not UTF-8 text"),
    (b"", "solution.py", "The submitted file is empty."),
    (b" \n", "solution.py", "solution.py: the file is empty"),
    (b"a\x00b", "solution.py", "solution.py: a binary file (it holds NUL bytes), not source text"),
    (b"print(1)", "solution.txt", "solution.txt: a solution is a .py file or a solution.json"),
    (b"{", "solution.json", "solution.json: not valid JSON"),
])
def test_bad_files_are_refused_beside_the_file_field(browser: Client, problem: Problem, cpu: Hardware,
                                                     content: bytes, name: str, message: str) -> None:
    response = post(browser, content, name=name)
    assert response.status_code == 400
    errors = field_errors(response, "file")
    assert len(errors) == 1 and errors[0].startswith(message), errors
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


@override_settings(SOLARENA_MAX_SOURCE_BYTES=64)
def test_oversized_upload_and_code_are_form_errors(browser: Client, problem: Problem, cpu: Hardware) -> None:
    big = "x = 1\n" * 20
    for response in (post(browser, big.encode()), post(browser, None, code=big)):
        assert response.status_code == 400
        errors = response.context["form"].non_field_errors()
        assert len(errors) == 1 and "over the limit of 64 bytes" in errors[0]
        assert '<p class="error">' in response.content.decode()
    assert not Submission.objects.exists() and not Evaluation.objects.exists()


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=1)
def test_quota_is_a_form_error(browser: Client, problem: Problem, cpu: Hardware) -> None:
    assert post(browser).status_code == 302
    response = post(browser)
    assert response.status_code == 400
    errors = response.context["form"].non_field_errors()
    assert len(errors) == 1 and "submissions to scale_shift in the last 24 hours" in errors[0]
    assert Submission.objects.count() == 1 and Evaluation.objects.count() == 1


def test_redisplayed_code_is_escaped(browser: Client, problem: Problem, cpu: Hardware) -> None:
    response = post(browser, code="<script>alert(1)</script>")  # a file as well: refused
    assert response.status_code == 400
    page = response.content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


AGENT = {"agent_name": "kernel-agent", "agent_version": "1.2.0", "agent_model": "some-llm"}


def test_agent_fields_store_a_one_problem_agent_submission(browser: Client, user: AbstractBaseUser,
                                                           problem: Problem, cpu: Hardware) -> None:
    page = browser.get(SUBMIT).content.decode()
    assert 'name="agent_name"' in page and 'name="agent_version"' in page and 'name="agent_model"' in page
    response = post(browser, **AGENT)
    submission = Submission.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/submissions/{submission.pk}/"
    agent = AgentSubmission.objects.get()
    assert (agent.owner, agent.name, agent.version, agent.model) == (
        user, "kernel-agent", "1.2.0", "some-llm")
    assert submission.agent_submission == agent and list(agent.submissions.all()) == [submission]
    # Once scored, the agent board of the hardware counts it (a suite of its one problem).
    evaluation = submission.evaluations.get()
    assert evaluations.claim(evaluation.pk, "w") is not None
    assert evaluations.ingest(evaluation.pk, "w", factories.fake_report(evaluation, 0.5))
    entries = browser.get("/api/v1/leaderboards/agents/", {"hardware": "cpu"}).json()["entries"]
    assert [(e["agent"], e["version"], e["model"], e["agent_submission"], e["score"]) for e in entries] == [
        ("kernel-agent", "1.2.0", "some-llm", agent.pk, 0.5)]


def test_without_agent_fields_no_agent_submission(browser: Client, problem: Problem, cpu: Hardware) -> None:
    assert post(browser, agent_name="  ", agent_version="", agent_model="").status_code == 302
    assert Submission.objects.get().agent_submission is None and not AgentSubmission.objects.exists()


@pytest.mark.parametrize("missing", ["agent_name", "agent_version", "agent_model"])
def test_agent_fields_come_all_or_none(browser: Client, problem: Problem, cpu: Hardware,
                                       missing: str) -> None:
    response = post(browser, **{**AGENT, missing: ""})
    assert response.status_code == 400
    message = "give the agent's name, version and model together, or none of them"
    assert field_errors(response, missing) == [message]
    assert all(not field_errors(response, name) for name in AGENT if name != missing)
    body = response.content.decode()
    beside = body[body.index(f'name="{missing}"'):]
    assert beside[:beside.index("</p>")].count(f'<span class="error">{escape(message)}</span>') == 1
    assert not Submission.objects.exists() and not AgentSubmission.objects.exists()


def test_an_agent_field_too_long_is_refused_beside_it(browser: Client, problem: Problem,
                                                      cpu: Hardware) -> None:
    response = post(browser, **{**AGENT, "agent_name": "a" * 101})
    assert response.status_code == 400 and field_errors(response, "agent_name")
    assert not Submission.objects.exists() and not AgentSubmission.objects.exists()


@override_settings(SUBMISSIONS_PER_PROBLEM_PER_DAY=1)
def test_a_refused_agent_solution_stores_no_agent_submission(browser: Client, problem: Problem,
                                                             cpu: Hardware) -> None:
    assert post(browser).status_code == 302
    response = post(browser, **AGENT)
    assert response.status_code == 400
    assert "in the last 24 hours" in response.context["form"].non_field_errors()[0]
    assert Submission.objects.count() == 1 and not AgentSubmission.objects.exists()
