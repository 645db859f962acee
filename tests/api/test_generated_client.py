"""A client generated from the live OpenAPI schema with openapi-python-client works as people use
it: it imports, lists problems, submits JSON sources, uploads a file, polls a submission and
reads the board. The JSON body and the file upload are two operations with one request body each,
so the generated code for both is sound."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from accounts.services import create_token
from evaluator import services as evaluations
from evaluator.models import Evaluation
from tests.platform import factories

PACKAGE = "solarena_generated_client"


def _generate(server: str, target: Path) -> None:
    schema = target / "schema.json"
    served = httpx.get(f"{server}/api/v1/schema/?format=json", timeout=30).raise_for_status()
    schema.write_bytes(served.content)
    bin_dir = str(Path(sys.executable).parent)  # the generator formats its output with ruff from here
    done = subprocess.run([sys.executable, "-m", "openapi_python_client", "generate", "--path", str(schema),
                           "--meta", "none", "--output-path", str(target / PACKAGE)],
                          capture_output=True, text=True, timeout=300, cwd=target,
                          env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}")


@pytest.fixture
def generated(live_server: Any, transactional_db: Any, tmp_path: Path,
              monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(evaluations, "send", lambda *args, **kwargs: None)  # no broker here
    _generate(live_server.url, tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for loaded in [m for m in sys.modules if m.startswith(PACKAGE)]:
        del sys.modules[loaded]
    return live_server.url


def test_the_generated_client_lists_submits_uploads_polls_and_reads_the_board(generated: str) -> None:
    user, problem = factories.make_user("ada"), factories.make_problem()
    factories.make_hardware("cpu")
    _, token = create_token(user, "generated client")
    client = _module("client").AuthenticatedClient(base_url=generated, token=token)
    models, types = _module("models"), _module("types")
    submissions = "api.submissions."

    listed = _module("api.problems.problems_list").sync(client=client)
    assert [p.name for p in listed.results] == [problem.name]

    body = models.SubmissionSourcesRequest(
        problem=problem.name, hardware=["cpu"], language=models.LanguageEnum("python"),
        sources=models.SubmissionSourcesRequestSources.from_dict({"solution.py": factories.CORRECT}),
        entry="solution.py")
    sent = _module(submissions + "submissions_create").sync(client=client, body=body)
    assert sent.problem == problem.name and [e.hardware for e in sent.evaluations] == ["cpu"]

    upload = models.SubmissionUploadRequest(
        problem=problem.name, hardware=["cpu"], language=models.LanguageEnum("python"),
        file=types.File(payload=io.BytesIO(factories.CORRECT.encode()), file_name="solution.py"))
    uploaded = _module(submissions + "submissions_upload_create").sync(client=client, body=upload)
    assert uploaded.id != sent.id and uploaded.entry == "solution.py"

    evaluation = Evaluation.objects.get(submission_id=uploaded.id)
    assert evaluations.claim(evaluation.pk, "worker-a") is not None
    assert evaluations.ingest(evaluation.pk, "worker-a", factories.fake_report(evaluation, score=0.7))
    polled = _module(submissions + "submissions_retrieve").sync(client=client, id=uploaded.id)
    assert polled.evaluations[0].state == "scored" and polled.evaluations[0].score == pytest.approx(0.7)

    board = _module("api.leaderboards.leaderboards_retrieve").sync(problem.name, "cpu", client=client)
    entries = [(e.user, e.score, e.submission) for e in board.entries]
    assert entries == [("ada", pytest.approx(0.7), uploaded.id)]
