"""`manage.py demo`: everything on one machine with no outside services.

Migrates the database (SQLite unless DATABASE_URL says otherwise), syncs the bundled problems,
creates a demo user and example submissions, starts one local evaluation worker (the GPU if there
is one, else the CPU interpreter) and the web server on 127.0.0.1, and prints its address.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from evaluator.jobs import SolutionFiles
from leaderboard.models import Hardware, Problem
from leaderboard.services import sync_hardware, sync_problems
from submissions.models import Submission
from submissions.services import create_submission

EXAMPLES = [
    ("softmax", "triton.py"),
    ("softmax", "hardcoded.py"),
    ("rmsnorm", "triton.py"),
    ("silu_and_mul", "triton.py"),
    ("fused_add_rmsnorm", "triton.py"),
    ("rope", "triton.py"),
]


class Command(BaseCommand):
    help = "Run the whole platform locally: database, problems, a worker and the web server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--examples", type=int, default=len(EXAMPLES),
                            help="how many example submissions to evaluate")
        parser.add_argument("--no-server", action="store_true", help="set up and exit")

    def handle(self, *args: Any, **options: Any) -> None:
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        for folder in set(settings.CELERY_BROKER_TRANSPORT_OPTIONS.values()):
            if isinstance(folder, str):  # the server-less broker's message folders
                Path(folder).mkdir(parents=True, exist_ok=True)
        call_command("migrate", verbosity=0, interactive=False)
        sync_hardware()
        report = sync_problems(settings.PROBLEMS_DIR, settings.HIDDEN_SECRET)
        self.stdout.write(f"problems: {len(report.created)} new, {len(report.new_version)} updated, "
                          f"{len(report.unchanged)} unchanged")
        hardware = Hardware.objects.get(slug=_local_hardware())
        # Its worker starts below: the local hardware takes submissions until its first heartbeat;
        # every other hardware is refused, naming what is online (evaluator/workers.py).
        settings.SOLARENA_EXPECTED_HARDWARE = hardware.slug
        user = _demo_user()
        self._submit_examples(user, hardware, options["examples"])
        if options["no_server"]:
            return
        # SIGTERM, like Ctrl-C, ends the server and so runs the `finally` that stops the others;
        # installed first, so a SIGTERM while they start stops those already started.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        started: list[subprocess.Popen[bytes]] = []
        try:
            started.append(_start_worker(hardware))
            sweep = [sys.executable, "manage.py", "sweep_evaluations", "--loop", "30"]
            started.append(_start(sweep, "sweeper"))
            self.stdout.write(self.style.SUCCESS(
                f"solarena is running at http://127.0.0.1:{options['port']}/ "
                f"(worker on queue {hardware.queue}; Ctrl-C stops everything)"))
            call_command("runserver", f"127.0.0.1:{options['port']}", use_reloader=False,
                         skip_checks=True)
        finally:
            for process in reversed(started):
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()

    def _submit_examples(self, user: Any, hardware: Hardware, count: int) -> None:
        if Submission.objects.filter(owner=user).exists():
            return  # a second start of the demo keeps what the first one made
        for name, file_name in EXAMPLES[:count]:
            problem = Problem.objects.filter(name=name, is_current=True).first()
            path = settings.PROBLEMS_DIR / name / "solutions" / file_name
            if problem is None or not path.is_file():
                continue
            create_submission(user, problem, SolutionFiles.from_path(path), "triton", [hardware])
            self.stdout.write(f"submitted {name}/{file_name} for {hardware.slug}")


def _demo_user() -> Any:
    user, created = get_user_model().objects.get_or_create(username="demo")
    if created:
        user.set_unusable_password()
        user.save()
    return user


def _local_hardware() -> str:
    """The slug this machine evaluates for: its GPU if it is a known one, else cpu."""
    from solarena.cli import gpu_name, local_hardware_slug

    return local_hardware_slug(gpu_name()) or "cpu"


def _start_worker(hardware: Hardware) -> subprocess.Popen[bytes]:
    env = os.environ.copy()
    if shutil.which("bwrap") is None:
        # Without bubblewrap the worker has no sandbox and refuses to start unless trusted; the
        # demo's worker runs only what its own user submits on their own machine.
        env["SOLARENA_TRUSTED_WORKER"] = "1"
    return _start([sys.executable, "-m", "celery", "-A", "solarena.celery", "worker", "-Q", hardware.queue,
                   "-P", "solo", "-c", "1", "--without-gossip", "--without-mingle", "-l", "info"],
                  "worker", env)


def _start(argv: list[str], name: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A background process of the demo, its output in var/<name>.log."""
    log = open(Path(settings.VAR_DIR) / f"{name}.log", "ab")  # kept open while the process runs
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env or os.environ.copy(),
                            cwd=settings.BASE_DIR)
