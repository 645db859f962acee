"""SOL-ExecBench problems load unchanged: every published example, and a suite folder laid out like
their dataset (`<root>/<subset>/<problem>/`), whose subset folders become categories; two problems
of one suite whose names make the same slug are refused, naming both."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evaluator.harness.importer import import_problems
from evaluator.harness.problem import ProblemError, load_problem
from tests.conftest import SOLX_EXAMPLES
from tests.harness.test_importer import gemm_definition, sol_execbench_problem, write_json, write_jsonl

# Their examples are read where they lie (never copied into this repository).
EXAMPLES = SOLX_EXAMPLES
EXAMPLE_DIRS = sorted(p.parent for p in EXAMPLES.glob("*/*/definition.json"))
needs_examples = pytest.mark.skipif(not EXAMPLE_DIRS, reason=f"no SOL-ExecBench examples at {EXAMPLES}")


@needs_examples
def test_every_published_example_loads_unchanged() -> None:
    assert len(EXAMPLE_DIRS) == 11
    for directory in EXAMPLE_DIRS:
        written = json.loads((directory / "definition.json").read_text(encoding="utf-8"))
        problem = load_problem(directory)
        assert problem.name == written["name"]  # spelling kept: dots, capitals, dashes
        assert re.fullmatch(r"[a-z0-9_-]+", problem.slug), problem.slug
        assert list(problem.definition.inputs) == list(written["inputs"])
        assert problem.workloads


@needs_examples
def test_their_examples_laid_out_as_their_dataset_import_with_categories(tmp_path: Path) -> None:
    """Their download script writes `<subset>/<name>/`: the name, dots and capitals included, is the
    folder. One example in each subset, and the rest in a folder that is no subset."""
    root = tmp_path / "benchmark"
    placed: dict[str, str] = {}
    subsets = ["L1", "L2", "Quant", "FlashInfer-Bench"]
    seen = set()
    for directory in EXAMPLE_DIRS:
        name = json.loads((directory / "definition.json").read_text(encoding="utf-8"))["name"]
        if name in seen:  # two languages of one problem
            continue
        seen.add(name)
        subset = subsets.pop(0) if subsets else "extra"
        shutil.copytree(directory, root / subset / name)
        placed[name] = subset
    problems = {p.name: p for p in import_problems(root)}
    assert set(problems) == set(placed)
    expected = {"L1": "L1", "L2": "L2", "Quant": "Quant", "FlashInfer-Bench": "FlashInfer-Bench",
                "extra": "L1"}
    categories = {name: problem.definition.category for name, problem in problems.items()}
    assert categories == {name: expected[subset] for name, subset in placed.items()}


def test_subset_folders_name_the_category_in_any_case_and_depth(tmp_path: Path) -> None:
    root = tmp_path / "data"
    sol_execbench_problem(root / "benchmark" / "l2" / "a", "a")
    sol_execbench_problem(root / "benchmark" / "QUANT" / "group" / "b", "b")
    sol_execbench_problem(root / "benchmark" / "flashinfer-bench" / "c", "c")
    sol_execbench_problem(root / "misc" / "d", "d")
    categories = {p.name: p.definition.category for p in import_problems(root)}
    assert categories == {"a": "L2", "b": "Quant", "c": "FlashInfer-Bench", "d": "L1"}


def test_a_subset_folder_given_itself_names_the_category(tmp_path: Path) -> None:
    sol_execbench_problem(tmp_path / "Quant" / "a", "a")
    [problem] = import_problems(tmp_path / "Quant")
    assert problem.definition.category == "Quant"


def test_the_definitions_own_category_wins_over_the_folder(tmp_path: Path) -> None:
    directory = sol_execbench_problem(tmp_path / "L1" / "a", "a")
    data = json.loads((directory / "definition.json").read_text())
    write_json(directory / "definition.json", {**data, "category": "L2"})
    [problem] = import_problems(tmp_path)
    assert problem.definition.category == "L2"


def test_a_flashinfer_trace_set_is_in_the_flashinfer_category(tmp_path: Path) -> None:
    root = tmp_path / "trace"
    write_json(root / "definitions" / "gemm" / "gemm_n4096_k4096.json", gemm_definition())
    gemm = {"uuid": "m4", "axes": {"M": 4}, "inputs": {"A": {"type": "random"}, "B": {"type": "random"}}}
    write_jsonl(root / "workloads" / "gemm" / "gemm_n4096_k4096.jsonl",
                [{"definition": "gemm_n4096_k4096", "workload": gemm}])
    [problem] = import_problems(root)
    assert problem.definition.category == "FlashInfer-Bench"


def test_names_making_one_slug_are_refused_naming_both(tmp_path: Path) -> None:
    first = sol_execbench_problem(tmp_path / "L1" / "one", "Llama-3.1_RMSNorm")
    second = sol_execbench_problem(tmp_path / "L2" / "two", "llama 3.1_rmsnorm")
    with pytest.raises(ProblemError) as info:
        import_problems(tmp_path)
    message = str(info.value)
    assert info.value.field == "name"
    assert "'Llama-3.1_RMSNorm'" in message and "'llama 3.1_rmsnorm'" in message
    assert str(first) in message and str(second) in message
    assert "same slug 'llama-3-1_rmsnorm'" in message
