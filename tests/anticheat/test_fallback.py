"""Class 13, fallback: forwarding every call to the problem's reference (imported from the job
directory, or found among loaded modules and on disk) must be caught and named (REWARD_HACK).

Class 23, aliased fallback: the operation a problem forbids, reached under another name (an ATen
operator, einsum, a bmm of one, tensordot, the C function behind torch.mm) or outside run() (at
import time, from a hook, from a thread), or after tampering with the harness's guard of it at
the dispatcher, must be caught and the forbidden operation named.

The fixture problem scale_shift lists no forbidden functions: running the problem's own reference
instead of a kernel is refused for every problem, not by a rule. tiny_matmul forbids the matrix
product by the names gemm_bf16 uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from evaluator.harness import status
from tests.anticheat.conftest import (
    CheatRun,
    assert_never_scores,
    assert_reward_hack,
    current_backend,
    evaluate_cheat,
)
from tests.conftest import FIXTURES, evaluate_source

TINY_MATMUL = FIXTURES / "problems" / "tiny_matmul"
NAMED = "which this problem forbids as torch.matmul"  # in every verdict on the matrix product
# Each raises out of run() (the harness's kernel refuses the operator): REWARD_HACK all the same.
RAISING_ALIASES = ["alias_aten_mm", "alias_einsum", "alias_bmm_of_one", "alias_tensordot",
                   "alias_builtin_name"]
# These swallow the refusal or reach the operation outside run().
QUIET = ["alias_probe_then_hide", "forbidden_at_import", "forbidden_in_finalizer", "forbidden_from_thread",
         "tamper_destroy_overrides"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], CheatRun]:
    """Each cheat evaluated once on tiny_matmul, shared by the tests that look at it."""
    runs: dict[tuple[str, str], CheatRun] = {}

    def evaluated(name: str) -> CheatRun:
        key = (name, current_backend())  # once per sandbox backend
        if key not in runs:
            runs[key] = evaluate_cheat(tmp_path_factory.mktemp(name), name, problem_dir=TINY_MATMUL)
        return runs[key]

    return evaluated


@pytest.mark.parametrize("name", ["import_job_reference", "search_reference"])
def test_calling_the_reference_is_caught_and_named(tmp_path: Path, name: str) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, name), "reference", "fallback")


@pytest.mark.parametrize("name", RAISING_ALIASES)
def test_an_aliased_forbidden_operation_never_scores_and_is_named(tiny: Callable[[str], CheatRun],
                                                                  name: str) -> None:
    run = tiny(name)
    assert_never_scores(run)
    assert NAMED in run.text_seen_by_submitter() and "aten::" in run.text_seen_by_submitter()


@pytest.mark.parametrize("name", RAISING_ALIASES)
def test_an_aliased_forbidden_operation_is_a_reward_hack(tiny: Callable[[str], CheatRun], name: str) -> None:
    assert_forbidden_operation_named(tiny(name))


@pytest.mark.parametrize("name", QUIET)
def test_a_forbidden_operation_reached_quietly_or_outside_run_is_caught(tiny: Callable[[str], CheatRun],
                                                                         name: str) -> None:
    assert_forbidden_operation_named(tiny(name))


def test_a_kernel_registered_over_the_harness_guard_is_caught(tiny: Callable[[str], CheatRun]) -> None:
    run = tiny("tamper_override_kernel")
    assert_reward_hack(run, "removed or replaced")
    assert "aten::mm" in run.text_seen_by_submitter()


def assert_forbidden_operation_named(run: CheatRun) -> None:
    assert_reward_hack(run, NAMED)
    hacks = " ".join(r["message"] for r in run.rows if r["status"] == status.REWARD_HACK)
    assert "aten::" in hacks, run.describe()


HONEST_TORCH = """
import torch

def run(a, b):
    return (a[:, :, None] * b[None, :, :]).sum(1)
"""
HONEST_TRITON = """
import torch
import triton
import triton.language as tl

@triton.jit
def _matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        x = tl.load(a + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        y = tl.load(b + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

def run(a, b):
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty(m, n, dtype=torch.float32)
    _matmul[(triton.cdiv(m, 16), triton.cdiv(n, 16))](a, b, c, m, n, k, BM=16, BN=16, BK=16)
    return c
"""


@pytest.mark.parametrize("source", [HONEST_TORCH, HONEST_TRITON], ids=["torch", "triton"])
def test_an_honest_solution_where_operations_are_forbidden_passes(tmp_path: Path, source: str) -> None:
    evaluated = evaluate_source(tmp_path, source, problem_dir=TINY_MATMUL, backend=current_backend())
    assert set(evaluated.statuses.values()) == {status.PASSED}, evaluated.outcome.results

