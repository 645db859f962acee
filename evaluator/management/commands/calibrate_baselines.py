"""Measure the shared baseline and reference times (docs/scoring.md, "Shared baselines") of current
problems on active hardware, for this harness version: queued to the hardware's workers, or with
--here run in this process (on the machine of that hardware). Keys already measured are left alone;
failed or waiting ones are sent again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluator import baselines, tasks
from evaluator.models import BaselineCalibration
from leaderboard.models import Hardware, Problem


class Command(BaseCommand):
    help = "Measure each current problem's shared baseline and reference times on each active hardware."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--problem", help="only this problem (its name or slug; current version)")
        parser.add_argument("--hardware", help="only this hardware (slug)")
        parser.add_argument("--runs", type=int, default=baselines.DEFAULT_RUNS,
                            help=f"harness runs per calibration (default {baselines.DEFAULT_RUNS})")
        parser.add_argument("--here", action="store_true",
                            help="run the calibrations in this process instead of queueing them")

    def handle(self, *args: Any, problem: str | None = None, hardware: str | None = None,
               runs: int = baselines.DEFAULT_RUNS, here: bool = False, **options: Any) -> None:
        if runs < 3:
            raise CommandError("--runs: at least 3 (fewer cannot tell which run is off)")
        problems = Problem.objects.filter(is_current=True).order_by("name")
        if problem:
            problems = problems.filter(name=problem) | problems.filter(slug=problem)
            if not problems.exists():
                raise CommandError(f"no current problem {problem!r}")
        machines = Hardware.objects.filter(active=True)
        if hardware:
            machines = Hardware.objects.filter(slug=hardware)
            if not machines.exists():
                raise CommandError(f"no hardware {hardware!r}")
        for row in problems:
            for machine in machines:
                self.stdout.write(f"{row} on {machine.slug}: {self.calibrate(row, machine, runs, here)}")

    def calibrate(self, problem: Problem, hardware: Hardware, runs: int, here: bool) -> str:
        sent = baselines.request(problem, hardware, runs, now=True) if not here else False
        calibration = BaselineCalibration.objects.get(**baselines.key(problem, hardware))
        if here and calibration.state != BaselineCalibration.DONE:
            BaselineCalibration.objects.filter(pk=calibration.pk).exclude(
                state=BaselineCalibration.DONE).update(state=BaselineCalibration.QUEUED, runs=runs)
            tasks.calibrate(calibration.pk)
            calibration.refresh_from_db()
            return calibration.state + (f": {calibration.error}" if calibration.error else "")
        if calibration.state == BaselineCalibration.DONE:
            return f"already measured ({calibration.timings.count()} workloads)"
        return f"queued ({runs} runs)" if sent else f"{calibration.state}, not sent again"
