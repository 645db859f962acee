"""FLOPs counted from a problem's reference on fake tensors (evaluator/harness/flops.py): what is
counted, what is not, and a reference that cannot run there giving a reason, never an exception."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from evaluator.harness import flops
from evaluator.harness.flops import count_reference_flops
from evaluator.harness.problem import Definition, definition_from_json


def definition(reference: str, inputs: dict[str, Any], axes: dict[str, Any]) -> Definition:
    """Only the inputs matter to the count; the output is declared like the first input."""
    first = next(iter(inputs.values()))
    return definition_from_json({"name": "counted", "axes": axes, "inputs": inputs,
                                 "outputs": {"out": first}, "reference": reference})


GEMM = definition(
    "import torch\ndef run(a, b):\n    return (a.float() @ b.float().T).to(torch.bfloat16)\n",
    {"a": {"shape": ["m", "k"], "dtype": "bfloat16"}, "b": {"shape": ["n", "k"], "dtype": "bfloat16"}},
    {"m": {"type": "var"}, "n": {"type": "var"}, "k": {"type": "const", "value": 4096}},
)


def test_a_matrix_product_counts_two_flops_a_multiply_add() -> None:
    count = count_reference_flops(GEMM, {"m": 8192, "n": 28672})
    assert count.flops == 2 * 8192 * 28672 * 4096  # nothing the size of these is allocated
    assert count.reason == ""


def test_attention_counts_both_products_and_the_full_square_when_causal() -> None:
    sdpa = definition(
        "import torch.nn.functional as F\n"
        "def run(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v, is_causal=True)\n",
        {name: {"shape": ["b", "h", "s", "d"], "dtype": "bfloat16"} for name in ("q", "k", "v")},
        {"b": {"type": "var"}, "h": {"type": "const", "value": 8}, "s": {"type": "var"},
         "d": {"type": "const", "value": 128}},
    )
    # q @ k^T and p @ v, 2 * s * s * d each per head; the masked half is counted too
    assert count_reference_flops(sdpa, {"b": 2, "s": 1024}).flops == 2 * 8 * 4 * 1024 * 1024 * 128


def test_a_convolution_is_counted() -> None:
    conv = definition(
        "import torch.nn.functional as F\ndef run(x, w):\n    return F.conv2d(x, w, padding=1)\n",
        {"x": {"shape": ["n", "c", "hw", "hw"], "dtype": "float32"},
         "w": {"shape": ["f", "c", "three", "three"], "dtype": "float32"}},
        {"n": {"type": "var"}, "c": {"type": "const", "value": 64}, "hw": {"type": "const", "value": 56},
         "f": {"type": "const", "value": 128}, "three": {"type": "const", "value": 3}},
    )
    # 2 * output elements (n * f * 56 * 56) * c * 3 * 3
    assert count_reference_flops(conv, {"n": 4}).flops == 2 * 4 * 128 * 56 * 56 * 64 * 9


def test_elementwise_work_and_reductions_count_nothing() -> None:
    norm = definition(
        "import torch\ndef run(x, eps):\n"
        "    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)\n",
        {"x": {"shape": ["t", "h"], "dtype": "float32"}, "eps": {"shape": None, "dtype": "float32"}},
        {"t": {"type": "var"}, "h": {"type": "const", "value": 4096}},
    )
    assert count_reference_flops(norm, {"t": 128}, {"eps": {"type": "scalar", "value": 1e-6}}).flops == 0.0


def test_scalar_inputs_take_the_workloads_values() -> None:
    repeated = definition(
        "def run(a, times):\n    for _ in range(times):\n        a = a @ a\n    return a\n",
        {"a": {"shape": ["n", "n"], "dtype": "float32"}, "times": {"shape": None, "dtype": "int32"}},
        {"n": {"type": "var"}},
    )
    three = count_reference_flops(repeated, {"n": 64}, {"times": {"type": "scalar", "value": 3}})
    assert three.flops == 3 * 2 * 64**3
    # a scalar the workload does not give (custom inputs) is 1
    assert count_reference_flops(repeated, {"n": 64}, {"times": {"type": "custom"}}).flops == 2 * 64**3


@pytest.mark.parametrize(("reference", "why"), [
    ("def run(a, b):\n    return a[: int(a.sum().item())]\n", "did not run on fake tensors"),
    ("import torch\ndef run(a, b):\n    return a[a > 0] @ b\n", "did not run on fake tensors"),
    ("import a_module_nobody_has\ndef run(a, b):\n    return a\n", "ModuleNotFoundError"),
    ("raise RuntimeError('not here')\ndef run(a, b):\n    return a\n", "RuntimeError: not here"),
    ("def run(a, b):\n    return a.view(3, -1)\n", "did not run on fake tensors"),
])
def test_a_reference_that_cannot_run_gives_a_reason(reference: str, why: str) -> None:
    broken = definition(reference, {"a": {"shape": ["n"], "dtype": "float32"},
                                    "b": {"shape": ["n"], "dtype": "float32"}}, {"n": {"type": "var"}})
    count = count_reference_flops(broken, {"n": 16})
    assert count.flops is None
    assert why in count.reason


def test_axes_that_do_not_resolve_give_a_reason() -> None:
    count = count_reference_flops(GEMM, {"m": 4})  # n missing
    assert count.flops is None and "axes do not resolve" in count.reason


def test_a_reference_running_too_many_operators_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flops, "MAX_OPERATORS", 50)
    looping = definition("def run(a):\n    for _ in range(1000):\n        a = a + 1\n    return a\n",
                         {"a": {"shape": ["n"], "dtype": "float32"}}, {"n": {"type": "var"}})
    count = count_reference_flops(looping, {"n": 7})
    assert count.flops is None and "more than 50 operators" in count.reason


def test_counts_are_cached_per_reference_and_shapes() -> None:
    before = flops._count.cache_info()
    first = count_reference_flops(GEMM, {"m": 3, "n": 5})
    again = count_reference_flops(GEMM, {"m": 3, "n": 5})
    other = count_reference_flops(GEMM, {"m": 3, "n": 6})
    after = flops._count.cache_info()
    assert first == again and other.flops == 2 * 3 * 6 * 4096
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 2)


def test_without_torch_there_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    count = count_reference_flops(GEMM, {"m": 11, "n": 13})
    assert count.flops is None and "PyTorch was not installed" in count.reason
    flops._count.cache_clear()  # that answer must not outlive the patch
