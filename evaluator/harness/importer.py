"""Importing problem suites as they are.

Understood inputs:
- a problem directory (ours or SOL-ExecBench's): definition.json + workload.jsonl;
- a directory holding such directories, at any depth up to MAX_DEPTH, e.g. SOL-ExecBench's dataset
  `<root>/<subset>/<problem>/`: a folder named like one of SUITE_CATEGORIES (L1, L2, Quant,
  FlashInfer-Bench, in any case) gives the problems below it that category unless their definition
  names one;
- a FlashInfer-Bench trace-set root: definitions/<op_type>/<name>.json and
  workloads/<op_type>/<name>.jsonl, whose lines are traces {"definition", "workload", ...}; its
  problems are in the FlashInfer-Bench category unless their definition names one.

Two problems of one import may not share a name, nor a slug (names.slug_of).
"""

from __future__ import annotations

import glob
from pathlib import Path

from .names import slug_of
from .problem import (
    Definition,
    Problem,
    ProblemError,
    definition_from_json,
    load_problem,
    load_workloads,
    read_json,
)

MAX_DEPTH = 4
SKIPPED_DIRS = {"solutions", "__pycache__", "node_modules"}
DEFAULT_CATEGORY = "L1"
FLASHINFER_CATEGORY = "FlashInfer-Bench"
# SOL-ExecBench's dataset subsets (folder names, lowercased) -> our category names.
SUITE_CATEGORIES = {"l1": "L1", "l2": "L2", "quant": "Quant", "flashinfer-bench": FLASHINFER_CATEGORY}


def import_problems(path: str | Path) -> list[Problem]:
    """Every problem found at `path`, in a stable order; raises ProblemError when there is none."""
    root = Path(path)
    if not root.is_dir():
        raise ProblemError(str(root), "", "not a directory")
    problems = _collect(root, 0, SUITE_CATEGORIES.get(root.name.lower(), DEFAULT_CATEGORY))
    if not problems:
        raise ProblemError(
            str(root), "",
            "nothing importable: no problem directory (definition.json + workload.jsonl) and no "
            "FlashInfer-Bench trace set (definitions/ + workloads/) at or below this path",
        )
    _check_distinct(problems, str(root))
    return problems


def _check_distinct(problems: list[Problem], where: str) -> None:
    """Refuse two problems with one name, or with names that make one slug, naming both."""
    seen: dict[str, Problem] = {}
    for problem in problems:
        other = seen.setdefault(problem.slug, problem)
        if other is problem:
            continue
        both = f"{_named(other)} and {_named(problem)}"
        if other.name == problem.name:
            raise ProblemError(where, "name", f"more than one problem is called {problem.name!r}: {both}")
        raise ProblemError(where, "name", f"{both} have the same slug {problem.slug!r}; rename one")


def _named(problem: Problem) -> str:
    return f"{problem.name!r} ({problem.directory})" if problem.directory else repr(problem.name)


def _collect(directory: Path, depth: int, category: str) -> list[Problem]:
    if (directory / "definition.json").is_file():
        return [load_problem(directory, default_category=category)]
    if (directory / "definitions").is_dir():
        return _flashinfer_trace_set(directory)
    if depth >= MAX_DEPTH:
        return []
    problems: list[Problem] = []
    for child in sorted(directory.iterdir()):
        if _walked(child):
            problems.extend(_collect(child, depth + 1, SUITE_CATEGORIES.get(child.name.lower(), category)))
    return problems


def find_problem_dirs(root: Path, identifier: str) -> list[Path]:
    """The problem directories below `root` (walked as import_problems does) whose folder, name or
    slug is `identifier`, without loading them; a definition that cannot be read matches by its
    folder only (loading it then says what is wrong)."""
    found = []
    for directory in _problem_dirs(root, 0):
        if directory.name == identifier:
            found.append(directory)
            continue
        try:
            name = read_json(directory / "definition.json").get("name")
        except (ProblemError, AttributeError):
            continue
        if isinstance(name, str) and identifier in (name, slug_of(name)):
            found.append(directory)
    return found


def _problem_dirs(directory: Path, depth: int) -> list[Path]:
    if (directory / "definition.json").is_file():
        return [directory]
    if depth >= MAX_DEPTH or not directory.is_dir():
        return []
    return [found for child in sorted(directory.iterdir()) if _walked(child)
            for found in _problem_dirs(child, depth + 1)]


def _walked(child: Path) -> bool:
    return child.is_dir() and not child.name.startswith((".", "_")) and child.name not in SKIPPED_DIRS


# ---------------------------------------------------------------- FlashInfer-Bench


def _flashinfer_trace_set(root: Path) -> list[Problem]:
    problems = []
    for def_path in sorted((root / "definitions").rglob("*.json")):
        definition = definition_from_json(read_json(def_path), str(def_path),
                                          default_category=FLASHINFER_CATEGORY)
        workload_path = _workload_file(root, def_path, definition)
        # Safetensors paths in a trace set are relative to its root, so the root is the directory.
        workloads = load_workloads(workload_path, definition, required=True, base_dir=root)
        problems.append(Problem(definition, workloads, [], root))
    return problems


def _workload_file(root: Path, def_path: Path, definition: Definition) -> Path:
    relative = def_path.relative_to(root / "definitions").with_suffix(".jsonl")
    expected = root / "workloads" / relative
    if expected.is_file():
        return expected
    found = sorted((root / "workloads").rglob(glob.escape(definition.name) + ".jsonl"))  # names may hold [*?
    if len(found) == 1:
        return found[0]
    raise ProblemError(str(def_path), "", f"no workloads: expected {expected}")
