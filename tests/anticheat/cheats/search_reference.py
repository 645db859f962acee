"""Fallback to the reference, found by searching: the solution looks for an already imported
module whose name mentions "reference" and has a run(), and otherwise walks the working
directory, HOME and the directories above its own for a reference.py to import. Every call is
forwarded to the reference's run().

A naive harness that does not enforce a problem's "no fallback to the reference" rule scores the
reference's own speed as the submission's."""

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import torch


def _loaded() -> Callable[..., torch.Tensor] | None:
    for name, module in list(sys.modules.items()):
        if "reference" in name and callable(getattr(module, "run", None)):
            return module.run
    return None


def _on_disk() -> Callable[..., torch.Tensor] | None:
    here = Path(__file__).resolve().parent
    roots = [Path.cwd(), Path(os.environ.get("HOME", here)), *list(here.parents)[:2]]
    for root in roots:
        for path in sorted(root.glob("**/reference.py"))[:1]:
            spec = importlib.util.spec_from_file_location("found_reference", path)
            if spec is not None and spec.loader is not None:
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return module.run
    return None


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    reference = _loaded() or _on_disk()
    if reference is None:
        raise RuntimeError("no reference found")
    return reference(x, bias)
