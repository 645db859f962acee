"""The sweeper: the reaper and the dispatcher in one command, once or in a loop (docs/evaluations.md)."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import InterfaceError, OperationalError, close_old_connections

from evaluator import services


class Command(BaseCommand):
    help = "Re-queue evaluations whose lease expired and re-send queued ones nobody picked up."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", type=float, metavar="SECONDS", default=None,
                            help="repeat every SECONDS until interrupted")

    def handle(self, *args: Any, loop: float | None = None, **options: Any) -> None:
        if loop is None:
            self.sweep()
            return
        while True:
            try:
                self.sweep()
            except (OperationalError, InterfaceError) as exc:  # a database restart: try next round
                self.stderr.write(f"sweep skipped, the database is unreachable: {exc}")
            # As between two requests: a broken connection is dropped, a kept one checked before use.
            close_old_connections()
            time.sleep(loop)

    def sweep(self) -> None:
        requeued, failed = services.reap_expired()
        resent = services.dispatch_stale()
        self.stdout.write(f"requeued {requeued}, failed {failed}, resent {resent}")
