"""`manage.py start_gpu_workers --hardware h200`: one Celery worker per GPU of this host, each pinned
to its GPU, supervised: a worker that dies is started again, and TERM (or Ctrl-C) drains them all:
each finishes the evaluation it is running, takes no other, and exits (docs/deploy.md)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import asdict
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluator.gpus import GpuListError, WorkerPlan, detect, plan_workers
from evaluator.scoring.hardware import HARDWARE

# A worker that exits sooner than this after its start failed to start (a refused sandbox, a
# broker URL that does not parse): starting it again would fail the same way.
START_GRACE_SECONDS = 20.0
RESTART_DELAY_SECONDS = 5.0
POLL_SECONDS = 0.5


class Command(BaseCommand):
    help = "Start and supervise one evaluation worker per GPU of this host, each pinned to its GPU."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--hardware", required=True,
                            help=f"the hardware slug of these GPUs: {', '.join(sorted(HARDWARE))}")
        parser.add_argument("--gpus", default=None,
                            help="comma-separated GPU indices or UUIDs (default: CUDA_VISIBLE_DEVICES, "
                                 "else every GPU nvidia-smi -L lists)")
        parser.add_argument("--hostname", default=socket.gethostname(),
                            help="the host part of the worker names (default: this host's name)")
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument("--start-grace", type=float, default=START_GRACE_SECONDS, metavar="SECONDS",
                            help="a worker that exits sooner than this after its start is not started "
                                 "again: the supervisor stops (default: %(default)s)")
        parser.add_argument("--dry-run", action="store_true", help="print the plan and start nothing")
        parser.add_argument("--json", action="store_true", help="with --dry-run: the plan as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["hardware"] not in HARDWARE:
            raise CommandError(f"unknown hardware {options['hardware']!r}; "
                               f"known: {', '.join(sorted(HARDWARE))}")
        try:
            gpus = detect(options["gpus"], os.environ)
            plans = plan_workers(gpus, options["hardware"], options["hostname"],
                                 loglevel=options["loglevel"])
        except GpuListError as exc:
            raise CommandError(str(exc)) from exc
        if options["dry_run"]:
            self._print_plan(plans, options["json"])
            return
        code = Supervisor(plans, self.stdout.write, options["start_grace"]).run()
        if code:
            raise CommandError("a worker could not start; its output above says why", returncode=code)

    def _print_plan(self, plans: list[WorkerPlan], as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps([{**asdict(p), "argv": list(p.argv), "env": dict(p.env)}
                                          for p in plans], indent=1))
            return
        for plan in plans:
            pinned = " ".join(f"{k}={v}" for k, v in plan.env.items())
            gpu = f" ({plan.gpu.name})" if plan.gpu.name else ""
            self.stdout.write(f"{plan.name}{gpu}: queue {plan.queue}, {pinned}\n  {' '.join(plan.argv)}")


class Supervisor:
    """Runs the planned workers; restarts one that dies; on TERM or INT forwards TERM to every
    worker (Celery's warm shutdown) and waits for them; a second signal sends QUIT (cold)."""

    def __init__(self, plans: list[WorkerPlan], say: Any, start_grace: float = START_GRACE_SECONDS) -> None:
        self.plans, self.say, self.start_grace = plans, say, start_grace
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.started: dict[str, float] = {}
        self.signals = 0

    def run(self) -> int:
        previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            for plan in self.plans:
                self._start(plan)
            return self._watch()
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)

    def _start(self, plan: WorkerPlan) -> None:
        self.processes[plan.name] = subprocess.Popen(list(plan.argv), env={**os.environ, **plan.env})
        self.started[plan.name] = time.monotonic()
        self.say(f"started {plan.name} (pid {self.processes[plan.name].pid}) on {plan.queue}, "
                 f"CUDA_VISIBLE_DEVICES={plan.env['CUDA_VISIBLE_DEVICES']}")

    def _watch(self) -> int:
        restart_at: dict[str, float] = {}
        while True:
            if self.signals:
                return self._drain()
            now = time.monotonic()
            for plan in self.plans:
                process = self.processes[plan.name]
                code = process.poll()
                if code is None or self.signals:
                    continue
                if plan.name in restart_at:
                    if now >= restart_at[plan.name]:
                        del restart_at[plan.name]
                        self._start(plan)
                    continue
                if now - self.started[plan.name] < self.start_grace:
                    self.say(f"{plan.name} exited with code {code} at its start; stopping the others")
                    self._send(signal.SIGTERM)
                    self._wait()
                    return code or 1
                self.say(f"{plan.name} exited with code {code}; starting it again in "
                         f"{RESTART_DELAY_SECONDS:.0f} s")
                restart_at[plan.name] = now + RESTART_DELAY_SECONDS
            time.sleep(POLL_SECONDS)

    def _drain(self) -> int:
        self.say("draining: each worker finishes its evaluation and exits")
        self._send(signal.SIGTERM)
        codes = self._wait(lambda: self.signals > 1)
        if self.signals > 1 and any(c is None for c in codes.values()):
            self._send(signal.SIGQUIT)
            codes = self._wait()
        for name, code in codes.items():
            self.say(f"{name} stopped (code {code})")
        return 0

    def _send(self, number: int) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(number)

    def _wait(self, interrupt: Any = None) -> dict[str, int | None]:
        while any(p.poll() is None for p in self.processes.values()):
            if interrupt is not None and interrupt():
                break
            time.sleep(POLL_SECONDS)
        return {name: p.poll() for name, p in self.processes.items()}

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        self.signals += 1
