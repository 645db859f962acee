"""A forbidden operation run at import time: while its module is imported, the solution runs the
vendor's matrix product under an ATen name (torch.ops.aten.mm), here to check its own kernel
against the vendor's, as easily to precompute whatever does not depend on the inputs, and carries
on quietly if that is refused. run() computes the product itself.

A harness that forbids names, and only while run() runs, never learns the vendor library ran."""

import torch


def _own(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a[:, :, None] * b[None, :, :]).sum(1)


def _self_check() -> bool:
    probe = torch.arange(12.0).reshape(3, 4)
    try:
        vendor = torch.ops.aten.mm.default(probe, probe.T)
    except Exception:
        return False
    return bool(torch.allclose(vendor, _own(probe, probe.T)))


SELF_CHECKED = _self_check()


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _own(a, b)
