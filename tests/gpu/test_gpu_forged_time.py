"""Classes 17 and 31 on a GPU: the time a solution's process reports cannot be lowered by more than
the allowance of evaluator/harness/calibration.py (5 us, or 10% of the reported time) below the
reporter's own bracket of each call on the GPU (evaluator/harness/gpu_bracket.py), less the
harness's overhead measured on its null problem. The cheat (tests/anticheat/cheats/
gpu_forged_activity.py) computes an honest, slow softmax and reports half of each call's real
GPU time, through a vector no in-process integrity check watches; its honest twin reports the
truth and is charged nothing. Runs only where a CUDA GPU is visible."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import assert_not_broken, cheat_source
from tests.gpu.test_gpu_cheats import SOFTMAX, evaluate_on_gpu, pytestmark  # noqa: F401

SHARE = 0.5  # of its real time the cheat reports
NOISE = 0.05  # the same kernel timed in two runs
WORKLOADS = ("llama3-logits-b1", "llama3-logits-b64", "qwen2-logits-b32", "llama2-logits-b256",
             "attn-probs-32x1024-k1024", "attn-probs-8x1024-k8192")


def test_a_forged_gpu_time_gains_no_more_than_the_allowance(tmp_path: Path) -> None:
    forging = cheat_source("gpu_forged_activity")
    honest_source = forging.replace("\n    _forge_the_session()\n", "\n")
    assert honest_source != forging
    (tmp_path / "honest").mkdir()
    (tmp_path / "forged").mkdir()
    honest = evaluate_on_gpu(tmp_path / "honest", honest_source, SOFTMAX, WORKLOADS)
    forged = evaluate_on_gpu(tmp_path / "forged", forging, SOFTMAX, WORKLOADS)
    assert [r["status"] for r in honest.rows] == [status.PASSED] * len(WORKLOADS), honest.describe()
    assert_not_broken(forged)
    for row, twin in zip(forged.rows, honest.rows, strict=True):
        assert twin["timing"]["outside"]["charged_calls"] <= twin["timing"]["outside"]["calls"] // 4, twin
        if row["status"] != status.PASSED:
            continue
        held = row["timing"]["outside"]
        assert held["charged_calls"] > held["calls"] // 2, (forged.describe(), held)
        floor = (1 - NOISE) * twin["latency_ms"] - held["allowance_ms"]
        assert row["latency_ms"] >= floor, (forged.describe(), honest.describe())
