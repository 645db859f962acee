"""Harness patching through __code__: the checking functions of the harness's comparison module
keep their identity but get their code object swapped for one that returns PASSED (the names it
uses resolve in the checks module's own globals). The kernel is wrong (no bias).

A naive harness, or one that only checks that its functions are still the same objects, calls
the hollowed-out functions and passes anything."""

import importlib
import sys

import torch

checks = sys.modules.get("evaluator.harness.checks") or importlib.import_module("evaluator.harness.checks")


def _pass_everything(*args: object, **kwargs: object) -> object:
    harness_globals = globals()  # the checks module's, once this code runs as one of its functions
    return harness_globals["CheckResult"](harness_globals["status"].PASSED)


for _name in ("check_outputs", "check_tensor", "check_structure", "compare_values"):
    _function = getattr(checks, _name, None)
    if _function is not None:
        _function.__code__ = _pass_everything.__code__
        _function.__defaults__ = None


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return x * 2.0
