"""A submission of its own (a .py upload, JSON sources, a solution.json; the API, the form and
`solarena submit` alike) whose Python does not compile or binds no entry function is refused at
intake with the line or the missing name, and nothing is stored; C++/CUDA sources are not read as
Python."""

from __future__ import annotations

import json
import os

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluator.jobs import SolutionFiles
from leaderboard.models import Hardware, Problem
from submissions import services
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, api_user, client_for, post_sources, upload
from tests.platform import factories

pytestmark = pytest.mark.django_db
BROKEN = "import torch\n\n\ndef run(x, bias:\n    return x * 2.0\n"
NO_RUN = "import torch\n\n\ndef forward(x, bias):\n    return x * 2.0 + bias[None, :]\n"


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evaluator.services.send", lambda *args, **kwargs: None)


def test_an_upload_with_a_syntax_error_is_refused_with_its_line(problem: Problem, cpu: Hardware) -> None:
    response = upload(client_for(api_user()), BROKEN.encode(), name="kernel.py")
    assert response.status_code == 400, response.json()
    message = response.json()["file"][0]
    assert "kernel.py:4:" in message and "does not compile" in message and "nothing was stored" in message
    assert not Submission.objects.exists()


def test_sources_without_run_are_refused(problem: Problem, cpu: Hardware) -> None:
    response = post_sources(client_for(api_user()), {"solution.py": NO_RUN})
    assert response.status_code == 400, response.json()
    assert "solution.py defines no run(...)" in response.json()["sources"][0]
    assert not Submission.objects.exists()


def test_a_solution_json_is_checked_at_its_entry_point(problem: Problem, cpu: Hardware) -> None:
    text = json.dumps({"name": "s", "spec": {"entry_point": "k.py::launch"},
                       "sources": [{"path": "k.py", "content": factories.CORRECT}]})
    response = upload(client_for(api_user()), text.encode(), name="solution.json")
    assert response.status_code == 400, response.json()
    assert "k.py defines no launch(...)" in response.json()["file"][0]
    renamed = text.replace("::launch", "::run")
    assert upload(client_for(api_user()), renamed.encode(), name="solution.json").status_code == 201


@pytest.mark.parametrize("source", [
    factories.CORRECT,
    "from torch import add as run\n",
    "import torch\ntry:\n    import fast\n    run = fast.run\nexcept ImportError:\n    def run(x, bias):\n"
    "        return x * 2.0 + bias[None, :]\n",
])
def test_run_bound_at_the_top_level_in_any_way_is_taken(problem: Problem, cpu: Hardware, source: str) -> None:
    assert upload(client_for(api_user()), source.encode(), name="kernel.py").status_code == 201


def test_the_form_shows_the_problem_and_stores_nothing(problem: Problem, cpu: Hardware,
                                                       client: Client) -> None:
    client.force_login(factories.make_user())
    response = client.post("/submit/", {"problem": problem.slug, "hardware": ["cpu"], "language": "",
                                        "file": SimpleUploadedFile("kernel.py", BROKEN.encode())})
    assert response.status_code == 400
    assert "kernel.py:4:" in response.content.decode()
    pasted = client.post("/submit/", {"problem": problem.slug, "hardware": ["cpu"], "language": "",
                                      "code": NO_RUN})
    assert pasted.status_code == 400 and "defines no run(...)" in pasted.content.decode()
    assert not Submission.objects.exists()


def test_cuda_sources_are_not_read_as_python(problem: Problem) -> None:
    kernel = "#include <torch/extension.h>\ntorch::Tensor run(torch::Tensor x) { return x * 2; }\n"
    spec = {"entry_point": "k.cu::run", "languages": ["cuda_cpp"]}
    text = json.dumps({"name": "s", "spec": spec, "sources": [{"path": "k.cu", "content": kernel}]})
    services.check_solution(problem, SolutionFiles.from_solution_json(text))  # refuses nothing


def test_the_check_never_runs_the_source(problem: Problem, cpu: Hardware) -> None:
    source = "open('/tmp/solarena-intake-ran', 'w').write('ran')\n\ndef forward(x):\n    return x\n"
    response = post_sources(client_for(api_user()), {"solution.py": source})
    assert response.status_code == 400
    assert not os.path.exists("/tmp/solarena-intake-ran")
    assert client_for(api_user()).get(SUBMISSIONS).json()["count"] == 0
