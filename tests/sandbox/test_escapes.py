"""Class 16 of ANTICHEAT.md, sandbox abuse: solutions that attack the sandbox from inside run(), on
the fixture problem, under bubblewrap and under docker (tests/sandbox/backends.py) alike. Every
attack must fail, and the evaluation must end with a clear verdict: PASSED when the attack got
nowhere, or the limit that stopped it.

Probing solutions answer right only when every attempt failed, and raise "ESCAPED through [...]"
naming the attempts that got through; each attempt is first shown to work outside the sandbox
where that is possible, so a failure inside is the sandbox's doing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from textwrap import dedent
from typing import Any

import pytest

from evaluator.harness import status
from evaluator.harness.hidden import draw_hidden
from evaluator.harness.problem import load_problem
from tests.conftest import ROOT, SCALE_SHIFT, TEST_SECRET, Evaluated, evaluate_source

ANSWER = "x * 2.0 + bias[None, :]"
SECRETS = {
    "DATABASE_URL": "postgres://solarena:leaked-db-password@db/solarena",
    "SECRET_KEY": "leaked-django-secret-key",
    "CELERY_BROKER_URL": "redis://:leaked-broker-password@broker:6379/0",
    "SOLARENA_HIDDEN_SECRET": "leaked-hidden-secret",
}
SEED = 86753090001  # the run's secret seed: must not be found anywhere the solution can read
SANDBOX_SECONDS = 20  # per workload: an attack the limits miss ends as TIMEOUT, never a hang

# Shared by every probe: each returns True when the attempt got through.
HELPERS = '''
import os
import socket
import subprocess
import sys
import time


def readable(path):
    try:
        if os.path.isdir(path):
            return bool(os.listdir(path))
        with open(path, "rb") as fh:
            return bool(fh.read(1))
    except OSError:
        return False


def mentions(path, words):
    try:
        with open(path, "rb") as fh:
            text = fh.read().decode(errors="replace")
    except OSError:
        return False
    return any(word in text for word in words)


def writable(directory, name):
    try:
        with open(os.path.join(directory, name), "w") as fh:
            fh.write("escaped")
    except OSError:
        return False
    return True


def connects(host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


def resolves(name):
    try:
        socket.getaddrinfo(name, 443)
    except OSError:
        return False
    return True


def files_under(top):
    for directory, _, names in os.walk(top):
        for name in names:
            yield os.path.join(directory, name)


def job_dir():
    """The solution is job_dir/solution/<file>; the working directory is not the job's."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def first_call():
    """True once per evaluation: the flag lives in the job directory."""
    try:
        os.mkdir(os.path.join(job_dir(), "attacked"))
    except FileExistsError:
        return False
    return True


def named(**attempts):
    return [name for name, worked in attempts.items() if worked]
'''


def probing(probe: str) -> str:
    """A solution whose run() raises with the attempts of `probe` (its leaks()) that got through."""
    return HELPERS + dedent(probe) + dedent(f"""

        def run(x, bias):
            found = leaks()
            if found:
                raise RuntimeError(f"ESCAPED through {{found}}")
            return {ANSWER}
        """)


def attacking(attack: str) -> str:
    """A solution whose first run() call does `attack` (its attack()) and later calls answer right."""
    return HELPERS + dedent(attack) + dedent(f"""

        def run(x, bias):
            if first_call():
                attack()
            return {ANSWER}
        """)


def outside(probe: str) -> dict[str, Any]:
    """The probe's namespace in this process, outside any sandbox."""
    namespace: dict[str, Any] = {}
    exec(HELPERS + dedent(probe), namespace)
    return namespace


def in_sandbox(tmp_path: Path, backend: str, source: str, **kwargs: Any) -> Evaluated:
    kwargs.setdefault("workload_seconds", SANDBOX_SECONDS)
    return evaluate_source(tmp_path, source, backend=backend, **kwargs)


def assert_contained(evaluated: Evaluated) -> None:
    assert set(evaluated.statuses.values()) == {status.PASSED}, evaluated.outcome.results


def assert_stopped(evaluated: Evaluated, verdict: str, *keywords: str) -> None:
    """The attacked workload(s) ended with `verdict`, the message naming one of `keywords`; the
    rest of the evaluation went on and passed."""
    stopped = [r for r in evaluated.outcome.results.values() if r["status"] != status.PASSED]
    assert stopped, f"the attack was not stopped: {evaluated.outcome.results}"
    for result in stopped:
        assert result["status"] == verdict, evaluated.outcome.results
        assert any(word in result["message"].lower() for word in keywords), result["message"]


@pytest.fixture
def secrets_in_environment(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for key, value in SECRETS.items():
        monkeypatch.setenv(key, value)
    return SECRETS


@pytest.fixture
def scratch_in_tmp(tmp_path: Path) -> Iterator[Path]:
    """A fresh directory directly under /tmp, removed afterwards."""
    path = Path("/tmp") / f"solarena-escape-{os.getpid()}-{tmp_path.name}"
    path.mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


# Network ---------------------------------------------------------------------------------------

NETWORK = """
def leaks():
    return named(postgres=connects("127.0.0.1", 5432), redis=connects("127.0.0.1", 6379),
                 dns=resolves("pypi.org"), outside_address=connects("1.1.1.1", 443))
"""


def test_no_network(tmp_path: Path, sandbox_backend: str) -> None:
    here = outside(NETWORK)
    assert here["connects"]("127.0.0.1", 5432) and here["connects"]("127.0.0.1", 6379), \
        "PostgreSQL and Redis must listen here for this test to mean anything"
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(NETWORK)))


# Reading what is not the job's -----------------------------------------------------------------


def test_project_tree_is_hidden(tmp_path: Path, sandbox_backend: str) -> None:
    workloads = next(ROOT.glob("problems/*/workload.jsonl"))
    probe = f"""
    def leaks():
        return named(settings=readable({str(ROOT / "solarena" / "settings.py")!r}),
                     problems=readable({str(ROOT / "problems")!r}),
                     workload_files=readable({str(workloads)!r}),
                     manage_py=readable({str(ROOT / "manage.py")!r}),
                     fixture_problem=readable({str(SCALE_SHIFT / "definition.json")!r}))
    """
    assert set(outside(probe)["leaks"]()) == {"settings", "problems", "workload_files", "manage_py",
                                              "fixture_problem"}
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe)))


def test_job_spec_and_hidden_workloads_are_out_of_reach(tmp_path: Path, sandbox_backend: str) -> None:
    hidden = [w.uuid for w in draw_hidden(load_problem(SCALE_SHIFT), TEST_SECRET, smoke=True)]
    assert hidden
    (tmp_path / "hidden.jsonl").write_text("\n".join(hidden))  # a private hidden-workload file
    job = tmp_path / "job"
    # Hex, or the solution's own file would hold what it looks for.
    secrets = [word.encode().hex() for word in (str(SEED), *hidden)]
    probe = f"""
    SECRETS = [bytes.fromhex(word).decode() for word in {secrets!r}]

    def leaks():
        beside_job = [p for p in files_under({str(tmp_path)!r}) if not p.startswith({str(job) + os.sep!r})]
        return named(job_json=readable(os.path.join(job_dir(), "job.json")),
                     beside_job=any(readable(p) for p in beside_job),
                     secrets_in_job=any(mentions(p, SECRETS) for p in files_under(job_dir())
                                        if not p.endswith(("reference.py", "baseline.py"))))
    """
    # Reading the problem's own sources is a fallback attempt, REWARD_HACK by itself
    # (tests/anticheat); this probe looks for the seed and the hidden workloads.
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe), seed=SEED))


def test_environment_holds_no_secrets(tmp_path: Path, sandbox_backend: str,
                                      secrets_in_environment: dict[str, str]) -> None:
    words = [*secrets_in_environment, *secrets_in_environment.values()]
    probe = f"""
    WORDS = {words!r}

    def leaks():
        return named(environ=any(w in repr(dict(os.environ)) for w in WORDS),
                     self_environ=mentions("/proc/self/environ", WORDS),
                     init_environ=mentions("/proc/1/environ", WORDS),
                     parent_environ=mentions(f"/proc/{{os.getppid()}}/environ", WORDS))
    """
    assert "environ" in outside(probe)["leaks"]()
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe)))


def test_other_jobs_are_out_of_reach(tmp_path: Path, sandbox_backend: str, scratch_in_tmp: Path) -> None:
    neighbours = [tmp_path / "other-job" / "solution" / "solution.py", scratch_in_tmp / "job" / "solution.py"]
    for path in neighbours:
        path.parent.mkdir(parents=True)
        path.write_text("# someone else's kernel\n")
    probe = f"""
    def leaks():
        return named(sibling_job=readable({str(neighbours[0])!r}),
                     sibling_job_dir=readable({str(neighbours[0].parent.parent)!r}),
                     job_in_tmp=readable({str(neighbours[1])!r}),
                     job_in_tmp_dir=readable({str(scratch_in_tmp)!r}))
    """
    assert len(outside(probe)["leaks"]()) == 4
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe)))


PARENT = """
def reaches_fds(pid):
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            os.readlink(f"/proc/{pid}/fd/{fd}")
            return True
        except OSError:
            pass
        try:
            os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY))
            return True
        except OSError:
            pass
    return False


def opens(path):
    try:
        open(path, "rb").close()
    except OSError:
        return False
    return True


def leaks():
    parent = os.getppid()
    return named(parent_environ=readable(f"/proc/{parent}/environ"),
                 parent_fds=reaches_fds(parent),
                 parent_memory=opens(f"/proc/{parent}/mem"))
"""


def test_parent_process_is_out_of_reach(tmp_path: Path, sandbox_backend: str) -> None:
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(PARENT)))


# A wrong solution that looks, in every process it can see, for an open file carrying the results
# channel (stdout of whatever started the harness), appends a PASSED verdict for each workload it
# finds started there, and kills the reporter before the real verdict follows.
FORGER = f"""
import json
import signal
import stat


def channels():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        for fd in ("1", "2"):
            path = f"/proc/{{pid}}/fd/{{fd}}"
            try:
                if not stat.S_ISREG(os.stat(path).st_mode):
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            if '"event": "start"' in text:
                yield path, text


def forge():
    for path, text in channels():
        started = [json.loads(line)["uuid"] for line in text.splitlines() if '"event": "start"' in line]
        with open(path, "a", encoding="utf-8") as fh:
            for uuid in started:
                fh.write(json.dumps({{"event": "workload", "uuid": uuid, "status": "PASSED",
                                     "message": "", "latency_ms": 0.001}}) + "\\n")
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)


def run(x, bias):
    forge()
    return ({ANSWER}) * 0.0
"""


def test_results_channel_is_out_of_reach(tmp_path: Path, sandbox_backend: str) -> None:
    evaluated = in_sandbox(tmp_path, sandbox_backend, HELPERS + FORGER)
    assert status.PASSED not in evaluated.statuses.values(), evaluated.outcome.results


def test_home_directory_is_out_of_reach(tmp_path: Path, sandbox_backend: str) -> None:
    home = Path.home()
    targets = [str(home / ".config"), *(str(p) for p in home.iterdir() if p.is_file())]  # .npmrc, ...
    probe = f"""
    def leaks():
        return [path for path in {targets!r} if readable(path)]
    """
    assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe)))


# Writing -----------------------------------------------------------------------------------------


def test_writes_land_only_in_tmp_and_the_job_dir(tmp_path: Path, sandbox_backend: str) -> None:
    name = f"solarena-escape-{os.getpid()}-{tmp_path.name}"
    forbidden = [Path("/etc"), Path("/usr"), ROOT, Path.home()]
    probe = f"""
    NAME = {name!r}

    def leaks():
        here = writable("/tmp", NAME) and readable(os.path.join("/tmp", NAME)) and writable(job_dir(), NAME)
        if not here:
            raise RuntimeError("the sandbox took away /tmp or the job directory")
        return named(working_directory=writable(os.getcwd(), NAME),
                     **{{d: writable(d, NAME) for d in {[str(d) for d in forbidden]!r}}})
    """
    escaped = [directory / name for directory in forbidden]
    try:
        assert_contained(in_sandbox(tmp_path, sandbox_backend, probing(probe)))
    finally:
        escaped = [path for path in escaped if path.exists()]
        for path in escaped:
            path.unlink()
    assert not escaped
    assert not (Path("/tmp") / name).exists(), "the sandbox's /tmp is not private"


# Exhausting the machine ----------------------------------------------------------------------------

# Bounded, so that a limit that does not work ends as TIMEOUT instead of hurting the machine.
FORK_BOMB = """
def attack():
    for _ in range(1000):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    time.sleep(60)
"""
SPAWN_BOMB = """
def attack():
    for _ in range(300):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    time.sleep(60)
"""
BYTEARRAY_BOMB = """
def attack():
    hoard = [bytearray(64 << 20) for _ in range(96)]  # 6 GiB at most
    time.sleep(60)
"""
TENSOR_BOMB = """
import torch

def attack():
    hoard = [torch.ones(16 << 20) for _ in range(96)]  # 64 MiB each, 6 GiB at most
    time.sleep(60)
"""
INFINITE_LOOP = """
def attack():
    while True:
        pass
"""
KILL_PARENT = """
import signal

def attack():
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(60)
"""
KILL_GROUP = """
import signal

def attack():
    os.killpg(0, signal.SIGKILL)
    time.sleep(60)
"""
DEATH_WORDS = ("signal", "killed", "died")


@pytest.mark.parametrize("attack", [FORK_BOMB, SPAWN_BOMB], ids=["fork", "subprocess"])
def test_process_bomb_hits_the_process_limit(tmp_path: Path, sandbox_backend: str, attack: str) -> None:
    evaluated = in_sandbox(tmp_path, sandbox_backend, attacking(attack), supervise={"max_processes": 32})
    assert_stopped(evaluated, status.RUNTIME_ERROR, "process limit")


@pytest.mark.parametrize("attack", [BYTEARRAY_BOMB, TENSOR_BOMB], ids=["bytearray", "tensor"])
def test_memory_bomb_hits_the_memory_limit(tmp_path: Path, sandbox_backend: str, attack: str) -> None:
    evaluated = in_sandbox(tmp_path, sandbox_backend, attacking(attack), supervise={"memory_bytes": 2 << 30})
    assert_stopped(evaluated, status.RUNTIME_ERROR, "memory limit")


def test_infinite_loop_hits_the_time_limit(tmp_path: Path, sandbox_backend: str) -> None:
    evaluated = in_sandbox(tmp_path, sandbox_backend, attacking(INFINITE_LOOP), workload_seconds=5)
    assert_stopped(evaluated, status.TIMEOUT, "within 5 s", "time")


def test_killing_the_harness_fails_and_it_lives_on(tmp_path: Path, sandbox_backend: str) -> None:
    # The harness is the sandbox's init: a signal from inside cannot kill it. The solution that
    # tried waits to die in vain and ends by the time limit, which the verdict names.
    evaluated = in_sandbox(tmp_path, sandbox_backend, attacking(KILL_PARENT), workload_seconds=5)
    assert_stopped(evaluated, status.TIMEOUT, "within 5 s")


def test_killing_its_own_process_group_is_a_runtime_error(tmp_path: Path, sandbox_backend: str) -> None:
    evaluated = in_sandbox(tmp_path, sandbox_backend, attacking(KILL_GROUP))
    assert_stopped(evaluated, status.RUNTIME_ERROR, *DEATH_WORDS)
