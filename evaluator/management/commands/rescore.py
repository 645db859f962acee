"""`manage.py rescore --top N [--dry-run]`: after a harness change that can alter verdicts or times
(evaluator.harness.HARNESS_VERSION raised), evaluate again the first N entries of every current
board that an older harness measured (evaluator/rescore.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluator.harness import HARNESS_VERSION
from evaluator.rescore import rescore_top


class Command(BaseCommand):
    help = "Evaluate again each board's leading entries that an older harness measured."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--top", type=int, required=True, help="how many entries of each board")
        parser.add_argument("--dry-run", action="store_true", help="list them, queue nothing")

    def handle(self, *args: Any, top: int, dry_run: bool, **options: Any) -> None:
        try:
            done = rescore_top(top, dry_run=dry_run)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        for item in done:
            board = f"{item.entry.problem.name} on {item.entry.hardware.slug}"
            what = (f"queued evaluation #{item.new.pk}" if item.new is not None
                    else "would queue a rescore" if dry_run else "a rescore is already pending")
            measured = item.old.harness_version or "an unrecorded harness"
            self.stdout.write(f"{board}: {item.entry.user.username} (evaluation #{item.old.pk}, "
                              f"measured by {measured}): {what}")
        queued = sum(1 for item in done if item.new is not None)
        self.stdout.write(f"{queued} rescore(s) queued under harness {HARNESS_VERSION}; "
                          f"{len(done) - queued} listed only")
