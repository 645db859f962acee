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
           if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
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
        os.killpg(demo.pid, signal.SIGINT)
        try:
            demo.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
    output = demo.stdout.read() if demo.stdout else ""
    assert f"http://127.0.0.1:{port}/" in output
