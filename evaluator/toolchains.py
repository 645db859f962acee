"""Which solution languages an evaluator can run, and what each needs (Django-free).

A SOL-ExecBench solution names its languages (spec.languages); a .py file is Triton when it
imports triton, else PyTorch. Each language needs some parts on the evaluator (a compiler,
headers, a Python package); what each hardware's evaluators have is the deployment's setting
(SOLARENA_TOOLCHAINS), so a solution whose language cannot run there is refused when it is
submitted, naming the missing part, instead of failing once it reaches a worker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from evaluator.harness.modules import NATIVE_LANGUAGES, PYTHON_LANGUAGES


@dataclass(frozen=True)
class Part:
    key: str
    description: str


PARTS = {p.key: p for p in (
    Part("torch", "PyTorch"),
    Part("triton", "Triton (on the CPU: its interpreter)"),
    Part("cuda_gpu", "a CUDA GPU"),
    Part("nvcc", "the CUDA compiler (nvcc) and headers"),
    Part("cutlass", "CUTLASS's headers (CUTLASS_DIR)"),
    Part("cudnn", "cuDNN's headers and library"),
    Part("cublas", "cuBLAS's headers and library"),
    Part("cutlass_dsl", "the CuTe DSL Python package (nvidia-cutlass-dsl)"),
    Part("cutile", "the cuTile Python package (cuda-tile)"),
    Part("cudnn_frontend", "the cuDNN frontend Python package (nvidia-cudnn-frontend)"),
)}

NEEDS: dict[str, tuple[str, ...]] = {
    "python": ("torch",),
    "pytorch": ("torch",),
    "triton": ("torch", "triton"),
    "cute_dsl": ("torch", "cuda_gpu", "cutlass_dsl"),
    "cutile": ("torch", "cuda_gpu", "cutile"),
    "cudnn_frontend": ("torch", "cuda_gpu", "cudnn_frontend"),
    "cuda_cpp": ("torch", "cuda_gpu", "nvcc"),
    "cuda": ("torch", "cuda_gpu", "nvcc"),
    "cpp": ("torch", "cuda_gpu", "nvcc"),
    "cutlass": ("torch", "cuda_gpu", "nvcc", "cutlass"),
    "cudnn": ("torch", "cuda_gpu", "nvcc", "cudnn"),
    "cublas": ("torch", "cuda_gpu", "nvcc", "cublas"),
}
assert set(NEEDS) == PYTHON_LANGUAGES | NATIVE_LANGUAGES

# What the bundled images have (docker/evaluator.Dockerfile: the CUDA devel base, torch, Triton);
# the demo's CPU evaluator runs Triton in its interpreter.
DEFAULT_TOOLCHAINS: dict[str, tuple[str, ...]] = {
    "cpu": ("torch", "triton"),
    "*": ("torch", "triton", "cuda_gpu", "nvcc", "cublas"),
}

_IMPORTS_TRITON = re.compile(r"^\s*(import\s+triton\b|from\s+triton\b)", re.MULTILINE)


class UnsupportedLanguage(ValueError):
    """A solution's language cannot run on a hardware's evaluators; the message names the part."""


def languages_of(files: Mapping[str, str], entry: str) -> list[str]:
    """The languages a solution is written in: a solution.json's spec.languages (or the older
    spec.language), else triton or pytorch from its Python sources."""
    if entry.endswith(".json"):
        try:
            spec = json.loads(files[entry]).get("spec", {})
        except (ValueError, AttributeError, KeyError):
            spec = {}
        languages = spec.get("languages") if isinstance(spec, dict) else None
        if languages is None and isinstance(spec, dict):
            languages = [spec.get("language")] if isinstance(spec.get("language"), str) else None
        if isinstance(languages, list) and languages and all(isinstance(x, str) for x in languages):
            return [x.lower() for x in languages]
    python = [text for path, text in files.items() if path.endswith(".py")]
    return ["triton"] if any(_IMPORTS_TRITON.search(text) for text in python) else ["pytorch"]


def stored_language(languages: list[str]) -> str:
    """The submission's language as stored and shown (python, triton or cuda)."""
    if any(x in NATIVE_LANGUAGES for x in languages):
        return "cuda"
    return "triton" if "triton" in languages else "python"


def infer_language(files: Mapping[str, str], entry: str) -> str:
    """The one rule for a solution submitted without a language, on the server and in `solarena
    submit` alike: cuda when its spec.languages names a C++ family language, else triton when its
    spec names triton or (without a spec) a Python source imports triton, else python."""
    return stored_language(languages_of(files, entry))


def toolchains(setting: str | Mapping[str, Iterable[str]] | None) -> dict[str, tuple[str, ...]]:
    """The deployment's table (hardware slug, or "*" for any other -> parts), from JSON text or a
    mapping; unknown parts are refused by name."""
    if not setting:
        return dict(DEFAULT_TOOLCHAINS)
    table = json.loads(setting) if isinstance(setting, str) else setting
    if not isinstance(table, Mapping):
        raise ValueError("SOLARENA_TOOLCHAINS must map hardware slugs to lists of parts")
    out = {}
    for hardware, parts in table.items():
        parts = tuple(parts)
        unknown = [p for p in parts if p not in PARTS]
        if unknown:
            raise ValueError(f"SOLARENA_TOOLCHAINS[{hardware!r}]: unknown part {unknown[0]!r} "
                             f"(known: {', '.join(PARTS)})")
        out[str(hardware)] = parts
    return out


def check_runnable(languages: list[str], hardware: str, table: Mapping[str, tuple[str, ...]]) -> None:
    """Raise UnsupportedLanguage unless every language can run on the hardware's evaluators."""
    have = set(table.get(hardware, table.get("*", ())))
    for language in languages:
        if language not in NEEDS:
            raise UnsupportedLanguage(f"unknown solution language {language!r} (known: "
                                      f"{', '.join(sorted(NEEDS))})")
        missing = [PARTS[p].description for p in NEEDS[language] if p not in have]
        if missing:
            raise UnsupportedLanguage(f"{language} solutions cannot run on {hardware}: its evaluators "
                                      f"lack {', '.join(missing)}")
