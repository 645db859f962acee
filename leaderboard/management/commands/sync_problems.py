"""Load a problem suite (ours, SOL-ExecBench or FlashInfer-Bench) and the hardware table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluator.harness.names import slug_of
from evaluator.harness.problem import ProblemError
from leaderboard import services


class Command(BaseCommand):
    help = ("Store the problems found under DIR: new ones as version 1, changed ones as a new "
            "version; hidden workloads are drawn with the deployment's secret.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", nargs="?", type=Path, default=None,
                            help="a problem, a suite or a trace set (default: SOLARENA_PROBLEMS_DIR)")
        parser.add_argument("--secret", default=None,
                            help="the hidden-workload secret (default: SOLARENA_HIDDEN_SECRET)")

    def handle(self, *args: Any, directory: Path | None = None, secret: str | None = None,
               **options: Any) -> None:
        secret = secret or settings.HIDDEN_SECRET
        if not secret:
            raise CommandError("hidden workloads need a secret: set SOLARENA_HIDDEN_SECRET or "
                               "pass --secret")
        services.sync_hardware()
        try:
            report = services.sync_problems(directory or Path(settings.PROBLEMS_DIR), secret)
        except ProblemError as exc:
            raise CommandError(str(exc)) from exc
        for name, version in report.versions.items():
            slug = slug_of(name)
            shown = name if slug == name else f"{name} (slug {slug})"
            if name in report.created:
                self.stdout.write(f"{shown}: created")
            elif name in report.new_version:
                self.stdout.write(f"{shown}: new version {version}")
            else:
                self.stdout.write(f"{shown}: unchanged (version {version})")
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
