"""A submission without a language gets the one the server infers from its sources
(evaluator.toolchains.infer_language), through the API's upload, JSON body and the browser form
alike; a language given explicitly wins."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from leaderboard.models import Hardware, Problem
from submissions.models import Submission
from tests.api.support import SUBMISSIONS, api_user, client_for
from tests.platform import factories

pytestmark = pytest.mark.django_db
TRITON = "import torch\nimport triton\n\ndef run(x, bias):\n    return x * 2.0 + bias[None, :]\n"
TORCH = factories.CORRECT


def solution_json(sources: dict[str, str], **spec: object) -> str:
    return json.dumps({"name": "s", "spec": {"entry_point": f"{next(iter(sources))}::run", **spec},
                       "sources": [{"path": path, "content": text} for path, text in sources.items()]})


CASES = [
    ("kernel.py", TORCH, "python"),
    ("kernel.py", TRITON, "triton"),
    ("solution.json", solution_json({"k.py": TRITON}), "triton"),
    ("solution.json", solution_json({"k.py": TORCH}, languages=["triton"]), "triton"),
    ("solution.json", solution_json({"k.py": TRITON}, languages=["pytorch"]), "python"),
]
# cuda ("cuda_cpp" in a spec) is inferred the same way, and then refused on the CPU for its toolchain:
# tests/api/test_language_toolchains.py.


@pytest.fixture(autouse=True)
def no_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("evaluator.services.send", lambda *args, **kwargs: None)


@pytest.mark.parametrize(("name", "text", "expected"), CASES)
def test_an_upload_without_a_language_gets_the_inferred_one(problem: Problem, cpu: Hardware, name: str,
                                                            text: str, expected: str) -> None:
    response = client_for(api_user()).post(f"{SUBMISSIONS}upload/", {
        "problem": "scale_shift", "hardware": ["cpu"], "file": SimpleUploadedFile(name, text.encode())},
        format="multipart")
    assert response.status_code == 201, response.json()
    assert response.json()["language"] == expected


def test_json_sources_and_an_explicit_language(problem: Problem, cpu: Hardware) -> None:
    client = client_for(api_user())
    inferred = client.post(SUBMISSIONS, {"problem": "scale_shift", "hardware": ["cpu"],
                                         "sources": {"main.py": TRITON}, "entry": "main.py"}, format="json")
    assert inferred.status_code == 201 and inferred.json()["language"] == "triton"
    chosen = client.post(SUBMISSIONS, {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
                                       "sources": {"main.py": TRITON}, "entry": "main.py"}, format="json")
    assert chosen.status_code == 201 and chosen.json()["language"] == "python"


def test_the_form_infers_it_and_preselects_the_problem(problem: Problem, cpu: Hardware,
                                                       client: Client) -> None:
    client.force_login(factories.make_user())
    page = client.get(f"/submit/?problem={problem.slug}").content.decode()
    assert f'<option value="{problem.slug}" selected>' in page
    assert 'value="" selected>infer it from the sources' in page
    response = client.post("/submit/", {"problem": problem.slug, "hardware": ["cpu"], "language": "",
                                        "file": SimpleUploadedFile("k.py", TRITON.encode())})
    assert response.status_code == 302, response.content[:2000]
    assert Submission.objects.get().language == "triton"


def test_the_problem_page_links_the_form_with_its_problem(problem: Problem, client: Client) -> None:
    client.force_login(factories.make_user())
    page = client.get(f"/problems/{problem.slug}/").content.decode()
    assert f'href="/submit/?problem={problem.slug}"' in page
