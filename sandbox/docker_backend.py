"""The `docker` backend, for production GPU hosts: one throwaway container per harness run, made
from the evaluator image (docker/evaluator.Dockerfile). No network, a read-only root (the
working directory), a small private /tmp, no capabilities, no privilege gain, a non-root user,
cgroup limits on memory (which the tmpfs /tmp counts against; reaching it ends the whole run),
tasks and CPU, rlimits on open files and CPU time, only the job directory of the host mounted
(its problem/ part read-only), an environment holding only the job's variables, and only the
job's GPUs, requested by device id. The harness is the container's PID 1: signals from inside
cannot kill it.

The wall clock, the job directory's disk quota and the watchdog are enforced from here; a kill
takes the whole container with it, and the container is removed however the run ends.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from solarena.env import env_float, env_int

from .base import OUTPUT_CAP, Limits, RunResult, Watchdog, init_exit_status, memory_reason
from .container_memory import at_limit, memory_cgroup
from .disk_usage import JobDirQuota, held_open

if TYPE_CHECKING:
    from docker.client import DockerClient
    from docker.models.containers import Container

POLL_SECONDS = 0.2
PROCESS_CHECK_SECONDS = 1.0  # `docker top` runs ps on the host: not every poll
READER_GRACE_SECONDS = 5.0
DEFAULT_IMAGE = "solarena-evaluator:latest"
DEFAULT_CPUS = 8.0
DEFAULT_TMP_BYTES = 1 << 30
# torch shares CPU tensors between the harness and the solution's process through /dev/shm,
# which Docker otherwise caps at 64 MiB.
DEFAULT_SHM_BYTES = 4 << 30
NOBODY = "65534:65534"
# The pids cgroup counts threads too, and torch starts a thread per host core: the cgroup is a
# hard stop on tasks, and the process limit itself is watched with `docker top`.
TASKS_PER_PROCESS = 64
OWN_PROCESSES = 0  # the harness is PID 1 (no init), counted against the limit as elsewhere
# Not the job directory: nothing the solution writes may be found through the working directory
# by a trusted interpreter. The root is read-only and the user is not root.
WORKING_DIR = "/"
LABEL = "solarena"


class DockerUnavailable(RuntimeError):
    """This host cannot run evaluations in Docker; the message says what is missing."""


class DockerBackend:
    name = "docker"

    def __init__(
        self,
        *,
        image: str | None = None,
        gpus: Sequence[str] | str | None = None,
        user: str | None = None,
        cpus: float | None = None,
        tmp_bytes: int | None = None,
        shm_bytes: int | None = None,
        client: DockerClient | None = None,
    ) -> None:
        """Settings not given come from SOLARENA_DOCKER_IMAGE, SOLARENA_DOCKER_USER,
        SOLARENA_DOCKER_CPUS, SOLARENA_DOCKER_TMP_BYTES and SOLARENA_DOCKER_SHM_BYTES. Without
        gpus, each run gets the GPUs its job's CUDA_VISIBLE_DEVICES names (none when unset)."""
        self.image = image or os.environ.get("SOLARENA_DOCKER_IMAGE") or DEFAULT_IMAGE
        self.gpus = _gpu_list(gpus)
        self.user = user or os.environ.get("SOLARENA_DOCKER_USER") or default_user()
        wanted = cpus if cpus is not None else env_float("SOLARENA_DOCKER_CPUS", DEFAULT_CPUS)
        # The engine refuses a container more CPUs than the host has.
        self.cpus = min(wanted, float(os.cpu_count() or 1))
        self.tmp_bytes = tmp_bytes or env_int("SOLARENA_DOCKER_TMP_BYTES", DEFAULT_TMP_BYTES)
        self.shm_bytes = shm_bytes or env_int("SOLARENA_DOCKER_SHM_BYTES", DEFAULT_SHM_BYTES)
        _refuse_root(self.user)
        self.client = client or connect()
        self._check_image()
        # Under cgroup v1 the container can be held at its memory limit instead of having a process
        # killed, so the limit ends the whole run, as under bubblewrap (see _OomEvents).
        info = getattr(self.client, "info", None)
        self.hold_at_memory_limit = callable(info) and str(info().get("CgroupVersion")) == "1"

    def run(
        self,
        argv: Sequence[str],
        job_dir: Path,
        limits: Limits,
        env: Mapping[str, str],
        watchdog: Watchdog | None = None,
        *,
        stdin_data: bytes = b"",
        stdout_path: Path | None = None,
    ) -> RunResult:
        gpus = self.gpus if self.gpus is not None else parse_gpus(env.get("CUDA_VISIBLE_DEVICES", ""))
        spec = container_spec(argv, Path(job_dir).resolve(), limits, env, gpus, self.image, self.user,
                              cpus=self.cpus, tmp_bytes=self.tmp_bytes, shm_bytes=self.shm_bytes,
                              stdin=bool(stdin_data), hold_at_memory_limit=self.hold_at_memory_limit)
        hand_over(Path(job_dir), self.user)
        container = self._create(spec)
        quota = JobDirQuota(Path(job_dir), limits.job_dir_bytes)
        try:
            return _supervise(container, limits, quota, watchdog, stdin_data, stdout_path)
        finally:
            _remove(container)

    def _create(self, spec: dict[str, Any]) -> Container:
        from docker.errors import ImageNotFound

        try:
            return self.client.containers.create(**spec)
        except ImageNotFound as exc:
            raise _missing_image(self.image) from exc

    def _check_image(self) -> None:
        from docker.errors import ImageNotFound

        try:
            self.client.images.get(self.image)
        except ImageNotFound as exc:
            raise _missing_image(self.image) from exc


def _missing_image(image: str) -> DockerUnavailable:
    return DockerUnavailable(f"the evaluator image {image} is not on this host; build it with: "
                             f"docker build -f docker/evaluator.Dockerfile -t {image} .")


def connect() -> DockerClient:
    """The engine of DOCKER_HOST (or the local socket), answering."""
    try:
        import docker
    except ImportError as exc:
        raise DockerUnavailable("the docker package is not installed: pip install 'solarena[gpu]'") from exc
    try:
        client = docker.from_env(timeout=30)
        client.ping()
    except (docker.errors.DockerException, OSError) as exc:
        raise DockerUnavailable(f"no Docker engine is reachable: {exc}") from exc
    return client


def container_spec(
    argv: Sequence[str],
    job_dir: Path,
    limits: Limits,
    env: Mapping[str, str],
    gpus: Sequence[str],
    image: str,
    user: str,
    *,
    cpus: float = DEFAULT_CPUS,
    tmp_bytes: int = DEFAULT_TMP_BYTES,
    shm_bytes: int = DEFAULT_SHM_BYTES,
    stdin: bool = False,
    hold_at_memory_limit: bool = False,
) -> dict[str, Any]:
    """Keyword arguments of `client.containers.create` for one harness run. With
    hold_at_memory_limit (cgroup v1 only), the kernel pauses the container at its memory limit
    instead of killing one of its processes, and the run is ended from here."""
    from docker.types import DeviceRequest

    _refuse_root(user)
    job = str(job_dir)
    spec: dict[str, Any] = {
        "image": image,
        "command": list(argv),
        "entrypoint": [],  # argv is the whole command, whatever the image's entrypoint
        "user": user,
        "working_dir": WORKING_DIR,
        "environment": container_environment(env, gpus),
        "labels": {LABEL: "evaluation", f"{LABEL}.job-dir": job},
        "network_mode": "none",
        "read_only": True,
        # Not noexec: Triton and load_inline load the libraries they build from their caches.
        # With a memory limit, /tmp and /dev/shm are sized to it, as under bubblewrap: their files
        # are memory of the cgroup, and filling them to the limit ends the run as the limit.
        "tmpfs": {"/tmp": f"size={limits.memory_bytes or tmp_bytes},mode=1777"},
        "shm_size": limits.memory_bytes or shm_bytes,
        "volumes": job_mounts(job_dir),
        "cap_drop": ["ALL"],
        "security_opt": ["no-new-privileges"],
        # No init: the harness is the container's PID 1, as under bubblewrap (--as-pid-1), so no
        # other process inside holds its standard output and a signal from inside cannot kill it.
        "init": False,
        "nano_cpus": int(cpus * 1e9),
        "ulimits": _ulimits(limits),
        "stdin_open": stdin,
    }
    if limits.max_processes:
        spec["pids_limit"] = limits.max_processes * TASKS_PER_PROCESS
    if limits.memory_bytes:
        spec["mem_limit"] = limits.memory_bytes
        spec["memswap_limit"] = limits.memory_bytes  # equal: no swap to spill into
        if hold_at_memory_limit:
            spec["oom_kill_disable"] = True
    if gpus:
        spec["device_requests"] = [DeviceRequest(device_ids=list(gpus), capabilities=[["gpu"]])]
    return spec


def container_environment(env: Mapping[str, str], gpus: Sequence[str]) -> dict[str, str]:
    """The job's variables, with CUDA_VISIBLE_DEVICES counting the container's GPUs from 0."""
    environment = {k: v for k, v in env.items() if k != "NVIDIA_VISIBLE_DEVICES"}
    if gpus:
        environment["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(len(gpus)))
    else:
        # Where nvidia is the engine's default runtime, an image's NVIDIA_VISIBLE_DEVICES=all
        # (CUDA base images set it) would hand the container every GPU of the host.
        environment["NVIDIA_VISIBLE_DEVICES"] = "void"
    return environment


def job_mounts(job_dir: Path) -> dict[str, dict[str, str]]:
    """The job directory at its own path, writable except its problem/ part."""
    mounts = {str(job_dir): {"bind": str(job_dir), "mode": "rw"}}
    problem = job_dir / "problem"
    if problem.is_dir():
        mounts[str(problem)] = {"bind": str(problem), "mode": "ro"}
    return mounts


def parse_gpus(visible: str) -> list[str]:
    """Device ids (indices or GPU-... UUIDs) from a CUDA_VISIBLE_DEVICES value."""
    return [part.strip() for part in visible.split(",") if part.strip()]


def _gpu_list(gpus: Sequence[str] | str | None) -> list[str] | None:
    if gpus is None:
        return None
    return parse_gpus(gpus) if isinstance(gpus, str) else [str(g) for g in gpus]


def default_user() -> str:
    """The worker's own user, who owns the job directory; nobody when the worker is root."""
    uid, gid = os.getuid(), os.getgid()
    return NOBODY if uid == 0 else f"{uid}:{gid}"


def hand_over(job_dir: Path, user: str) -> None:
    """A root worker owns the job directory; give it to the container's numeric user so the
    harness can write there (its problem/ part stays read-only through the mount)."""
    ids = user.split(":")
    if os.geteuid() != 0 or not all(part.isdigit() for part in ids):
        return
    uid, gid = int(ids[0]), int(ids[-1])
    for path in [job_dir, *job_dir.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)


def _refuse_root(user: str) -> None:
    name = user.split(":", 1)[0]
    if name in ("", "0", "root"):
        raise ValueError(f"the sandboxed harness must not run as root (user {user!r})")


def _ulimits(limits: Limits) -> list[Any]:
    from docker.types import Ulimit

    ulimits = []
    if limits.max_open_files:
        ulimits.append(Ulimit(name="nofile", soft=limits.max_open_files, hard=limits.max_open_files))
    if limits.cpu_seconds:
        seconds = math.ceil(limits.cpu_seconds)
        ulimits.append(Ulimit(name="cpu", soft=seconds, hard=seconds))
    return ulimits


def _supervise(container: Container, limits: Limits, quota: JobDirQuota, watchdog: Watchdog | None,
               stdin_data: bytes, stdout_path: Path | None) -> RunResult:
    err = _Tail()
    with contextlib.ExitStack() as cleanup:
        out: _Tail | IO[bytes] = _Tail()
        if stdout_path is not None:
            out = cleanup.enter_context(open(stdout_path, "ab"))
        # Attached before the start, so no output comes before the reader is there.
        stream = container.attach_socket(params={"stdin": int(bool(stdin_data)), "stdout": 1,
                                                 "stderr": 1, "stream": 1})
        cleanup.callback(_close, stream)
        reader = threading.Thread(target=_copy_frames, args=(stream, out, err), daemon=True)
        reader.start()
        oom = cleanup.enter_context(_OomEvents(container))
        container.start()
        started = time.monotonic()
        if stdin_data:
            threading.Thread(target=_feed, args=(stream, stdin_data), daemon=True).start()
        ended_by, reason = _watch(container, started, limits, quota, watchdog, oom)
        if ended_by != "exit":
            _kill(container)
        code = int(container.wait()["StatusCode"])
        wall_seconds = time.monotonic() - started
        container.reload()
        reader.join(READER_GRACE_SECONDS)
    if ended_by == "exit" and code != 0 and container.attrs["State"].get("OOMKilled"):
        ended_by, reason = "memory", memory_reason(limits)
    exit_code, signal = init_exit_status(code)
    return RunResult(
        exit_code=exit_code,
        stdout=out.text() if isinstance(out, _Tail) else "",
        stderr=err.text(),
        wall_seconds=wall_seconds,
        ended_by=ended_by,
        signal=signal,
        reason=reason,
    )


def _watch(container: Container, started: float, limits: Limits, quota: JobDirQuota,
           watchdog: Watchdog | None, oom: _OomEvents) -> tuple[str, str]:
    """Polls until the container exits ("exit") or a limit or the watchdog ends it. Memory,
    the files in its tmpfs /tmp included, is the cgroup's, and an OOM kill of any of its
    processes ends the whole run as the memory limit; the job directory (a host directory
    mounted in) has its quota watched from here."""
    next_process_check = started
    unlinked_bytes = 0
    device = os.stat(quota.job_dir).st_dev
    cgroup = None
    while True:
        container.reload()
        if container.status in ("exited", "dead"):
            return "exit", ""
        if cgroup is None and container.attrs["State"].get("Pid"):
            cgroup = memory_cgroup(int(container.attrs["State"]["Pid"]))
        # The container reached its memory limit: held there (cgroup v1), a process of it killed
        # (usually the solution's, which would otherwise read as its crash alone), or its memory
        # files filled to the limit (answered with ENOMEM, no event).
        if (oom.seen.is_set() or container.attrs["State"].get("OOMKilled")
                or at_limit(cgroup, limits.memory_bytes)):
            return "memory", memory_reason(limits)
        now = time.monotonic()
        if now - started > limits.wall_seconds:
            return "timeout", f"the time limit of {limits.wall_seconds:.0f} s was reached"
        if now >= next_process_check:
            next_process_check = now + PROCESS_CHECK_SECONDS
            pids = _host_pids(container)
            if limits.max_processes and len(pids) - OWN_PROCESSES > limits.max_processes:
                return "processes", f"the process limit of {limits.max_processes} was reached"
            # Files of the job directory unlinked but held open count against its quota too.
            unlinked_bytes = held_open(pids, device).unlinked_bytes if limits.job_dir_bytes else 0
        if quota.exceeded(unlinked_bytes):
            return "disk", quota.reason
        if watchdog is not None and watchdog():
            return "watchdog", ""
        time.sleep(POLL_SECONDS)


def _host_pids(container: Container) -> list[int]:
    """The container's processes, by their ids on this host (`docker top`); none once stopped.
    A worker in a container of its own sees other ids, and its held-open count finds nothing."""
    from docker.errors import APIError

    try:
        top = container.top()
    except APIError:  # it stopped between the poll and this look
        return []
    titles = top.get("Titles") or ["PID"]
    column = titles.index("PID") if "PID" in titles else 0
    pids = []
    for row in top.get("Processes") or []:
        try:
            pids.append(int(row[column]))
        except (IndexError, ValueError):
            pids.append(0)  # counted as a process all the same
    return pids


class _OomEvents:
    """The engine's `oom` events of one container, read as they come: State.OOMKilled is only
    set once the container has exited, too late to tell the limit from a crash."""

    def __init__(self, container: Container) -> None:
        self.seen = threading.Event()
        self._stream: Any = None
        client = getattr(container, "client", None)
        if client is None:
            return
        self._stream = client.events(decode=True, filters={"container": container.id, "event": "oom"})
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for _ in self._stream:
                self.seen.set()
        except Exception:  # closed under us, or the engine went away: nothing more to read
            pass

    def __enter__(self) -> _OomEvents:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stream is not None:
            self._stream.close()


class _Tail:
    """The last OUTPUT_CAP bytes written to it."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * OUTPUT_CAP:
            del self.data[:-OUTPUT_CAP]

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return bytes(self.data[-OUTPUT_CAP:]).decode("utf-8", errors="replace")


def _copy_frames(stream: Any, out: _Tail | IO[bytes], err: _Tail) -> None:
    """Splits the attach stream into standard output (flushed as it comes, for a live reader)
    and standard error, until the container's streams close."""
    from docker.utils.socket import STDOUT, frames_iter

    try:
        for kind, data in frames_iter(stream, tty=False):
            target = out if kind == STDOUT else err
            target.write(data)
            target.flush()
    except (OSError, ValueError):  # the stream or the file was closed under us
        pass


def _feed(stream: Any, data: bytes) -> None:
    """Writes stdin_data, then closes the write side: the command reads its end of file."""
    raw = getattr(stream, "_sock", stream)
    try:
        raw.sendall(data)
        raw.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def _kill(container: Container) -> None:
    from docker.errors import APIError

    try:
        container.kill()
    except APIError:  # it exited on its own meanwhile
        pass


def _close(stream: Any) -> None:
    for handle in (stream, getattr(stream, "_sock", None)):
        try:
            if handle is not None:
                handle.close()
        except OSError:
            pass


def _remove(container: Container) -> None:
    from docker.errors import APIError

    try:
        container.remove(force=True)
    except APIError:  # already gone
        pass
