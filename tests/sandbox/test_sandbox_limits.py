"""One memory and one disk limit for the whole sandbox (class 25): what the job directory's quota
counts, and the quota on every process backend. The kernel's own limits (cgroups) are
tests/sandbox/test_kernel_limits.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox import Limits, get_backend
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
