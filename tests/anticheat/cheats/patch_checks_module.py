"""Harness patching through sys.modules: the harness's comparison module
(sys.modules["evaluator.harness.checks"], imported if it is not there yet) gets every checking
function replaced by one that answers PASSED. The kernel is wrong (no bias).

A naive harness that compares outputs in the process the solution runs in uses the replaced
functions and passes anything."""

import importlib
import sys

import torch

checks = sys.modules.get("evaluator.harness.checks") or importlib.import_module("evaluator.harness.checks")
_passed = checks.CheckResult(checks.status.PASSED)


def _always_passed(*args: object, **kwargs: object) -> object:
    return _passed


for _name in ("check_outputs", "check_tensor", "check_structure", "compare_values"):
    if hasattr(checks, _name):
        setattr(checks, _name, _always_passed)


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x * 2.0
