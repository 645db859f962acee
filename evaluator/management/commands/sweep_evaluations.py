"""Reaper and dispatcher in one command, for deployments without celery beat."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from evaluator import services


class Command(BaseCommand):
    help = "Re-queue evaluations whose lease expired and re-send queued ones nobody picked up."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", type=float, metavar="SECONDS", default=None,
                            help="repeat every SECONDS until interrupted")

    def handle(self, *args: Any, loop: float | None = None, **options: Any) -> None:
        while True:
            requeued, failed = services.reap_expired()
            resent = services.dispatch_stale()
            self.stdout.write(f"requeued {requeued}, failed {failed}, resent {resent}")
            if loop is None:
                return
            time.sleep(loop)
