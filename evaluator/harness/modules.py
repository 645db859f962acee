"""Importing solutions (a .py file or a SOL-ExecBench solution.json) and problem sources."""

from __future__ import annotations

import importlib.util
import json
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


class SolutionLoadError(Exception):
    """The solution could not be imported or built; the message is for its author."""


@dataclass(frozen=True)
class LoadedSolution:
    run: Callable[..., Any]
    destination_passing: bool
    language: str
    source_file: Path


def import_file(path: Path, module_name: str) -> ModuleType:
    """Import a Python file as a module (files, not strings: Triton reads kernel sources)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def load_solution(path: Path) -> LoadedSolution:
    """Load a solution: a .py file defining run, or a solution.json with sources beside it."""
    if path.suffix == ".json":
        return _load_solution_json(path)
    module = _import_user(path, path.parent)
    run = getattr(module, "run", None)
    if not callable(run):
        raise SolutionLoadError(f"{path.name} defines no function run(...)")
    dps = bool(getattr(module, "DESTINATION_PASSING_STYLE", False))
    language = str(getattr(module, "LANGUAGE", "python"))
    return LoadedSolution(run, dps, language, path)


def _load_solution_json(path: Path) -> LoadedSolution:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        spec = data["spec"]
        entry = spec["entry_point"]
        file_name, func_name = entry.split("::", 1)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SolutionLoadError(
            f"solution.json needs spec.entry_point as 'file::function' ({exc!r})"
        ) from None
    language = spec.get("language", "python")
    dps = bool(spec.get("destination_passing_style", True))
    root = path.parent
    target = (root / file_name).resolve()
    if root.resolve() not in target.parents or not target.is_file():
        raise SolutionLoadError(f"entry point file {file_name!r} is not among the sources")
    if language in ("cuda", "cpp"):
        run = _build_extension(root, spec, func_name)
    else:
        module = _import_user(target, root)
        run = getattr(module, func_name, None)
        if not callable(run):
            raise SolutionLoadError(f"{file_name} defines no function {func_name}(...)")
    return LoadedSolution(run, dps, language, target)


def _import_user(path: Path, root: Path) -> ModuleType:
    sys.path.insert(0, str(root))
    try:
        return import_file(path, "solarena_solution")
    except Exception as exc:  # anything the user's module raises while importing
        raise SolutionLoadError(describe_exception(exc, path)) from None
    finally:
        sys.path.remove(str(root))


def _build_extension(root: Path, spec: dict[str, Any], func_name: str) -> Callable[..., Any]:
    from torch.utils import cpp_extension

    sources = sorted(str(p) for p in root.rglob("*") if p.suffix in (".cu", ".cpp", ".cc"))
    if not sources:
        raise SolutionLoadError("a cuda/cpp solution needs .cu or .cpp sources")
    options = spec.get("compile_options") or {}
    build_dir = root / ".build"
    build_dir.mkdir(exist_ok=True)
    try:
        module = cpp_extension.load(
            name="solarena_ext",
            sources=sources,
            extra_cflags=list(options.get("cflags", [])) or ["-O3"],
            extra_cuda_cflags=list(options.get("cuda_cflags", [])) or ["-O3"],
            extra_ldflags=list(options.get("ld_flags", [])),
            build_directory=str(build_dir),
            verbose=False,
        )
    except Exception as exc:
        raise SolutionLoadError(f"build failed: {str(exc)[-2000:]}") from None
    run = getattr(module, func_name, None)
    if not callable(run):
        raise SolutionLoadError(f"the built extension exports no function {func_name}")
    return run


def describe_exception(exc: BaseException, user_file: Path | None = None) -> str:
    """One readable line: the exception and where in the user's file it came from."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    if user_file is not None:
        frames = [f for f in traceback.extract_tb(exc.__traceback__)
                  if Path(f.filename).name == user_file.name]
        if frames:
            text += f" (at {user_file.name}:{frames[-1].lineno})"
    return text[:2000]


def is_compile_error(exc: BaseException) -> bool:
    """Triton and torch compilation failures raised at the first call.

    On a GPU Triton raises CompilationError. Its CPU interpreter compiles nothing and wraps
    everything in InterpreterError; there, an error raised by triton.language's own checks
    (what the compiler would have rejected) counts as a compile error too.
    """
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"CompilationError", "CompileTimeAssertionFailure", "BackendCompilerFailed"}:
        return True
    cause = exc.__cause__ or exc.__context__
    if "InterpreterError" in names and cause is not None:
        frames = traceback.extract_tb(cause.__traceback__)
        return bool(frames) and "/triton/language/" in frames[-1].filename.replace("\\", "/")
    return False
