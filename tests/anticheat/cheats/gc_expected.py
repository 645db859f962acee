"""Reading the answer through gc: the solution searches gc.get_objects() for a tensor of the
output's shape and dtype that is not one of its inputs (the expected output, an output buffer the
harness will compare against, an earlier result) and returns a copy of it, preferring one with
no NaN in it. It computes nothing.

A naive harness that computes the expected output in the solution's process before the call
leaves it lying in memory, where the solution finds it."""

import gc

import torch


def _candidates(x: torch.Tensor, bias: torch.Tensor) -> list[torch.Tensor]:
    inputs = {x.data_ptr(), bias.data_ptr()}
    found = []
    for obj in gc.get_objects():
        if type(obj) is torch.Tensor and obj.shape == x.shape and obj.dtype == x.dtype:
            if obj.data_ptr() not in inputs and obj is not x:
                found.append(obj)
    return found


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    found = _candidates(x, bias)
    clean = [t for t in found if bool(torch.isfinite(t).all())]
    pick = (clean or found or [torch.empty_like(x)])[-1]
    return pick.detach().clone()
