"""The cheats of ANTICHEAT.md that need a GPU: hidden work on another stream, deferred past the
return, or on a thread racing the harness (class 3), input lines pinned in L2 by a persisting
access-policy window so the cold-cache flush misses them (class 14), GPU work left running while
the reference and baseline are timed (class 22) and the answer written after the call said done
(class 30). The cheat files live in tests/anticheat/cheats/ (gpu_*.py). Runs only where a CUDA
GPU is visible; the hooks of the last two need Python 3.12 (sys.monitoring)."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import pytest
import torch

from evaluator.harness import status
from evaluator.harness.problem import load_problem
from evaluator.jobs import SolutionFiles
from tests.anticheat.conftest import CheatRun, assert_not_broken, assert_reward_hack, cheat_source, scored
from tests.conftest import ROOT, SCALE_SHIFT, Evaluated
from tests.gpu.support import run_on_gpu

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU"),
]

SOFTMAX = ROOT / "problems" / "softmax"  # forbids torch.softmax: the cheats compute it by hand
SOFTMAX_WORKLOADS = ("llama3-logits-b1", "qwen2-logits-b32")
L2_WORKLOAD = "rows1024_cols4096"  # scale_shift: x and y of 16 MiB each, inside the L2 set-aside
SPIN_MS = 0.3  # well under the ~1 ms spin of gpu_deferred_write at any clock


def evaluate_on_gpu(tmp_path: Path, source: str, problem_dir: Path, uuids: tuple[str, ...]) -> CheatRun:
    problem = load_problem(problem_dir)
    workloads = [w for w in problem.workloads if w.uuid in uuids]
    path = tmp_path / "solution.py"
    path.write_text(source, encoding="utf-8")
    job_dir = tmp_path / "job"
    outcome = run_on_gpu(job_dir, problem, SolutionFiles.from_path(path), workloads, secrets.randbits(48))
    return scored(Evaluated(problem, workloads, outcome), job_dir / "solution", "h200")


def assert_timed_honestly(run: CheatRun, least_ms: dict[str, float]) -> None:
    """Every passed workload's time includes the hidden work (at least least_ms[uuid])."""
    assert_not_broken(run)
    crashed = [r for r in run.rows if r["status"] == status.RUNTIME_ERROR]
    assert not crashed, run.describe()
    for row in run.rows:
        if row["status"] == status.PASSED:
            assert row["latency_ms"] >= least_ms[row["uuid"]], run.describe()


def test_work_on_a_side_stream_is_timed(tmp_path: Path) -> None:
    run = evaluate_on_gpu(tmp_path, cheat_source("gpu_side_stream"), SOFTMAX, SOFTMAX_WORKLOADS)
    # twenty unfused passes: far slower than one fused pass, if the side stream is counted
    assert_timed_honestly(run, {r["uuid"]: 5 * (r["baseline_latency_ms"] or 0.0) for r in run.rows})


def test_a_write_deferred_past_the_return_is_timed(tmp_path: Path) -> None:
    run = evaluate_on_gpu(tmp_path, cheat_source("gpu_deferred_write"), SOFTMAX, SOFTMAX_WORKLOADS)
    assert_timed_honestly(run, {r["uuid"]: SPIN_MS for r in run.rows})


def test_a_thread_racing_the_harness_is_caught_and_named(tmp_path: Path) -> None:
    run = evaluate_on_gpu(tmp_path, cheat_source("gpu_thread_race"), SOFTMAX, SOFTMAX_WORKLOADS)
    assert_reward_hack(run, "thread")


def test_persisting_l2_lines_do_not_survive_the_flush(tmp_path: Path) -> None:
    pinned_source = cheat_source("gpu_persisting_l2")
    honest_source = pinned_source.replace("\nPIN = True\n", "\nPIN = False\n")
    assert honest_source != pinned_source
    (tmp_path / "honest").mkdir()
    (tmp_path / "pinned").mkdir()
    honest = evaluate_on_gpu(tmp_path / "honest", honest_source, SCALE_SHIFT, (L2_WORKLOAD,))
    pinned = evaluate_on_gpu(tmp_path / "pinned", pinned_source, SCALE_SHIFT, (L2_WORKLOAD,))
    assert [r["status"] for r in honest.rows] == [status.PASSED], honest.describe()
    assert_not_broken(pinned)
    for row, twin in zip(pinned.rows, honest.rows, strict=True):
        if row["status"] == status.PASSED:
            # reads served from pinned L2 lines would make the same kernel markedly faster
            assert row["latency_ms"] >= 0.85 * twin["latency_ms"], (pinned.describe(), honest.describe())
            assert not row["below_sol"], pinned.describe()


@pytest.mark.parametrize("name", ["gpu_gc_hook_late_launch", "gpu_idle_helper_late_launch"])
def test_work_launched_after_the_window_is_caught(tmp_path: Path, name: str) -> None:
    run = evaluate_on_gpu(tmp_path, cheat_source(name), SCALE_SHIFT, (L2_WORKLOAD,))
    assert_not_broken(run)
    assert_timed_honestly(run, {r["uuid"]: SPIN_MS for r in run.rows})  # the spin alone


needs_monitoring = pytest.mark.skipif(sys.version_info < (3, 12),
                                      reason="the cheat hooks through sys.monitoring")


@needs_monitoring
def test_an_answer_written_after_done_is_never_read(tmp_path: Path) -> None:
    """The outputs are checked as the reporter's own stream froze them once the call said done:
    the late write lands in the shared buffer after that, and the call fails."""
    run = evaluate_on_gpu(tmp_path, cheat_source("gpu_write_after_done"), SCALE_SHIFT, (L2_WORKLOAD,))
    assert_not_broken(run)
    assert_timed_honestly(run, {r["uuid"]: SPIN_MS for r in run.rows})
    assert all(r["status"] != status.PASSED for r in run.rows), run.describe()


@needs_monitoring
def test_gpu_work_left_running_under_the_yardsticks_is_caught(tmp_path: Path) -> None:
    run = evaluate_on_gpu(tmp_path, cheat_source("gpu_busy_yardsticks"), SCALE_SHIFT, (L2_WORKLOAD,))
    assert_reward_hack(run, "still running")
