"""The evaluator's toolchain settings reach the harness: CUTLASS_DIR (where CUTLASS's headers are
kept) is passed into the sandbox and, under bubblewrap, its folder is readable there, so a CUTLASS
solution builds with the evaluator's headers rather than failing on a missing include."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evaluator.supervise import SuperviseOptions, _environment
from sandbox import Limits, get_backend
from tests.conftest import ROOT
from tests.sandbox.backends import require

READ_HEADER = ("import os; "
               "print(open(os.path.join(os.environ['CUTLASS_DIR'], 'include', 'cutlass.h')).read())")


def test_cutlass_dir_is_passed_to_the_harness(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CUTLASS_DIR", "/opt/cutlass")
    assert _environment(tmp_path, SuperviseOptions())["CUTLASS_DIR"] == "/opt/cutlass"
    monkeypatch.delenv("CUTLASS_DIR")
    assert "CUTLASS_DIR" not in _environment(tmp_path, SuperviseOptions())


def test_cutlass_headers_are_readable_inside_bubblewrap(monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    require("bubblewrap")
    cutlass = tmp_path / "cutlass"
    (cutlass / "include").mkdir(parents=True)
    (cutlass / "include" / "cutlass.h").write_text("#pragma once // the evaluator's copy\n")
    job = tmp_path / "job"
    job.mkdir()
    monkeypatch.setenv("CUTLASS_DIR", str(cutlass))
    env = {**_environment(job, SuperviseOptions()), "PYTHONPATH": str(ROOT)}
    result = get_backend("bubblewrap").run([sys.executable, "-c", READ_HEADER], job,
                                           Limits(wall_seconds=60), env)
    assert result.ok, result.stderr
    assert "the evaluator's copy" in result.stdout
