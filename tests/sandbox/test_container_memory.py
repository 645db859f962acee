"""The docker watch reads a container's unreclaimable memory (anonymous and shared: tmpfs files,
memfd) from its memory cgroup, under cgroup v1 and v2, and calls the container at its limit when
that memory leaves no more than the margin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox import container_memory
from sandbox.container_memory import LIMIT_MARGIN_BYTES, at_limit, memory_cgroup, unreclaimable_bytes

GIB = 1 << 30


def _cgroup(folder: Path, stat: dict[str, int]) -> Path:
    folder.mkdir(parents=True)
    (folder / "memory.stat").write_text("".join(f"{k} {v}\n" for k, v in stat.items()))
    return folder


def test_v1_counts_rss_and_shared_memory_not_page_cache(tmp_path: Path) -> None:
    folder = _cgroup(tmp_path / "memory" / "docker" / "abc",
                     {"cache": 5 * GIB, "total_cache": 5 * GIB, "total_rss": GIB, "total_shmem": GIB // 2})
    assert unreclaimable_bytes((folder, "v1")) == GIB + GIB // 2
    assert not at_limit((folder, "v1"), 2 * GIB)
    assert at_limit((folder, "v1"), GIB + GIB // 2 + LIMIT_MARGIN_BYTES)


def test_v2_counts_anon_and_shmem(tmp_path: Path) -> None:
    folder = _cgroup(tmp_path / "system.slice" / "docker-abc.scope",
                     {"anon": GIB, "shmem": GIB, "file": 9 * GIB})
    assert unreclaimable_bytes((folder, "v2")) == 2 * GIB
    assert at_limit((folder, "v2"), 2 * GIB)


def test_no_cgroup_or_no_limit_is_never_at_the_limit(tmp_path: Path) -> None:
    folder = _cgroup(tmp_path / "gone", {"anon": 4 * GIB})
    assert not at_limit(None, GIB)
    assert not at_limit((folder, "v2"), None)
    (folder / "memory.stat").unlink()
    assert unreclaimable_bytes((folder, "v2")) is None
    assert not at_limit((folder, "v2"), GIB)


def test_this_process_cgroup_is_found_where_the_host_shows_one() -> None:
    found = memory_cgroup(os.getpid())
    if found is None:
        pytest.skip("this host shows no memory cgroup for its processes")
    folder, version = found
    assert (folder / "memory.stat").is_file() and version in ("v1", "v2")
    assert unreclaimable_bytes(found) is not None
    assert memory_cgroup(2**22 + 12345, container_memory.CGROUP_ROOT) is None  # no such process
