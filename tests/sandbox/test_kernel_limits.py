"""Limits the kernel enforces (class 32), where the host lets the worker make cgroups
(sandbox/cgroup.py): memory however it is held (a memfd closed while still mapped, which no
watch from outside sees), tasks past the task limit, and a freezer that stops the solution's
side as a unit. The sandboxes run for real on this host (cgroup v1 here, cgroup v2 on the GPU
hosts); what cgroup v2 is given is checked on a stand-in directory."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sandbox import Limits, get_backend
from sandbox.cgroup import ENV, CgroupUnavailable, RunCgroup
from tests.sandbox.backends import require

ENVIRONMENT = {"PATH": "/usr/bin:/bin"}
LIMIT = 1 << 30


@pytest.fixture
def kernel_cgroups() -> None:
    group = RunCgroup.create(Limits(memory_bytes=LIMIT))
    if group is None:
        pytest.skip("this host does not let the worker make cgroups (not root, no delegation)")
    group.remove()


# Holds 1.5 GiB in an anonymous file written through write(), then keeps one page of it mapped
# and closes it: memory in no open file, in no filesystem and in no resident set (but that page).
CLOSED_MEMFD = """
import mmap, os, time
fd = os.memfd_create("hoard")
chunk = b"\\xa5" * (1 << 20)
for _ in range(1536):
    os.write(fd, chunk)
held = mmap.mmap(fd, mmap.PAGESIZE)
os.close(fd)
time.sleep(30)
"""


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_memory_held_where_no_watch_looks_ends_at_the_memory_limit(kernel_cgroups: None, tmp_path: Path,
                                                                   backend: str) -> None:
    require(backend)
    result = get_backend(backend).run([sys.executable, "-c", CLOSED_MEMFD], tmp_path,
                                      Limits(wall_seconds=60, memory_bytes=LIMIT), ENVIRONMENT)
    assert result.ended_by == "memory", (result.ended_by, result.stderr[-2000:])
    assert result.wall_seconds < 30  # ended at the limit, not at the end of its sleep
    assert result.reason == "the memory limit of 1 GiB was reached"


THREADS = """
import threading, time
started = 0
try:
    for _ in range(5000):
        threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
        started += 1
finally:
    print(started, flush=True)
"""


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_no_more_tasks_than_the_task_limit(kernel_cgroups: None, tmp_path: Path, backend: str) -> None:
    require(backend)
    result = get_backend(backend).run([sys.executable, "-c", THREADS], tmp_path,
                                      Limits(wall_seconds=60, memory_bytes=8 << 30), ENVIRONMENT)
    started = int(result.stdout.split()[-1])
    assert started < 4096, result.stdout
    assert "can't start new thread" in result.stderr


FROZEN = """
import os, subprocess, sys, time
sys.path.insert(0, {root!r})
from evaluator.harness.freezer import Freezer

freezer = Freezer.from_environment()
assert freezer is not None and "SOLARENA_FREEZER" not in os.environ
counter = subprocess.Popen([sys.executable, "-c",
                            "import os, sys, time\\nn = 0\\nwhile True:\\n    n += 1\\n"
                            "    if n % 100000 == 0: os.write(1, b'.')"], stdout=subprocess.PIPE)
os.set_blocking(counter.stdout.fileno(), False)
freezer.adopt(counter.pid)
time.sleep(0.3)
freezer.freeze()
counter.stdout.read()
time.sleep(0.5)
while_frozen = counter.stdout.read() or b""
os.kill(counter.pid, 18)  # SIGCONT continues a stopped process, not a frozen one
time.sleep(0.3)
while_frozen += counter.stdout.read() or b""
freezer.thaw()
time.sleep(0.3)
after = counter.stdout.read() or b""
counter.kill()
print(len(while_frozen), len(after))
"""


@pytest.mark.parametrize("backend", ["none", "bubblewrap"])
def test_the_solutions_side_freezes_as_a_unit(kernel_cgroups: None, tmp_path: Path, backend: str) -> None:
    require(backend)
    script = tmp_path / "frozen.py"
    script.write_text(FROZEN.format(root=str(Path(__file__).resolve().parents[2])))
    result = get_backend(backend).run([sys.executable, str(script)], tmp_path,
                                      Limits(wall_seconds=60, memory_bytes=8 << 30), ENVIRONMENT)
    assert result.ok, result.stderr[-3000:]
    while_frozen, after = map(int, result.stdout.split())
    assert while_frozen == 0 and after > 0, result.stdout


@pytest.fixture
def delegated(tmp_path: Path) -> Path:
    """A stand-in for a delegated cgroup v2 directory with the memory and pids controllers."""
    parent = tmp_path / "cgroup"
    parent.mkdir()
    (parent / "cgroup.subtree_control").write_text("cpu memory pids\n")
    return parent


def test_no_cgroups_when_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "off")
    assert RunCgroup.create(Limits(memory_bytes=LIMIT)) is None


def test_a_configured_cgroup_without_the_controllers_is_refused(delegated: Path) -> None:
    (delegated / "cgroup.subtree_control").write_text("cpu pids\n")
    with pytest.raises(CgroupUnavailable, match="memory and pids"):
        RunCgroup.create(Limits(memory_bytes=LIMIT), str(delegated))


def test_under_cgroup_v2_a_run_gets_its_limits_and_a_group_for_the_solution(delegated: Path) -> None:
    group = RunCgroup.create(Limits(memory_bytes=3 << 29), str(delegated), task_limit=512)
    assert group is not None and group.version == 2
    [run] = group.groups
    assert run.parent == delegated and (run / "memory.max").read_text() == str(3 << 29)
    assert (run / "pids.max").read_text() == "512"
    assert group.solution == run / "solution" and group.solution.is_dir()
