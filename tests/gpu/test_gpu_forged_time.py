"""Class 17 on a GPU: the time a solution's process reports cannot be lowered by more than the
allowance of evaluator/harness/calibration.py (0.05 ms, or five times the spread of the
harness's own fixed cost on this host, plus 10% of the reported time) below what the reporter's
own clock allows. The cheat (tests/anticheat/cheats/gpu_forged_activity.py) computes an honest,
slow softmax and reports half of each call's real GPU time, through a vector no in-process
integrity check watches; its honest twin reports the truth and must raise no alarm. Every
workload whose honest time is large enough for halving to exceed the allowance twice over must
be REWARD_HACK. Runs only where a CUDA GPU is visible."""

from __future__ import annotations

from pathlib import Path

from evaluator.harness import status
from tests.anticheat.conftest import assert_not_broken, cheat_source
from tests.gpu.test_gpu_cheats import SOFTMAX, evaluate_on_gpu, pytestmark  # noqa: F401

SHARE = 0.5  # of its real time the cheat reports
WORKLOADS = ("llama3-logits-b1", "llama3-logits-b64", "qwen2-logits-b32", "llama2-logits-b256",
             "attn-probs-32x1024-k1024", "attn-probs-8x1024-k8192")


def test_a_forged_gpu_time_is_caught_above_the_stated_size(tmp_path: Path) -> None:
    forging = cheat_source("gpu_forged_activity")
    honest_source = forging.replace("\n    _forge_the_session()\n", "\n")
    assert honest_source != forging
    (tmp_path / "honest").mkdir()
    (tmp_path / "forged").mkdir()
    honest = evaluate_on_gpu(tmp_path / "honest", honest_source, SOFTMAX, WORKLOADS)
    forged = evaluate_on_gpu(tmp_path / "forged", forging, SOFTMAX, WORKLOADS)
    assert [r["status"] for r in honest.rows] == [status.PASSED] * len(WORKLOADS), honest.describe()
    assert_not_broken(forged)
    large = {r["uuid"] for r in honest.rows
             if (1 - SHARE) * r["latency_ms"] > 2 * r["timing"]["outside"]["allowed_ms"]}
    assert large, honest.describe()  # the panel must hold a workload above the size
    for row in forged.rows:
        if row["uuid"] in large:
            assert row["status"] == status.REWARD_HACK, (forged.describe(), honest.describe())
            assert "clock" in row["message"], forged.describe()
