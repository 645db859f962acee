"""Importing solutions (a .py file or a SOL-ExecBench solution.json) and problem sources."""

from __future__ import annotations

import importlib.util
import json
import os
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


PYTHON_LANGUAGES = frozenset({"python", "pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"})
NATIVE_LANGUAGES = frozenset({"cuda_cpp", "cutlass", "cudnn", "cublas", "cuda", "cpp"})
NATIVE_SOURCES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def solution_languages(spec: dict[str, Any]) -> list[str]:
    """SOL-ExecBench's spec.languages (a list), or the older single spec.language."""
    languages = spec.get("languages")
    if languages is None:
        languages = [spec.get("language", "python")]
    if isinstance(languages, str):
        languages = [languages]
    if not isinstance(languages, list) or not languages or not all(isinstance(x, str) for x in languages):
        raise SolutionLoadError("spec.languages must be a non-empty list of language names")
    unknown = [x for x in languages if x not in PYTHON_LANGUAGES | NATIVE_LANGUAGES]
    if unknown:
        raise SolutionLoadError(f"spec.languages: unknown language {unknown[0]!r} (known: "
                                f"{', '.join(sorted(PYTHON_LANGUAGES | NATIVE_LANGUAGES))})")
    if set(languages) & PYTHON_LANGUAGES and set(languages) & NATIVE_LANGUAGES:
        raise SolutionLoadError("spec.languages mixes Python and C++ languages, which cannot be "
                                "built together")
    return languages


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
    languages = solution_languages(spec)
    dps = bool(spec.get("destination_passing_style", True))
    root = path.parent
    target = (root / file_name).resolve()
    if root.resolve() not in target.parents or not target.is_file():
        raise SolutionLoadError(f"entry point file {file_name!r} is not among the sources")
    if languages[0] in NATIVE_LANGUAGES:
        run = _build_extension(root, spec, func_name)
    else:
        module = _import_user(target, root)
        run = getattr(module, func_name, None)
        if not callable(run):
            raise SolutionLoadError(f"{file_name} defines no function {func_name}(...)")
    return LoadedSolution(run, dps, "+".join(languages), target)


def _import_user(path: Path, root: Path) -> ModuleType:
    sys.path.insert(0, str(root))
    try:
        return import_file(path, "solarena_solution")
    except Exception as exc:  # anything the user's module raises while importing
        raise SolutionLoadError(describe_exception(exc, path)) from None
    finally:
        sys.path.remove(str(root))


# SOL-ExecBench's defaults where compile_options leaves a field out
DEFAULT_CUDA_CFLAGS = ("-O3", "--use_fast_math")
DEFAULT_LD_FLAGS = ("-lcuda",)


def _build_extension(root: Path, spec: dict[str, Any], func_name: str) -> Callable[..., Any]:
    """Build the solution's C++/CUDA sources (the top folder's, as SOL-ExecBench does) into a
    torch extension, its own folder and CUTLASS's headers on the include path."""
    from torch.utils import cpp_extension

    if spec.get("binding", "torch") not in ("torch", None):
        raise SolutionLoadError(f"spec.binding {spec.get('binding')!r}: only the torch binding is supported")
    sources = sorted(str(p) for p in root.iterdir() if p.suffix in NATIVE_SOURCES and p.is_file())
    if not sources:
        raise SolutionLoadError("a C++/CUDA solution needs .cu, .cpp, .cc, .cxx or .c sources "
                                "in its top folder")
    options = spec.get("compile_options") or {}
    if not isinstance(options, dict):
        raise SolutionLoadError("spec.compile_options must be an object")
    cutlass = os.environ.get("CUTLASS_DIR", "/usr/local/cutlass")
    build_dir = root / ".build"
    build_dir.mkdir(exist_ok=True)
    includes, link_flags = [str(root), f"{cutlass}/include", f"{cutlass}/tools/util/include"], []
    if "cudnn" in solution_languages(spec):
        more_includes, link_flags = _pip_library("cudnn", build_dir)
        includes += more_includes
    try:
        module = cpp_extension.load(
            name="solarena_ext",
            sources=sources,
            extra_cflags=[str(f) for f in options.get("cflags", ["-O3"])],
            extra_cuda_cflags=[str(f) for f in options.get("cuda_cflags", DEFAULT_CUDA_CFLAGS)],
            extra_ldflags=[str(f) for f in options.get("ld_flags", DEFAULT_LD_FLAGS)] + link_flags,
            extra_include_paths=includes,
            build_directory=str(build_dir),
            verbose=False,
        )
    except Exception as exc:
        raise SolutionLoadError(f"build failed: {str(exc)[-2000:]}") from None
    run = getattr(module, func_name, None)
    if not callable(run):
        raise SolutionLoadError(f"the built extension exports no function {func_name}")
    return run


def _pip_library(name: str, build_dir: Path) -> tuple[list[str], list[str]]:
    """Include folders and link flags for an NVIDIA library installed by pip (nvidia-cudnn-cu*,
    beside torch), where the CUDA toolkit's own folders lack it. Such a package ships only the
    versioned file (libcudnn.so.9), so the unversioned name `-lcudnn` asks for is linked under
    the build folder. Nothing where the package is absent."""
    spec = importlib.util.find_spec(f"nvidia.{name}") if importlib.util.find_spec("nvidia") else None
    if spec is None or not spec.submodule_search_locations:
        return [], []
    home = Path(next(iter(spec.submodule_search_locations)))
    libraries = sorted((home / "lib").glob(f"lib{name}.so.*"), key=lambda p: len(p.name))
    if not libraries:
        return [], []
    links = build_dir / "lib"
    links.mkdir(exist_ok=True)
    unversioned = links / f"lib{name}.so"
    if not unversioned.exists():
        unversioned.symlink_to(libraries[0])
    return [str(home / "include")], [f"-L{links}", f"-Wl,-rpath,{home / 'lib'}"]


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
