"""A forbidden function called from a hook that runs outside run(): each call's output carries a
weakref finalizer, which runs once the harness drops the output (after run() returned), and which
calls the vendor's torch.mm (looked up by a name built at run time) on that call's inputs, here
to check the answer, as easily to do any work the harness does not time. run() computes the
product itself.

A harness whose tripwires are armed only while run() runs never sees the hook's calls."""

import weakref

import torch


def _check(a: torch.Tensor, b: torch.Tensor) -> None:
    try:
        getattr(torch, "m" + "m")(a, b)
    except Exception:
        pass


def run(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = (a[:, :, None] * b[None, :, :]).sum(1)
    weakref.finalize(out, _check, a.clone(), b.clone())
    return out
