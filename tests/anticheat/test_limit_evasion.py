"""Classes 25 and 32, limit evasion: memory kept in files of the sandbox's own memory-backed
filesystems (/tmp, /dev/shm) or in a memfd (unmapped, or closed and kept alive by one mapped
page), where a limit on the processes' resident memory does not see it, disk filled through the
job directory, in plain sight or behind an unlink, and more threads than the task limit. Each
ends the workload it happened on with the limit's message (RUNTIME_ERROR, as the other limits
do), never PASSED; the memfd and the threads are held by the kernel's cgroups where the host
allows them (docs/security.md says what holds elsewhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.harness import status
from sandbox import Limits
from sandbox.cgroup import RunCgroup
from tests.anticheat.conftest import CheatRun, assert_not_broken, cheat_source, current_backend, scored
from tests.conftest import evaluate_source

MEMORY_LIMIT = 3 << 29  # 1.5 GiB: the harness and the solution's process hold about half of it
JOB_DIR_LIMIT = 256 << 20


def _evaluate(tmp_path: Path, source: str, supervise: dict[str, int]) -> CheatRun:
    evaluated = evaluate_source(tmp_path, source, backend=current_backend(), supervise=supervise,
                                workload_seconds=30)
    return scored(evaluated, tmp_path / "job" / "solution", "cpu")


DIED_SILENTLY = "the solution's process exited with code 1 in the middle of a call"


def _assert_stopped_by(run: CheatRun, message: str) -> None:
    """The workload the cheat hoarded on ended with the limit's message; nothing else failed
    for another reason."""
    assert_not_broken(run)
    assert (run.solution_dir.parent / "hoarded").is_dir(), "the cheat never hoarded"
    stopped = [r for r in run.rows if r["status"] != status.PASSED]
    assert stopped, f"the hoard was not stopped:\n{run.describe()}"
    for row in stopped:
        assert row["status"] == status.RUNTIME_ERROR and message in row["message"], run.describe()


@pytest.mark.parametrize("place", ["/tmp", "/dev/shm"])
def test_memory_hoarded_in_a_private_tmpfs_hits_the_memory_limit(tmp_path: Path, place: str) -> None:
    source = cheat_source("hoard_in_tmpfs")
    assert 'PLACE = "/tmp"' in source
    run = _evaluate(tmp_path, source.replace('PLACE = "/tmp"', f"PLACE = {place!r}"),
                    {"memory_bytes": MEMORY_LIMIT})
    _assert_stopped_by(run, "the memory limit of 1.5 GiB was reached")


def test_memory_hoarded_in_an_unmapped_memfd_hits_the_memory_limit(tmp_path: Path) -> None:
    run = _evaluate(tmp_path, cheat_source("hoard_in_memfd"), {"memory_bytes": MEMORY_LIMIT})
    if current_backend() == "docker" and any(DIED_SILENTLY in r["message"] for r in run.rows):
        # Under load, about one run in five under cgroup v1 (at the commit before this too), the
        # solution's process exits with status 1 and no word while it hoards, before the limit is
        # named: the hoard is still stopped and never scores.
        _assert_stopped_by(run, DIED_SILENTLY)
        return
    _assert_stopped_by(run, "the memory limit of 1.5 GiB was reached")


@pytest.mark.parametrize("name", ["hoard_in_job_dir", "hoard_unlinked_in_job_dir"])
def test_disk_filled_through_the_job_directory_hits_its_quota(tmp_path: Path, name: str) -> None:
    run = _evaluate(tmp_path, cheat_source(name), {"job_dir_bytes": JOB_DIR_LIMIT})
    _assert_stopped_by(run, "the disk limit of 256 MiB for the job directory was reached")


def _kernel_cgroups() -> None:
    """These limits are the kernel's: skipped where the host lets the worker make no cgroups."""
    group = RunCgroup.create(Limits(memory_bytes=MEMORY_LIMIT))
    if group is None:
        pytest.skip("this host does not let the worker make cgroups (not root, no delegation)")
    group.remove()


def test_memory_in_a_closed_memfd_hits_the_memory_limit(tmp_path: Path) -> None:
    if current_backend() != "docker":
        _kernel_cgroups()
    run = _evaluate(tmp_path, cheat_source("hoard_in_closed_memfd"), {"memory_bytes": MEMORY_LIMIT})
    _assert_stopped_by(run, "the memory limit of 1.5 GiB was reached")


def test_no_more_threads_than_the_task_limit(tmp_path: Path) -> None:
    if current_backend() != "docker":
        _kernel_cgroups()
    run = _evaluate(tmp_path, cheat_source("thread_flood"), {})
    assert_not_broken(run)
    started = int((tmp_path / "job" / "threads.txt").read_text())
    assert started < 4096, f"{started} threads started"
    assert any(r["status"] == status.RUNTIME_ERROR for r in run.rows), run.describe()
