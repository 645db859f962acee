"""Softmax over the last dimension, written out in float32: shift by the row max, exp, normalize."""

import torch


def run(x: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    shifted = xf - xf.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return (e / e.sum(dim=-1, keepdim=True)).to(torch.float32)
