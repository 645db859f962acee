"""One memory and one disk limit for the whole sandbox (class 25): what the job directory's quota
counts, the quota on every process backend, and the opt-in cgroup v2 memory limit, checked on a
stand-in directory (this host has cgroup v1 only, so the kernel side is not tested here)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sandbox import Limits, get_backend
from sandbox.cgroup import ENV, CgroupUnavailable, MemoryCgroup
from sandbox.disk_usage import BLOCK, directory_bytes, held_open
from tests.sandbox.backends import DOCKER_IMAGE, SANDBOXES, python_for, require

ENVIRONMENT = {"PATH": "/usr/bin:/bin"}


def test_a_sparse_file_counts_what_it_holds(tmp_path: Path) -> None:
    with open(tmp_path / "sparse", "wb") as fh:
        fh.truncate(1 << 40)  # a terabyte of nothing
    (tmp_path / "full").write_bytes(b"x" * (1 << 20))
    assert (1 << 20) <= directory_bytes(tmp_path) < (1 << 20) + 4 * BLOCK


def test_empty_files_and_directories_cost_a_block_each(tmp_path: Path) -> None:
    for i in range(100):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / "empty").touch()
    assert directory_bytes(tmp_path) >= 200 * BLOCK


def test_counting_stops_past_the_limit(tmp_path: Path) -> None:
    for i in range(1000):
        (tmp_path / f"f{i}").touch()
    assert 10 * BLOCK < directory_bytes(tmp_path, stop_above=10 * BLOCK) <= 11 * BLOCK


def test_files_held_open_that_no_directory_lists_are_counted(tmp_path: Path) -> None:
    memfd = os.memfd_create("held")
    os.write(memfd, b"x" * (1 << 20))
    unlinked = open(tmp_path / "gone", "wb")
    (tmp_path / "gone").unlink()
    unlinked.write(b"y" * (2 << 20))
    unlinked.flush()
    kept = open(tmp_path / "kept", "wb")  # listed: the walk counts it, not this
    kept.write(b"z" * (4 << 20))
    kept.flush()
    try:
        held = held_open([os.getpid()], os.stat(tmp_path).st_dev)
    finally:
        for handle in (unlinked, kept):
            handle.close()
        os.close(memfd)
    assert held.memfd_bytes >= 1 << 20 and held.unlinked_bytes >= 2 << 20  # and whatever else is open


@pytest.mark.parametrize("backend", ["none", *SANDBOXES])
def test_the_job_directory_has_a_quota(tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    require(backend)
    monkeypatch.setenv("SOLARENA_DOCKER_IMAGE", DOCKER_IMAGE)
    job = tmp_path / "job"
    job.mkdir()
    write = f"open({str(job / 'junk')!r}, 'wb').write(b'x' * (8 << 20)); import time; time.sleep(30)"
    result = get_backend(backend).run([python_for(backend), "-c", write], job,
                                      Limits(wall_seconds=20, job_dir_bytes=4 << 20), ENVIRONMENT)
    assert result.ended_by == "disk", (result, result.stderr)
    assert result.reason == "the disk limit of 4 MiB for the job directory was reached"


@pytest.fixture
def delegated(tmp_path: Path) -> Path:
    """A stand-in for a delegated cgroup v2 directory with the memory controller enabled."""
    parent = tmp_path / "cgroup"
    parent.mkdir()
    (parent / "cgroup.subtree_control").write_text("cpu memory pids\n")
    return parent


def test_no_cgroup_unless_one_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert MemoryCgroup.create(Limits(memory_bytes=1 << 30)) is None


def test_a_configured_cgroup_without_the_memory_controller_is_refused(delegated: Path) -> None:
    (delegated / "cgroup.subtree_control").write_text("cpu pids\n")
    with pytest.raises(CgroupUnavailable, match="memory controller"):
        MemoryCgroup.create(Limits(memory_bytes=1 << 30), str(delegated))


def test_each_run_gets_a_cgroup_at_the_memory_limit(delegated: Path) -> None:
    group = MemoryCgroup.create(Limits(memory_bytes=3 << 29), str(delegated))
    assert group is not None and group.path.parent == delegated
    assert (group.path / "memory.max").read_text() == str(3 << 29)


def test_the_sandbox_joins_its_cgroup_and_an_oom_kill_is_the_memory_limit(
        delegated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(delegated))
    create = MemoryCgroup.create.__func__  # type: ignore[attr-defined]

    def with_interface_files(cls: type[MemoryCgroup], limits: Limits,
                             parent: str | None = None) -> MemoryCgroup | None:
        group = create(cls, limits, parent)
        if group is not None:  # what the kernel puts in a new cgroup, as far as used here
            for name in ("cgroup.procs", "memory.events"):
                (group.path / name).touch()
        return group

    monkeypatch.setattr(MemoryCgroup, "create", classmethod(with_interface_files))
    # The stand-in kernel: the command records an OOM kill in its cgroup and dies by SIGKILL.
    die = (f"import glob, os; [group] = glob.glob({str(delegated)!r} + '/solarena-*'); "
           "open(group + '/memory.events', 'w').write('low 0\\noom 1\\noom_kill 1\\n'); "
           "os.kill(os.getpid(), 9)")
    job = tmp_path / "job"
    job.mkdir()
    result = get_backend("none").run([sys.executable, "-c", die], job,
                                     Limits(wall_seconds=20, memory_bytes=1 << 30), ENVIRONMENT)
    assert result.ended_by == "memory" and result.signal == 9
    assert result.reason == "the memory limit of 1 GiB was reached"
    [group] = delegated.glob("solarena-*")
    assert (group / "cgroup.procs").read_text() == "0"  # the child moved itself in before exec
