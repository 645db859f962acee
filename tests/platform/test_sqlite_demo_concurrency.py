"""The demo's embedded database takes concurrent writers: none is refused with "database is locked"
(each transaction takes the write lock when it begins and waits for it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITERS, WRITES = 4, 40


def _demo_environment(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(SOLARENA_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="solarena.settings", DEBUG="1")
    return env


def test_concurrent_read_then_write_transactions_all_land(tmp_path: Path) -> None:
    env = _demo_environment(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "auth", "--noinput"], cwd=ROOT, env=env,
                   check=True, capture_output=True, timeout=300)
    writers = [subprocess.Popen([sys.executable, "-m", "tests.platform.sqlite_writers", f"w{n}", str(WRITES)],
                                cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for n in range(WRITERS)]
    outcomes = [writer.communicate(timeout=300) for writer in writers]
    for (out, err), writer in zip(outcomes, writers, strict=True):
        assert writer.returncode == 0, err
        assert out.strip() == "0", err[-2000:]
    count = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); from django.contrib.auth.models import Group;"
                               " from django.db import connection; print(Group.objects.count());"
                               " print(connection.cursor().execute('PRAGMA journal_mode').fetchone()[0])"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=120)
    assert count.stdout.split() == [str(WRITERS * WRITES), "wal"]  # readers go on during a write
