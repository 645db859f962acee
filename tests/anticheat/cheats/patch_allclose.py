"""Harness patching of torch's comparisons: torch.allclose, torch.isclose, torch.equal,
torch.testing.assert_close, Tensor.allclose and Tensor.__eq__ are replaced by functions that
say "equal". The kernel is wrong (no bias).

A naive harness that compares outputs with torch's own functions in the solution's process
accepts any output."""

import torch
import torch.testing


def _close(*args: object, **kwargs: object) -> bool:
    return True


def _all_equal(self: torch.Tensor, other: object) -> torch.Tensor:
    return torch.ones(self.shape, dtype=torch.bool, device=self.device)


def _all_close(*args: object, **kwargs: object) -> torch.Tensor:
    first = next(a for a in args if isinstance(a, torch.Tensor))
    return torch.ones(first.shape, dtype=torch.bool, device=first.device)


def _no_error(*args: object, **kwargs: object) -> None:
    return None


torch.allclose = _close
torch.equal = _close
torch.isclose = _all_close
torch.testing.assert_close = _no_error
torch.Tensor.allclose = _close
torch.Tensor.__eq__ = _all_equal


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x * 2.0
