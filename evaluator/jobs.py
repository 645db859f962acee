"""Writing a job directory for the harness: the problem's sources, the solution, the workloads.

Trusted side, no Django: used by `solarena eval` and by the evaluation workers alike.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from evaluator import bounded_json
from evaluator.harness.problem import Problem, Workload

MAX_SOURCE_BYTES = 1 << 20
MAX_SOURCE_FILES = 64  # 20,000 one-line files once took an evaluation 54 s (issue 37)


class SolutionError(ValueError):
    """A solution file that cannot be used; the message names the problem."""


class SourceTooLarge(SolutionError):
    """Sources over the size limit (the API answers 413 to it)."""


@dataclass(frozen=True)
class SolutionFiles:
    """A solution as text files plus the file the harness loads (a .py or solution.json)."""

    files: dict[str, str]
    entry: str

    @classmethod
    def from_path(cls, path: Path) -> SolutionFiles:
        if not path.is_file():
            raise SolutionError(f"{path}: no such file")
        text = _read_text(path)
        if path.suffix == ".json":
            return cls.from_solution_json(text, str(path))
        if path.suffix != ".py":
            raise SolutionError(f"{path}: a solution is a .py file or a solution.json")
        return cls({path.name: text}, path.name)

    @classmethod
    def from_upload(cls, name: str, data: bytes, max_bytes: int = MAX_SOURCE_BYTES,
                    max_files: int = MAX_SOURCE_FILES) -> SolutionFiles:
        """One uploaded file: a .py solution or a solution.json."""
        filename = PurePosixPath((name or "").replace("\\", "/")).name
        if not filename.endswith((".py", ".json")):
            raise SolutionError(f"{filename or 'file'}: a solution is a .py file or a solution.json")
        text = source_text(data, filename, max_bytes)
        if filename.endswith(".json"):
            return cls.from_solution_json(text, filename, max_files)
        return cls({filename: text}, filename)

    @classmethod
    def from_sources(cls, sources: Mapping[str, str], entry: str,
                     max_bytes: int = MAX_SOURCE_BYTES, max_files: int = MAX_SOURCE_FILES) -> SolutionFiles:
        """Files given as {path: text} and the .py file the harness loads; or a single
        solution.json (the entry) that lists its own sources."""
        if not sources:
            raise SolutionError("sources: give at least one file")
        if entry.endswith(".json"):
            if list(sources) != [entry]:
                raise SolutionError("sources: a solution.json entry comes alone (it lists its own sources)")
            return cls.from_solution_json(source_text(_encoded(sources[entry]), entry, max_bytes), entry,
                                          max_files)
        if not entry.endswith(".py"):
            raise SolutionError(f"entry: {entry!r} must be a .py file or a solution.json")
        check_count(len(sources), "sources", max_files)
        files: dict[str, str] = {}
        total = 0
        for path, text in sources.items():
            name = _safe_relative(path, "sources")
            data = _encoded(text) if isinstance(text, str) else None
            if data is None:
                raise SolutionError(f"{name}: the content must be text")
            files[name] = source_text(data, name, max_bytes)
            total += len(data)
        check_size(total, "sources (all files together)", max_bytes)
        if entry not in files:
            raise SolutionError(f"entry: {entry!r} is not one of the sources")
        return cls(files, entry)

    @classmethod
    def from_solution_json(cls, text: str, where: str = "solution.json",
                           max_files: int = MAX_SOURCE_FILES) -> SolutionFiles:
        try:
            data = bounded_json.loads(text, where)
        except bounded_json.TooDeep as exc:
            raise SolutionError(str(exc)) from None
        except json.JSONDecodeError as exc:
            raise SolutionError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        sources = data.get("sources") if isinstance(data, dict) else None
        if not isinstance(sources, list) or not sources:
            raise SolutionError(f"{where}: 'sources' must be a non-empty list of {{path, content}}")
        check_count(len(sources), f"{where}: sources", max_files)
        spec = data.get("spec")
        entry = spec.get("entry_point") if isinstance(spec, dict) else None
        if not isinstance(entry, str) or "::" not in entry:
            raise SolutionError(f"{where}: spec.entry_point must be 'file::function'")
        files: dict[str, str] = {}
        for i, source in enumerate(sources):
            if not isinstance(source, dict) or not isinstance(source.get("content"), str):
                raise SolutionError(f"{where}: sources[{i}] needs 'path' and 'content' strings")
            files[_safe_relative(source.get("path"), f"{where}: sources[{i}].path")] = source["content"]
        if entry.split("::", 1)[0] not in files:
            raise SolutionError(f"{where}: the entry point file {entry.split('::')[0]!r} is not in sources")
        files["solution.json"] = text
        return cls(files, "solution.json")


# The harness's options for a run that checks correctness and times nothing (the `test` mode).
UNTIMED: dict[str, bool] = {"time_solution": False, "time_reference": False, "time_baseline": False}


def write_job(
    job_dir: Path,
    problem: Problem,
    solution: SolutionFiles,
    workloads: list[Workload],
    *,
    seed: int,
    device: str = "auto",
    options: Mapping[str, Any] | None = None,
) -> Path:
    """Lay out job_dir/{problem/, solution/} for `python -m evaluator.harness`, and the job's spec
    (with the secret seed and the hidden workloads) beside it, outside what the solution can read.
    Returns the spec's path."""
    definition = problem.definition
    problem_dir = job_dir / "problem"
    solution_dir = job_dir / "solution"
    problem_dir.mkdir(parents=True)
    solution_dir.mkdir()
    (problem_dir / "reference.py").write_text(definition.reference, encoding="utf-8")
    if definition.baseline is not None:
        (problem_dir / "baseline.py").write_text(definition.baseline, encoding="utf-8")
    for workload in workloads:
        for desc in workload.inputs.values():
            if desc["type"] == "safetensors" and problem.directory is not None:
                target = problem_dir / desc["path"]
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(problem.directory / desc["path"], target)
    for name, content in solution.files.items():
        path = solution_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    job = {
        "definition": definition.to_json(),
        "workloads": [w.to_json() for w in workloads],
        "solution": f"solution/{solution.entry}",
        "seed": seed,
        "device": device,
        "options": dict(options or {}),
    }
    path = spec_path(job_dir)
    path.write_text(json.dumps(job, indent=1), encoding="utf-8")
    return path


def spec_path(job_dir: Path) -> Path:
    """Where the job's spec lives: next to the job directory, never inside it."""
    return job_dir.with_name(job_dir.name + ".spec.json")


def _safe_relative(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SolutionError(f"{where}: must be a relative file path")
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or "\\" in value or path.name in ("", "."):
        raise SolutionError(f"{where}: {value!r} must be a relative path inside the solution")
    if path.name == "solution.json" and len(path.parts) == 1:
        raise SolutionError(f"{where}: a source cannot be named solution.json")
    return str(path)


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    if len(data) > MAX_SOURCE_BYTES:
        raise SolutionError(f"{path}: larger than {MAX_SOURCE_BYTES // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SolutionError(f"{path}: not UTF-8 text") from None


def source_text(data: bytes, where: str, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """A source file's text: non-empty, at most max_bytes, UTF-8, and no binary (NUL bytes)."""
    check_size(len(data), where, max_bytes)
    if not data.strip():
        raise SolutionError(f"{where}: the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SolutionError(f"{where}: not UTF-8 text") from None
    if "\x00" in text:
        raise SolutionError(f"{where}: a binary file (it holds NUL bytes), not source text")
    return text


def check_count(count: int, where: str, max_files: int = MAX_SOURCE_FILES) -> None:
    if count > max_files:
        raise SolutionError(f"{where}: {count} files, over the limit of {max_files} files in a solution")


def check_size(nbytes: int, where: str, max_bytes: int = MAX_SOURCE_BYTES) -> None:
    if nbytes > max_bytes:
        raise SourceTooLarge(f"{where}: {nbytes} bytes, over the limit of {_size(max_bytes)}")


def _encoded(text: str) -> bytes:
    # Lone surrogates (possible in JSON strings) survive here so that decoding calls them non-UTF-8.
    return text.encode("utf-8", "surrogatepass")


def _size(nbytes: int) -> str:
    return f"{nbytes // 1024} KiB" if nbytes % 1024 == 0 else f"{nbytes} bytes"
