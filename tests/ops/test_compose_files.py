"""docker-compose.yml and docker-compose.gpu.yml, read as Compose would (YAML, merge keys, ${...}
from the environment): every service's command names a real management command, Celery app,
queue or WSGI application, every variable is a documented setting, the GPU workers follow the
pinning plan, and the web service's environment passes the deploy check. No Docker engine or
Compose runs on the test machines; `docker compose config` is run where Compose is installed."""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import get_commands

from evaluator.gpus import parse_device_list, plan_workers
from evaluator.scoring.hardware import HARDWARE
from tests.conftest import ROOT
from tests.ops.support import base_env, manage

BASE, GPU = ROOT / "docker-compose.yml", ROOT / "docker-compose.gpu.yml"
VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}")
# Read by the tools the services run, not by solarena's settings.
EXTERNAL = {"TMPDIR", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "WEB_CONCURRENCY", "POSTGRES_USER",
            "POSTGRES_DB", "POSTGRES_PASSWORD"}
ENV = {"SECRET_KEY": secrets.token_urlsafe(50), "SOLARENA_HIDDEN_SECRET": secrets.token_urlsafe(24),
       "SOLARENA_HOST": "solarena.example.org", "POSTGRES_PASSWORD": "pw",
       "DATABASE_URL": "postgres://solarena:pw@postgres:5432/solarena", "SOLARENA_GPU_HARDWARE": "h200",
       "SOLARENA_NODE": "gpuhost1"}


def interpolate(value: Any, env: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        given = env.get(name)
        if op and op.endswith("?") and not given:
            raise KeyError(f"{name} is required: {arg}")
        if op and op.endswith("-") and not given:
            return arg
        return given or ""

    return VARIABLE.sub(one, value)


def services(*files: Path, env: dict[str, str] = ENV) -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for file in files:
        for name, service in yaml.safe_load(file.read_text())["services"].items():
            merged[name] = {**merged.get(name, {}), **service}
    return interpolate(merged, env)


def documented_settings() -> set[str]:
    table = (ROOT / "docs" / "configuration.md").read_text()
    return set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)`", table, flags=re.MULTILINE))


ALL = services(BASE, GPU)
APP = {name: s for name, s in ALL.items() if name not in ("postgres", "redis", "evaluator")}


def test_the_expected_services_exist() -> None:
    assert {"postgres", "redis", "migrate", "web", "sweeper", "worker-cpu", "evaluator"} <= set(ALL)
    assert {f"gpu{i}" for i in range(8)} <= set(ALL)
    for name, service in ALL.items():
        for dependency in service.get("depends_on", {}):
            assert dependency in ALL, (name, dependency)
        build = service.get("build")
        if build:
            assert (ROOT / build["context"] / build["dockerfile"]).is_file(), name


def test_every_variable_is_a_documented_setting() -> None:
    known = documented_settings() | EXTERNAL
    for name, service in ALL.items():
        unknown = set(service.get("environment", {})) - known
        assert not unknown, f"{name}: {sorted(unknown)} are not in docs/configuration.md"


def test_required_values_are_refused_when_missing() -> None:
    for missing in ("SECRET_KEY", "SOLARENA_HIDDEN_SECRET", "DATABASE_URL", "SOLARENA_HOST"):
        with pytest.raises(KeyError, match=missing):
            services(BASE, env={k: v for k, v in ENV.items() if k != missing})


def test_commands_name_real_programs() -> None:
    commands = get_commands()
    for name, service in APP.items():
        argv = service.get("command")
        assert argv, f"{name} has no command"
        if argv[0] == "sh":
            steps = [step.split() for step in argv[2].split("&&")]
        else:
            steps = [argv]
        for step in steps:
            if step[:2] == ["python", "manage.py"]:
                assert step[2] in commands, (name, step)
            elif step[0] == "celery":
                assert step[1:4] == ["-A", "solarena.celery", "worker"], (name, step)
                queue = step[step.index("-Q") + 1]
                assert queue.startswith("hw.") and queue[3:] in HARDWARE, (name, queue)
                assert step[step.index("--prefetch-multiplier") + 1] == "1"
            else:
                assert step[:2] == ["gunicorn", "solarena.wsgi:application"], (name, step)
    import solarena.wsgi

    assert callable(solarena.wsgi.application)


def test_gpu_workers_follow_the_pinning_plan() -> None:
    plans = plan_workers(parse_device_list(",".join(map(str, range(8)))), "h200", ENV["SOLARENA_NODE"])
    for plan in plans:
        service = ALL[f"gpu{plan.gpu.index}"]
        assert service["command"] == ["celery", *plan.argv[3:-2]]  # the plan's, without python -m, loglevel
        assert {k: service["environment"][k] for k in plan.env} == dict(plan.env)
        assert service["environment"]["SOLARENA_SANDBOX"] == "docker"
    gpu_env = {k: v for k, v in ALL["gpu0"]["environment"].items() if not k.startswith("CUDA_")}
    assert gpu_env == ALL["worker-cpu"]["environment"]  # the same settings as the CPU worker
    assert [s.get("profiles") for s in (ALL[f"gpu{i}"] for i in range(8))] == [None] * 4 + [["gpus-8"]] * 4


def test_workers_have_time_to_drain() -> None:
    minutes = int(ALL["worker-cpu"]["stop_grace_period"].removesuffix("m"))
    assert minutes * 60 > 1800  # SOLARENA_EVAL_SECONDS' default: an evaluation ends before KILL
    assert all(ALL[f"gpu{i}"]["stop_grace_period"] == ALL["worker-cpu"]["stop_grace_period"]
               for i in range(8))


def test_the_web_environment_passes_the_deploy_check() -> None:
    env = base_env(**{k: v for k, v in ALL["web"]["environment"].items() if k != "DATABASE_URL"})
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_web_image_runs_what_compose_runs() -> None:
    dockerfile = (ROOT / "docker" / "web.Dockerfile").read_text()
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, flags=re.MULTILINE)
    assert cmd and yaml.safe_load(cmd[1]) == ALL["web"]["command"]
    assert "collectstatic" in dockerfile
    for source in re.findall(r"^COPY (\S+) ", dockerfile, flags=re.MULTILINE):
        assert source == "." or (ROOT / source).exists(), source


@pytest.mark.skipif(subprocess.run(["docker", "compose", "version"], capture_output=True).returncode != 0
                    if shutil.which("docker") else True, reason="Docker Compose is not installed here")
def test_compose_accepts_both_files(tmp_path: Path) -> None:
    result = subprocess.run(["docker", "compose", "-f", str(BASE), "-f", str(GPU), "--profile", "gpus-8",
                             "config", "--quiet"], env={**ENV, "PATH": "/usr/bin:/bin:/usr/local/bin"},
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
