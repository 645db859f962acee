"""Memory a container holds that the kernel cannot take back without swap: its anonymous memory
and its shared memory (files in its tmpfs mounts, memfd files), read from its memory cgroup on
this host. With none of the cgroup left for that, the container is at its memory limit even where
the kernel answers the writer with ENOMEM instead of an oom event (a cgroup v1 container held at
its limit), so the docker watch ends the run as the memory limit, as bubblewrap's does."""

from __future__ import annotations

from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
# Unreclaimable memory this close to the limit leaves the container nothing to work with.
LIMIT_MARGIN_BYTES = 64 << 20
_FIELDS = {"v1": ("total_rss", "total_shmem"), "v2": ("anon", "shmem")}


def memory_cgroup(pid: int, root: Path = CGROUP_ROOT) -> tuple[Path, str] | None:
    """The memory cgroup folder of process `pid` and its version ("v1" or "v2"), or None where
    this host does not show it (a worker in a container of its own, the process gone)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    unified = None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = root / "memory" / path.lstrip("/")
            return (folder, "v1") if (folder / "memory.stat").is_file() else None
        if controllers == "":
            unified = root / path.lstrip("/")
    if unified is not None and (unified / "memory.stat").is_file():
        return unified, "v2"
    return None


def unreclaimable_bytes(cgroup: tuple[Path, str]) -> int | None:
    """Anonymous plus shared memory of the cgroup, or None once it is gone."""
    folder, version = cgroup
    try:
        text = (folder / "memory.stat").read_text()
    except OSError:
        return None
    stat = dict(line.split() for line in text.splitlines() if line.count(" ") == 1)
    return sum(int(stat.get(field, 0)) for field in _FIELDS[version])


def at_limit(cgroup: tuple[Path, str] | None, limit_bytes: int | None) -> bool:
    """True when the cgroup's unreclaimable memory has reached its limit (less the margin)."""
    if cgroup is None or not limit_bytes:
        return False
    held = unreclaimable_bytes(cgroup)
    return held is not None and held >= limit_bytes - LIMIT_MARGIN_BYTES
