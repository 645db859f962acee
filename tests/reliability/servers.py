"""Private PostgreSQL and Redis servers for the fault tests, each on a free port of 127.0.0.1, that a
test may stop and start at will. The machine's shared servers are never touched.

PostgreSQL refuses to run as root, so under root (as in CI) the cluster belongs to an unprivileged
user (`postgres` where the package made one) and its commands run through `runuser`.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis
from kombu.transport.redis import PRIORITY_STEPS, Channel

PG_OWNER = "postgres"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def postgres_bin() -> Path | None:
    """The directory of initdb and pg_ctl: on PATH, else the newest Debian-style install."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    installs = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(installs[-1]).parent if installs else None


def _owner() -> pwd.struct_passwd | None:
    """The unprivileged user that runs the cluster when this process is root (None otherwise)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(PG_OWNER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", PG_OWNER], check=True)
        return pwd.getpwnam(PG_OWNER)


class PostgresServer:
    """A cluster in a fresh temporary directory (outside pytest's root-only tmp tree, so its owner
    can reach it)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir, self.port = bindir, free_port()
        self.owner = _owner()
        self.root = Path(tempfile.mkdtemp(prefix="solarena-pg-"))
        self.data, self.log = self.root / "data", self.root / "server.log"
        if self.owner is not None:
            os.chown(self.root, self.owner.pw_uid, self.owner.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--no-sync",
                  "-E", "UTF8", "--locale=C")

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        # Durability is not under test: skipping fsync keeps starts and writes quick.
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.log), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """fast: sessions are cut off, as in a restart by an operator; immediate: as in a crash."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def create_database(self, name: str) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)

    def remove(self) -> None:
        if self.running():
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, command: str, *args: str) -> None:
        argv = [str(self.bindir / command), *args]
        if self.owner is not None:
            argv = ["runuser", "-u", self.owner.pw_name, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}{done.stderr}{log}")


class RedisServer:
    """A redis-server process that keeps nothing on disk: a restart loses every message."""

    def __init__(self, directory: Path) -> None:
        self.directory, self.port = directory, free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.directory)]
        with open(self.directory / "redis.log", "ab") as log:
            self.process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start: "
                                       + (self.directory / "redis.log").read_text()[-2000:]) from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(port=self.port, db=db)

    def waiting(self, queue: str, db: int = 0) -> list[bytes]:
        """The messages waiting on a Celery queue, in every one of kombu's priority lists (a message
        sent with priority p > 0 waits in `queue`, kombu's separator, p: evaluator/modes.py)."""
        client = self.client(db)
        lists = [queue, *(f"{queue}{Channel.sep}{p}" for p in PRIORITY_STEPS[1:])]
        return [envelope for name in lists for envelope in client.lrange(name, 0, -1)]
