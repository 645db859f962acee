"""Reading a profile run's Nsight Compute report back (evaluator/ncu_runs.read_back): `ncu --import`
runs in the run's sandbox on the report in its job directory, its CSV becomes the launches; a
report ncu cannot read, or none, is an NcuError that quotes ncu's own error (what the fallback to
torch's profiler reports). With the fake ncu of tests/fixtures/ncu/fake_ncu.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator import ncu_runs
from evaluator.harness import ncu
from evaluator.supervise import SuperviseOptions
from tests import fake_ncu
from tests.sandbox.backends import require


@pytest.fixture(params=["none", "bubblewrap"])
def setup(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, SuperviseOptions]:
    require(request.param)
    job_dir = tmp_path / "job"
    job_dir.mkdir()
    return str(fake_ncu.install(tmp_path / "bin")), job_dir, SuperviseOptions(backend=request.param)


def test_a_report_reads_back_as_its_launches(setup: tuple[str, Path, SuperviseOptions]) -> None:
    fake, job_dir, options = setup
    (job_dir / ncu_runs.REPORT).write_bytes(fake_ncu.MARK + b"job")
    launches = ncu_runs.read_back(fake, job_dir / ncu_runs.REPORT, job_dir, options)
    assert launches == ncu.parse_details(fake_ncu.DETAILS.read_text())
    assert not (job_dir / "job.ncu.csv").exists() and (job_dir.parent / "job.ncu.csv").exists()


def test_what_ncu_cannot_read_is_an_error_in_its_words(setup: tuple[str, Path, SuperviseOptions]) -> None:
    fake, job_dir, options = setup
    report = job_dir / ncu_runs.REPORT
    missing = r"^ncu wrote no report \(No such file or directory\): ==ERROR== x$"
    with pytest.raises(ncu.NcuError, match=missing):
        ncu_runs.read_back(fake, report, job_dir, options, log="==PROF== y\n==ERROR== x\n")
    report.write_bytes(b"rewritten by the solution")
    unreadable = r"^ncu --import exited with code 64: ==ERROR== fake ncu: .* is not a report$"
    with pytest.raises(ncu.NcuError, match=unreadable):
        ncu_runs.read_back(fake, report, job_dir, options)
