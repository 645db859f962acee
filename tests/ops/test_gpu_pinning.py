"""One worker per GPU: the plan from nvidia-smi, CUDA_VISIBLE_DEVICES or an explicit list; and two
real workers of `manage.py start_gpu_workers` (CPU processes standing for GPUs), each reporting the
device it is pinned to, drained gracefully by TERM in the middle of an evaluation."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis

from evaluator.gpus import GpuListError, detect, parse_nvidia_smi, plan_workers
from evaluator.models import Evaluation
from evaluator.tasks import evaluate
from solarena.celery import app
from tests.conftest import ROOT
from tests.ops.support import BROKER_URL, base_env, database_url, inspect, manage, wait_for
from tests.platform import factories
from tests.platform import test_worker_end_to_end as end_to_end

EIGHT_H200 = "".join(f"GPU {i}: NVIDIA H200 (UUID: GPU-{i:08x}-aaaa-bbbb-cccc-{i:012x})\n" for i in range(8))
HOST = "ops-test"
DEADLINE_SECONDS = 120


def test_nvidia_smi_plans_one_pinned_worker_per_gpu() -> None:
    plans = plan_workers(parse_nvidia_smi(EIGHT_H200), "h200", "node7", python="python")
    assert [p.name for p in plans] == [f"gpu{i}@node7" for i in range(8)]
    assert len({p.env["CUDA_VISIBLE_DEVICES"] for p in plans}) == 8
    assert plans[3].env == {"CUDA_VISIBLE_DEVICES": "GPU-00000003-aaaa-bbbb-cccc-000000000003",
                            "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert plans[3].gpu.name == "NVIDIA H200"
    argv = list(plans[3].argv)
    assert argv[:6] == ["python", "-m", "celery", "-A", "solarena.celery", "worker"]
    for flag, expected in (("-Q", "hw.h200"), ("-n", "gpu3@node7"), ("-c", "1"),
                           ("--prefetch-multiplier", "1"), ("-P", "prefork")):
        assert argv[argv.index(flag) + 1] == expected


def test_visible_devices_and_explicit_lists() -> None:
    pinned = plan_workers(detect(environ={"CUDA_VISIBLE_DEVICES": "2,3"}), "h100", "n")
    assert [(p.name, p.env["CUDA_VISIBLE_DEVICES"]) for p in pinned] == [("gpu2@n", "2"), ("gpu3@n", "3")]
    explicit = detect("5", environ={"CUDA_VISIBLE_DEVICES": "2,3"})
    assert [g.device for g in explicit] == ["5"]


@pytest.mark.parametrize(("listing", "message"), [
    ("1,1", "GPU index listed twice: 1"),
    ("0,gpu-zero", "'gpu-zero' is not a GPU index"),
    ("MIG-1234", "'MIG-1234' is not a GPU index"),
])
def test_bad_device_lists_are_refused(listing: str, message: str) -> None:
    with pytest.raises(GpuListError, match=message):
        detect(listing)


def test_a_gpu_in_mig_mode_is_refused() -> None:
    listing = EIGHT_H200[:EIGHT_H200.index("GPU 1")] + "  MIG 1g.18gb     Device  0: (UUID: MIG-abcd-1234)\n"
    with pytest.raises(GpuListError, match="GPU 0 is in MIG mode"):
        parse_nvidia_smi(listing)


def test_the_command_reads_nvidia_smi_and_prints_the_plan(tmp_path: Path) -> None:
    fake = tmp_path / "nvidia-smi"
    fake.write_text(f"#!/bin/sh\nprintf '%s' '{EIGHT_H200[:EIGHT_H200.index('GPU 2')]}'\n")
    fake.chmod(0o755)
    env = base_env(PATH=f"{tmp_path}:/usr/bin:/bin")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    result = manage("start_gpu_workers", "--hardware", "h200", "--hostname", "node1", "--dry-run", "--json",
                    env=env)
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert [(p["name"], p["queue"], p["env"]["CUDA_VISIBLE_DEVICES"]) for p in plan] == [
        ("gpu0@node1", "hw.h200", "GPU-00000000-aaaa-bbbb-cccc-000000000000"),
        ("gpu1@node1", "hw.h200", "GPU-00000001-aaaa-bbbb-cccc-000000000001")]


def test_the_command_names_what_is_wrong() -> None:
    env = base_env(PATH="/nonexistent")
    env.pop("CUDA_VISIBLE_DEVICES", None)
    unknown = manage("start_gpu_workers", "--hardware", "h900", "--gpus", "0", "--dry-run", env=env)
    assert unknown.returncode != 0 and "unknown hardware 'h900'" in unknown.stderr
    nothing = manage("start_gpu_workers", "--hardware", "h200", "--dry-run", env=env)
    assert nothing.returncode != 0 and "nvidia-smi is not on the PATH" in nothing.stderr


@pytest.mark.django_db(transaction=True)
def test_two_pinned_workers_report_their_devices_and_drain(tmp_path: Path) -> None:
    queue, names = "hw.cpu", [f"gpu0@{HOST}", f"gpu1@{HOST}"]
    broker = redis.Redis.from_url(BROKER_URL)
    broker.delete(queue)
    cpu, problem = factories.make_hardware("cpu"), factories.make_problem()
    running = factories.make_evaluation(problem=problem, hardware=cpu)
    left = factories.make_evaluation(problem=problem, hardware=cpu)
    env = base_env(DATABASE_URL=database_url(), **end_to_end.sandbox_env())
    env.pop("CUDA_VISIBLE_DEVICES", None)
    log = tmp_path / "supervisor.log"
    argv = [sys.executable, "manage.py", "start_gpu_workers", "--hardware", "cpu", "--gpus", "0,1",
            "--hostname", HOST]
    with open(log, "wb") as out, app.connection_for_write(BROKER_URL) as connection:
        supervisor = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                      start_new_session=True)
        try:
            wait_for(lambda: len(inspect("ping", names)) == 2, "answer from both workers", log, supervisor)
            pinned = {name: reply["CUDA_VISIBLE_DEVICES"] for name, reply in
                      inspect("pinned_device", names).items()}
            assert pinned == {names[0]: "0", names[1]: "1"}
            assert {n: [q["name"] for q in qs] for n, qs in inspect("active_queues", names).items()} == {
                names[0]: [queue], names[1]: [queue]}
            stats = inspect("stats", names)
            assert all(stats[n]["pool"]["max-concurrency"] == 1 and stats[n]["prefetch_count"] == 1
                       for n in names), stats

            evaluate.apply_async(args=[running.pk], queue=queue, connection=connection)
            wait_for(lambda: Evaluation.objects.get(pk=running.pk).state == Evaluation.RUNNING,
                     "claim", log, supervisor)
            supervisor.send_signal(signal.SIGTERM)
            time.sleep(1)  # the workers stop consuming; this message must wait in the queue
            evaluate.apply_async(args=[left.pk], queue=queue, connection=connection)
            code = supervisor.wait(DEADLINE_SECONDS)
        finally:
            if supervisor.poll() is None:
                supervisor.kill()
                supervisor.wait()
    output = log.read_text()
    assert code == 0, output[-4000:]
    running.refresh_from_db()
    left.refresh_from_db()
    assert running.state == Evaluation.SCORED, f"{running.state} {running.error}\n{output[-4000:]}"
    assert running.attempts == 1 and running.worker.split("/")[0] in names
    assert left.state == Evaluation.QUEUED and left.attempts == 0
    assert broker.llen(queue) == 1  # never delivered: acks_late leaves it for the next worker
    assert "draining" in output and all(f"{n} stopped (code 0)" in output for n in names)
    broker.delete(queue)
