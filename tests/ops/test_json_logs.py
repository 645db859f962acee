"""SOLARENA_LOG_FORMAT=json: the web process and a Celery worker write one JSON object per line,
carrying the request id of a request and the task and evaluation ids of a task."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from solarena.celery import app
from tests.conftest import ROOT
from tests.ops.support import BROKER_URL, base_env, database_url, manage

QUEUE = "hw.ops-log-test"


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_a_request_logs_one_json_line_with_its_id() -> None:
    probe = ("from django.test import Client; "
             "r = Client(HTTP_HOST='localhost').get('/livez', HTTP_X_REQUEST_ID='probe-42'); "
             "print(r['X-Request-ID']); "
             "Client(HTTP_HOST='localhost').get('/no-such-page')")
    result = manage("shell", "-c", probe, env=base_env(SOLARENA_LOG_FORMAT="json"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "probe-42"
    lines = json_lines(result.stderr)
    assert lines and len(lines) == len([x for x in result.stderr.splitlines() if x.strip()]), result.stderr
    request = next(x for x in lines if x["logger"] == "solarena.requests" and x["path"] == "/livez")
    assert request["request_id"] == "probe-42" and request["status"] == 200 and request["method"] == "GET"
    assert request["level"] == "INFO" and request["time"].endswith("+00:00")
    missing = [x for x in lines if x["logger"] == "django.request"]
    assert missing and missing[0]["level"] == "WARNING" and "request_id" in missing[0]
    generated = next(x for x in lines if x.get("path") == "/no-such-page")
    assert len(generated["request_id"]) == 32 and generated["status"] == 404


def test_an_unsafe_request_id_is_replaced() -> None:
    probe = ("from django.test import Client; "
             "print(Client(HTTP_HOST='localhost').get('/livez', HTTP_X_REQUEST_ID='a b\"c')['X-Request-ID'])")
    result = manage("shell", "-c", probe, env=base_env())
    rid = result.stdout.strip().splitlines()[-1]
    assert rid != 'a b"c' and len(rid) == 32


@pytest.mark.django_db(transaction=True)
def test_a_worker_logs_json_with_task_and_evaluation_ids(tmp_path: Path) -> None:
    redis.Redis.from_url(BROKER_URL).delete(QUEUE)
    env = base_env(SOLARENA_LOG_FORMAT="json", DATABASE_URL=database_url(), SOLARENA_SANDBOX="none",
                   SOLARENA_TRUSTED_WORKER="1")
    argv = [sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", QUEUE, "-P", "solo",
            "-n", "ops-log-test@%h", "--without-gossip", "--without-mingle"]
    log = tmp_path / "worker.log"
    with open(log, "wb") as out, app.connection_for_write(BROKER_URL) as connection:
        worker = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            app.send_task("evaluator.tasks.evaluate", args=[987654], queue=QUEUE, connection=connection)
            deadline = time.monotonic() + 60
            while "not claimed" not in log.read_text() and time.monotonic() < deadline:
                assert worker.poll() is None, log.read_text()
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(30)
    lines = json_lines(log.read_text())
    ready = [x for x in lines if x["message"].endswith(" ready.")]
    assert ready and ready[0]["logger"] == "celery.apps.worker", log.read_text()
    task = next(x for x in lines if x["logger"] == "evaluator.tasks")
    assert task["evaluation_id"] == 987654 and task["message"].startswith("evaluation #987654")
    assert len(task["task_id"]) == 36
    assert not any(x["logger"] == "evaluator.tasks" and "evaluation_id" not in x for x in lines)
