"""Class 4, lazy outputs: a tensor subclass with __torch_function__, one made by _make_subclass,
a storage-less wrapper subclass with __torch_dispatch__, and an object that is no tensor but
converts and compares like the answer must all be refused by name (REWARD_HACK): outputs are
exactly torch.Tensor with real storage."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.anticheat.conftest import assert_reward_hack, evaluate_cheat

LAZY = ["lazy_torch_function", "lazy_make_subclass", "lazy_wrapper_subclass", "lazy_not_a_tensor"]


@pytest.mark.parametrize("name", LAZY)
def test_a_lazy_output_is_refused_by_name(tmp_path: Path, name: str) -> None:
    assert_reward_hack(evaluate_cheat(tmp_path, name), "subclass", "not a tensor", "plain tensor", "storage",
                       "lazy")
