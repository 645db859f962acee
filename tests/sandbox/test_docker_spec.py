"""The docker backend: the container it asks for (always checked, no engine needed), the evaluator
image's Dockerfile, and real containers where a Docker engine is reachable."""

from __future__ import annotations

import os
import re
import socket
import struct
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from sandbox import Limits, RunResult, get_backend
from sandbox.docker_backend import DockerBackend, DockerUnavailable, container_spec, default_user
from tests.conftest import ROOT
from tests.sandbox.backends import DOCKER_IMAGE, require

ARGV = ["python", "-m", "evaluator.harness", "/jobs/j1"]
ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/jobs/j1", "PYTHONUNBUFFERED": "1"}
LIMITS = Limits(wall_seconds=60, cpu_seconds=120.5, memory_bytes=8 << 30, max_processes=64,
                max_open_files=2048)
DOCKERFILE = ROOT / "docker" / "evaluator.Dockerfile"


def spec(job: Path, *, env: dict[str, str] | None = None, gpus: list[str] | None = None,
         limits: Limits = LIMITS, stdin: bool = False) -> dict[str, Any]:
    return container_spec(ARGV, job, limits, ENV if env is None else env, gpus or [],
                          "solarena-evaluator:test", "65534:65534", stdin=stdin)


def test_no_network_read_only_root_and_no_privileges(tmp_path: Path) -> None:
    s = spec(tmp_path)
    assert s["network_mode"] == "none"
    assert s["read_only"] is True
    assert s["cap_drop"] == ["ALL"]
    assert "no-new-privileges" in s["security_opt"]
    assert not s.get("privileged")
    assert "cap_add" not in s and "devices" not in s


def test_a_size_limited_tmp_that_may_hold_built_libraries(tmp_path: Path) -> None:
    options = spec(tmp_path)["tmpfs"]["/tmp"].split(",")
    assert any(re.fullmatch(r"size=\d+", option) for option in options)
    assert "noexec" not in options


def test_memory_files_are_sized_to_the_memory_limit(tmp_path: Path) -> None:
    """As under bubblewrap: /tmp and /dev/shm may fill the whole limit, so a hoard there ends the
    run as the memory limit rather than stopping quietly at a size of their own."""
    limited = spec(tmp_path)
    assert limited["tmpfs"]["/tmp"].startswith(f"size={8 << 30},")
    assert limited["shm_size"] == 8 << 30
    unlimited = spec(tmp_path, limits=Limits(wall_seconds=60))
    assert unlimited["tmpfs"]["/tmp"].startswith(f"size={1 << 30},")
    assert unlimited["shm_size"] == 4 << 30


def test_runs_as_a_non_root_user(tmp_path: Path) -> None:
    user = spec(tmp_path)["user"]
    assert user.split(":")[0] not in ("", "0", "root")
    with pytest.raises(ValueError, match="root"):
        container_spec(ARGV, tmp_path, LIMITS, ENV, [], "image", "0:0")
    assert default_user().split(":")[0] != "0"


def test_limits_become_cgroup_limits_and_rlimits(tmp_path: Path) -> None:
    s = spec(tmp_path)
    assert s["mem_limit"] == LIMITS.memory_bytes
    assert s["memswap_limit"] == LIMITS.memory_bytes
    # The pids cgroup counts threads as well: at least the process limit, a hard stop on tasks.
    assert LIMITS.max_processes <= s["pids_limit"] <= 64 * LIMITS.max_processes
    assert s["nano_cpus"] > 0
    ulimits = {u.name: (u.soft, u.hard) for u in s["ulimits"]}
    assert ulimits["nofile"] == (2048, 2048)
    assert ulimits["cpu"] == (121, 121)


def test_under_cgroup_v1_the_container_is_held_at_its_memory_limit(tmp_path: Path) -> None:
    # Held, not a process killed: the supervisor ends the whole run, naming the limit.
    held = container_spec(ARGV, tmp_path, LIMITS, ENV, [], "image", "65534:65534", hold_at_memory_limit=True)
    assert held["oom_kill_disable"] is True
    assert "oom_kill_disable" not in spec(tmp_path)
    unlimited = Limits(wall_seconds=10)
    assert "oom_kill_disable" not in container_spec(ARGV, tmp_path, unlimited, ENV, [], "image", "1:1",
                                                    hold_at_memory_limit=True)


def test_unset_limits_are_left_out(tmp_path: Path) -> None:
    s = spec(tmp_path, limits=Limits(wall_seconds=10, max_open_files=None))
    assert "mem_limit" not in s and "memswap_limit" not in s and "pids_limit" not in s
    assert s["ulimits"] == []


def test_only_the_job_directory_is_mounted_at_its_own_path(tmp_path: Path) -> None:
    job = tmp_path / "job"
    (job / "problem").mkdir(parents=True)
    s = spec(job)
    assert s["volumes"][str(job)] == {"bind": str(job), "mode": "rw"}
    assert s["volumes"][str(job / "problem")] == {"bind": str(job / "problem"), "mode": "ro"}
    assert set(s["volumes"]) == {str(job), str(job / "problem")}
    assert "mounts" not in s and "volumes_from" not in s


def test_the_working_directory_is_the_read_only_root_not_the_job(tmp_path: Path) -> None:
    # A trusted interpreter must not find code the solution planted in its working directory.
    s = spec(tmp_path / "job")
    assert s["working_dir"] == "/" and s["read_only"] is True


def test_the_environment_is_the_jobs_and_no_host_secret(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://solarena:leaked@db/solarena")
    monkeypatch.setenv("SECRET_KEY", "leaked-secret-key")
    environment = spec(tmp_path, gpus=["3"])["environment"]
    assert environment == {**ENV, "CUDA_VISIBLE_DEVICES": "0"}
    assert "leaked" not in repr(environment)


def test_the_gpus_are_requested_by_id_and_renumbered_inside(tmp_path: Path) -> None:
    s = spec(tmp_path, env={**ENV, "CUDA_VISIBLE_DEVICES": "2,5"}, gpus=["2", "5"])
    [request] = s["device_requests"]
    assert request["DeviceIDs"] == ["2", "5"]
    assert request["Capabilities"] == [["gpu"]]
    assert not request["Count"]  # no "all GPUs" request
    assert s["environment"]["CUDA_VISIBLE_DEVICES"] == "0,1"


def test_no_gpu_without_gpus(tmp_path: Path) -> None:
    s = spec(tmp_path, env={**ENV, "CUDA_VISIBLE_DEVICES": ""})
    assert not s.get("device_requests")
    assert s["environment"]["NVIDIA_VISIBLE_DEVICES"] == "void"  # not the image's "all"
    assert s["environment"]["CUDA_VISIBLE_DEVICES"] == ""


def test_argv_is_the_whole_command_and_jobs_are_labelled(tmp_path: Path) -> None:
    s = spec(tmp_path)
    assert s["command"] == ARGV
    assert s["entrypoint"] == []
    assert s["init"] is False  # the harness is PID 1: signals from inside cannot kill it
    assert s["labels"]["solarena"] == "evaluation"
    assert s["stdin_open"] is False
    assert spec(tmp_path, stdin=True)["stdin_open"] is True


def _instructions() -> list[str]:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_image_holds_the_harness_only() -> None:
    instructions = _instructions()
    copied = [line.split()[1:-1] for line in instructions if line.upper().startswith(("COPY", "ADD"))]
    assert copied and all(src in (["evaluator/__init__.py"], ["evaluator/harness/"]) for src in copied)
    for word in ("django", "settings", "manage.py", "leaderboard", "submissions", "secret", ".env"):
        assert not any(word in line.lower() for line in instructions), word


def test_the_image_runs_as_a_non_root_user_with_no_entrypoint() -> None:
    instructions = _instructions()
    users = [line.split()[1] for line in instructions if line.upper().startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("0", "root")
    assert all(line == "ENTRYPOINT []" for line in instructions if line.upper().startswith("ENTRYPOINT"))
    assert any(line.startswith("ENV PYTHONPATH=") for line in instructions)


# The run loop against a stand-in engine: one attach socket carrying the multiplexed streams.


class FakeContainer:
    """Reads its stdin to the end, then behaves as told: "echo", "hang" (until killed) or "oom"."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour, self.status, self.removed = behaviour, "created", False
        self.attrs: dict[str, Any] = {"State": {"OOMKilled": False}}
        self.code = 0
        self.ours, self.theirs = socket.socketpair()
        self.killed = threading.Event()

    def attach_socket(self, params: dict[str, int]) -> socket.socket:
        return self.ours

    def start(self) -> None:
        self.status = "running"
        threading.Thread(target=self._main, daemon=True).start()

    def _main(self) -> None:
        data = b""
        while chunk := self.theirs.recv(65536):
            data += chunk
        self._send(1, data.upper())
        self._send(2, b"a warning")
        if self.behaviour == "hang":
            self.killed.wait()
            self.code = 137
        elif self.behaviour == "oom":
            self.attrs["State"]["OOMKilled"], self.code = True, 137
        self.theirs.close()
        self.status = "exited"

    def _send(self, stream: int, data: bytes) -> None:
        self.theirs.sendall(struct.pack(">BxxxL", stream, len(data)) + data)

    def reload(self) -> None:
        pass

    def top(self) -> dict[str, Any]:
        return {"Processes": [["python"]]}

    def kill(self) -> None:
        self.killed.set()

    def wait(self) -> dict[str, int]:
        while self.status != "exited":
            time.sleep(0.01)
        return {"StatusCode": self.code}

    def remove(self, force: bool = False) -> None:
        self.removed = force


class FakeClient:
    def __init__(self, behaviour: str) -> None:
        self.behaviour, self.specs, self.created = behaviour, [], []
        self.images = SimpleNamespace(get=lambda image: None)
        self.containers = SimpleNamespace(create=self._create)

    def _create(self, **spec: Any) -> FakeContainer:
        self.specs.append(spec)
        self.created.append(FakeContainer(self.behaviour))
        return self.created[-1]


def fake_run(tmp_path: Path, behaviour: str, limits: Limits = LIMITS,
             **kwargs: Any) -> tuple[RunResult, FakeClient]:
    client = FakeClient(behaviour)
    backend = DockerBackend(image="fake", client=client)  # type: ignore[arg-type]
    result = backend.run(ARGV, tmp_path, limits, {**ENV, "CUDA_VISIBLE_DEVICES": "1"},
                         stdin_data=b"spec", **kwargs)
    return result, client


def test_run_feeds_stdin_and_splits_the_streams(tmp_path: Path) -> None:
    result, client = fake_run(tmp_path, "echo")
    assert result.ok and result.stdout == "SPEC" and result.stderr == "a warning"
    assert client.specs[0]["stdin_open"] is True
    assert client.specs[0]["device_requests"][0]["DeviceIDs"] == ["1"]  # the job's GPU
    assert client.created[0].removed


def test_run_writes_stdout_to_the_file_live(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_bytes(b"earlier|")
    result, _ = fake_run(tmp_path, "echo", stdout_path=path)
    assert result.ok and result.stdout == ""
    assert path.read_bytes() == b"earlier|SPEC"


def test_run_kills_at_the_wall_clock_and_removes_the_container(tmp_path: Path) -> None:
    result, client = fake_run(tmp_path, "hang", Limits(wall_seconds=0.5))
    assert result.ended_by == "timeout" and result.signal == 9 and result.exit_code is None
    assert client.created[0].killed.is_set() and client.created[0].removed


def test_run_reports_the_memory_limit_on_an_oom_kill(tmp_path: Path) -> None:
    result, _ = fake_run(tmp_path, "oom")
    assert result.ended_by == "memory"
    assert result.reason == "the memory limit of 8 GiB was reached"


def test_a_missing_engine_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with pytest.raises(DockerUnavailable, match="no Docker engine is reachable"):
        get_backend("docker")


# Real containers of the CPU evaluator image: only where an engine answers and the image is built
# (tests/sandbox/backends.py; scripts/test makes both where it can).


@pytest.fixture(scope="module")
def backend() -> DockerBackend:
    require("docker")
    return DockerBackend(image=DOCKER_IMAGE, gpus=[])


@pytest.fixture
def job(tmp_path: Path) -> Path:
    job = tmp_path / "job"
    job.mkdir()
    job.chmod(0o777)  # the container's user is the worker's, or nobody under a root worker
    return job


PY_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp"}


def python(code: str) -> list[str]:
    return ["python", "-c", code]


def test_stdin_goes_in_and_stdout_comes_out(backend: DockerBackend, job: Path) -> None:
    result = backend.run(python("import sys; sys.stdout.write(sys.stdin.read().upper())"), job,
                         Limits(wall_seconds=60), PY_ENV, stdin_data=b"hello spec")
    assert result.ok, result.stderr
    assert result.stdout == "HELLO SPEC"


def test_stdout_to_a_file_appends(backend: DockerBackend, job: Path, tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("earlier\n")
    result = backend.run(python("print('later')"), job, Limits(wall_seconds=60), PY_ENV, stdout_path=path)
    assert result.ok, result.stderr
    assert path.read_text() == "earlier\nlater\n"
    assert result.stdout == ""


def test_the_cage_from_inside(backend: DockerBackend, job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", "must-not-leak")
    probe = (
        "import os, socket\n"
        "s = socket.socket(); s.settimeout(3)\n"
        "assert s.connect_ex(('1.1.1.1', 53)) != 0, 'network'\n"
        "assert os.getuid() != 0, 'root'\n"
        "assert 'SECRET_KEY' not in os.environ, 'secret'\n"
        "try:\n    open('/usr/escape', 'w'); raise SystemExit('root filesystem writable')\n"
        "except OSError: pass\n"
        "try:\n    open('planted.py', 'w'); raise SystemExit('working directory writable')\n"
        "except OSError: pass\n"
        f"open({str(job / 'inside.txt')!r}, 'w').write('ok')\n"
        "open('/tmp/scratch', 'w').write('ok')\n"
    )
    result = backend.run(python(probe), job, Limits(wall_seconds=60), PY_ENV)
    assert result.ok, result.stderr
    assert (job / "inside.txt").read_text() == "ok"


def test_memory_past_the_limit(backend: DockerBackend, job: Path) -> None:
    result = backend.run(python("b = b'x' * (1 << 30)"), job,
                         Limits(wall_seconds=60, memory_bytes=128 << 20), PY_ENV)
    assert result.ended_by == "memory", (result, result.stderr)
    assert "128 MiB" in result.reason


def test_wall_clock_limit(backend: DockerBackend, job: Path) -> None:
    started = time.monotonic()
    result = backend.run(python("import time; time.sleep(600)"), job, Limits(wall_seconds=2), PY_ENV)
    assert result.ended_by == "timeout"
    assert "2 s" in result.reason
    assert time.monotonic() - started < 30


def test_watchdog_ends_it(backend: DockerBackend, job: Path) -> None:
    result = backend.run(python("import time; time.sleep(600)"), job, Limits(wall_seconds=60), PY_ENV,
                         watchdog=lambda: True)
    assert result.ended_by == "watchdog"
    assert result.signal == 9


def test_no_container_is_left_behind(backend: DockerBackend, job: Path) -> None:
    backend.run(python("pass"), job, Limits(wall_seconds=60), PY_ENV)
    left = backend.client.containers.list(all=True, filters={"label": f"solarena.job-dir={job.resolve()}"})
    assert left == []


def test_a_root_worker_hands_the_job_directory_to_the_container_user(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root worker changes ownership")
    from sandbox.docker_backend import hand_over

    job = tmp_path / "job"
    (job / "solution").mkdir(parents=True)
    (job / "solution" / "s.py").write_text("x = 1\n")
    hand_over(job, "65534:65534")
    assert {p.stat().st_uid for p in [job, *job.rglob("*")]} == {65534}
