"""Store measured peaks (python -m evaluator.harness.calibrate --json on the GPU host) as a
hardware's calibrated peaks, which SOL bounds then use in place of the datasheet's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.services import store_calibration


class Command(BaseCommand):
    help = "Store the peaks in FILE (the calibration's JSON) as the calibrated peaks of hardware SLUG."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, slug: str, file: Path, **options: Any) -> None:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{file}: {exc}") from exc
        peaks = data.get("peaks", data) if isinstance(data, dict) else data
        try:
            stored = store_calibration(slug, peaks)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{slug}: {len(stored)} calibrated peaks stored")
