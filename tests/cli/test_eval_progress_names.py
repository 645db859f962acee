"""`solarena eval`'s progress bar names the workload it runs: whole when it fits, and cut with a
visible "…" when not (a name cut silently reads as another), brackets shown as text."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from evaluator.scoring import numbers
from solarena import cli

LONG = "a-workload-name-longer-than-twenty-four-characters"


def shown_while_running(monkeypatch: pytest.MonkeyPatch, uuid: str) -> str:
    def harness(job_dir: Path, uuids: list[str], options: Any, progress: Any = None) -> str:
        progress({"event": "start", "uuid": uuid})  # what the bar shows when the run ends
        return "outcome"

    monkeypatch.setattr(cli, "run_harness", harness)
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=120, color_system=None)
    workloads: Any = [type("W", (), {"uuid": uuid})()]
    assert cli._run_with_progress(Path("job"), workloads, None, console, quiet=False) == "outcome"
    return buffer.getvalue()


def test_a_long_name_is_cut_with_a_mark(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = shown_while_running(monkeypatch, LONG)
    assert f"workload {LONG[:23]}…" in shown and LONG[:24] not in shown


def test_a_short_name_is_whole_and_brackets_are_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "workload gemm[large]" in shown_while_running(monkeypatch, "gemm[large]")


def test_cut_name() -> None:
    assert numbers.cut("gemm") == "gemm"
    assert numbers.cut("x" * 24) == "x" * 24
    assert numbers.cut("x" * 25) == "x" * 23 + "…"
