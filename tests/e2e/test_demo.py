"""The demo command on the embedded defaults (SQLite, a server-less broker, one local worker)
serves a page listing the example submissions once they are scored."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.conftest import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_demo_serves_scored_example_submissions(tmp_path: Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE",
                        "SOLARENA_EXPECTED_HARDWARE")}  # the demo offers what its workers serve
    env["SOLARENA_VAR_DIR"] = str(tmp_path / "var")
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(port), "--examples", "2"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True,
    )
    page = ""
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            time.sleep(2)
            assert demo.poll() is None, demo.stdout.read() if demo.stdout else ""
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
            except OSError:
                continue
            if len(re.findall(r'class="recent-scored"', page)) >= 2:
                break
        assert len(re.findall(r'class="recent-scored"', page)) >= 2, page
        assert "softmax" in page and "demo" in page
    finally:
        left = _stop(demo)
    output = demo.stdout.read() if demo.stdout else ""
    assert f"http://127.0.0.1:{port}/" in output
    assert not left, f"SIGTERM to the demo left its processes running: {left}"


def _stop(demo: subprocess.Popen[str]) -> list[int]:
    """SIGTERM to the demo alone, as a service manager sends it: it must stop everything it started
    (its worker and sweeper share its process group). Returns the processes left, then kills them."""
    demo.send_signal(signal.SIGTERM)
    try:
        demo.wait(timeout=40)
    except subprocess.TimeoutExpired:
        pass
    deadline = time.monotonic() + 30
    while (left := _group(demo.pid)) and time.monotonic() < deadline:
        time.sleep(0.5)
    if left:
        os.killpg(demo.pid, signal.SIGKILL)
    return left


def _group(pgid: int) -> list[int]:
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(name))
    return found
