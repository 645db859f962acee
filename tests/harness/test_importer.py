"""Importing SOL-ExecBench / FlashInfer-Bench trees as they are."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.importer import import_problems
from evaluator.harness.problem import ProblemError

RMSNORM_REFERENCE = """import torch

def run(hidden_states, weight, eps):
    x = hidden_states.float()
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return (x * weight.float()).to(hidden_states.dtype)
"""

GEMM_REFERENCE = """import torch

def run(A, B):
    return A @ B.T
"""


def rmsnorm_definition(name: str = "rmsnorm_h4096") -> dict[str, Any]:
    """A definition as SOL-ExecBench / FlashInfer-Bench write them: inline reference, no domains."""
    return {
        "name": name,
        "op_type": "rmsnorm",
        "description": "Root mean square normalization over the hidden dimension.",
        "tags": ["status:verified", "model:llama-3.1-8b"],
        "axes": {
            "batch_size": {"type": "var", "description": "tokens in the batch"},
            "hidden_size": {"type": "const", "value": 4096},
        },
        "inputs": {
            "hidden_states": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"},
            "weight": {"shape": ["hidden_size"], "dtype": "bfloat16"},
            "eps": {"shape": None, "dtype": "float32"},
        },
        "outputs": {"output": {"shape": ["batch_size", "hidden_size"], "dtype": "bfloat16"}},
        "reference": RMSNORM_REFERENCE,
    }


def gemm_definition() -> dict[str, Any]:
    return {
        "name": "gemm_n4096_k4096",
        "op_type": "gemm",
        "tags": ["status:verified"],
        "axes": {"M": {"type": "var"}, "N": {"type": "const", "value": 4096},
                 "K": {"type": "const", "value": 4096}},
        "inputs": {"A": {"shape": ["M", "K"], "dtype": "float16"},
                   "B": {"shape": ["N", "K"], "dtype": "float16"}},
        "outputs": {"C": {"shape": ["M", "N"], "dtype": "float16"}},
        "reference": GEMM_REFERENCE,
    }


def rmsnorm_workload(uuid: str, batch: int) -> dict[str, Any]:
    return {"uuid": uuid, "axes": {"batch_size": batch},
            "inputs": {"hidden_states": {"type": "random"}, "weight": {"type": "random"},
                       "eps": {"type": "scalar", "value": 1e-5}}}


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def write_jsonl(path: Path, lines: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def sol_execbench_problem(directory: Path, name: str = "rmsnorm_h4096") -> Path:
    write_json(directory / "definition.json", rmsnorm_definition(name))
    write_jsonl(directory / "workload.jsonl", [rmsnorm_workload("b1", 1), rmsnorm_workload("b77", 77)])
    return directory


def trace(definition: str, workload: dict[str, Any]) -> dict[str, Any]:
    return {"definition": definition, "workload": workload, "solution": None, "evaluation": None}


def flashinfer_trace_set(root: Path) -> Path:
    write_json(root / "definitions" / "rmsnorm" / "rmsnorm_h4096.json", rmsnorm_definition())
    write_json(root / "definitions" / "gemm" / "gemm_n4096_k4096.json", gemm_definition())
    write_jsonl(root / "workloads" / "rmsnorm" / "rmsnorm_h4096.jsonl",
                [trace("rmsnorm_h4096", rmsnorm_workload(f"t{b}", b)) for b in (1, 15, 4096)])
    gemm = {"uuid": "m4", "axes": {"M": 4}, "inputs": {"A": {"type": "random"}, "B": {"type": "random"}}}
    write_jsonl(root / "workloads" / "gemm" / "gemm_n4096_k4096.jsonl", [trace("gemm_n4096_k4096", gemm)])
    (root / "solutions").mkdir()  # present in real trace sets, not read
    return root


# ---------------------------------------------------------------- reading


def test_imports_one_sol_execbench_problem(tmp_path: Path) -> None:
    [problem] = import_problems(sol_execbench_problem(tmp_path / "rmsnorm"))
    d = problem.definition
    assert problem.name == "rmsnorm_h4096" and d.op_type == "rmsnorm"
    assert d.tags == ("status:verified", "model:llama-3.1-8b")
    assert d.reference == RMSNORM_REFERENCE and d.task_type == "from_reference"
    assert d.axes["batch_size"].kind == "var" and d.axes["batch_size"].domain is None
    assert d.axes["hidden_size"].value == 4096
    assert [(w.uuid, w.axes) for w in problem.workloads] == [("b1", {"batch_size": 1}),
                                                             ("b77", {"batch_size": 77})]
    assert problem.workloads[0].inputs["eps"] == {"type": "scalar", "value": 1e-5}


def test_imports_a_directory_of_problem_directories(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    sol_execbench_problem(suite / "L1" / "rms_a", "rms_a")
    sol_execbench_problem(suite / "L1" / "rms_b", "rms_b")
    sol_execbench_problem(suite / "L2" / "rms_c", "rms_c")
    (suite / "L2" / "notes").mkdir()  # not a problem: skipped
    (suite / ".git" / "x").mkdir(parents=True)
    problems = import_problems(suite)
    assert [p.name for p in problems] == ["rms_a", "rms_b", "rms_c"]
    assert problems[2].directory == suite / "L2" / "rms_c"


def test_imports_a_flashinfer_trace_set(tmp_path: Path) -> None:
    problems = {p.name: p for p in import_problems(flashinfer_trace_set(tmp_path / "trace"))}
    assert sorted(problems) == ["gemm_n4096_k4096", "rmsnorm_h4096"]
    rms = problems["rmsnorm_h4096"]
    assert [w.uuid for w in rms.workloads] == ["t1", "t15", "t4096"]
    assert [w.axes["batch_size"] for w in rms.workloads] == [1, 15, 4096]
    assert rms.definition.reference == RMSNORM_REFERENCE and rms.smoke_workloads == []
    gemm = problems["gemm_n4096_k4096"].definition
    assert list(gemm.inputs) == ["A", "B"] and gemm.axes["K"].value == 4096 and gemm.op_type == "gemm"
    assert gemm.resolve_axes({"M": 4}) == {"M": 4, "N": 4096, "K": 4096}


def test_trace_set_found_below_the_given_directory(tmp_path: Path) -> None:
    flashinfer_trace_set(tmp_path / "downloads" / "flashinfer-trace")
    assert len(import_problems(tmp_path / "downloads")) == 2


def test_trace_set_safetensors_paths_are_relative_to_its_root(tmp_path: Path) -> None:
    root = flashinfer_trace_set(tmp_path / "trace")
    blob = root / "blob" / "workloads" / "rmsnorm" / "w.safetensors"
    blob.parent.mkdir(parents=True)
    blob.write_bytes(b"stub")
    stored = rmsnorm_workload("stored", 3)
    stored["inputs"]["weight"] = {"type": "safetensors", "path": "blob/workloads/rmsnorm/w.safetensors",
                                  "tensor_key": "weight"}
    write_jsonl(root / "workloads" / "rmsnorm" / "rmsnorm_h4096.jsonl", [trace("rmsnorm_h4096", stored)])
    rms = next(p for p in import_problems(root) if p.name == "rmsnorm_h4096")
    assert rms.directory == root
    weight = rms.workloads[0].inputs["weight"]
    assert weight["type"] == "safetensors" and (rms.directory / weight["path"]).read_bytes() == b"stub"


def test_imported_problem_without_domains_cannot_draw_hidden_workloads(tmp_path: Path) -> None:
    [problem] = import_problems(sol_execbench_problem(tmp_path / "rmsnorm"))
    with pytest.raises(ProblemError) as info:
        draw_hidden(problem, "secret")
    assert info.value.field == "axes.batch_size"
    assert "rmsnorm_h4096" in str(info.value) and "need a domain" in str(info.value)


# ---------------------------------------------------------------- refusing


def test_nothing_importable_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty" / "deeper").mkdir(parents=True)
    (tmp_path / "empty" / "README.md").write_text("hi", encoding="utf-8")
    with pytest.raises(ProblemError) as info:
        import_problems(tmp_path / "empty")
    assert info.value.where == str(tmp_path / "empty") and "nothing importable" in str(info.value)
    with pytest.raises(ProblemError, match="not a directory"):
        import_problems(tmp_path / "absent")


def test_malformed_problem_inside_a_suite_names_its_file(tmp_path: Path) -> None:
    sol_execbench_problem(tmp_path / "suite" / "good")
    bad = rmsnorm_definition("bad_one")
    bad["inputs"]["weight"]["dtype"] = "float13"
    write_json(tmp_path / "suite" / "bad" / "definition.json", bad)
    with pytest.raises(ProblemError) as info:
        import_problems(tmp_path / "suite")
    assert info.value.where == str(tmp_path / "suite" / "bad" / "definition.json")
    assert info.value.field == "inputs.weight.dtype"


def test_same_name_twice_is_refused(tmp_path: Path) -> None:
    sol_execbench_problem(tmp_path / "suite" / "a")
    sol_execbench_problem(tmp_path / "suite" / "b")
    with pytest.raises(ProblemError, match="more than one problem is called"):
        import_problems(tmp_path / "suite")


def test_trace_set_definition_without_workloads(tmp_path: Path) -> None:
    root = flashinfer_trace_set(tmp_path / "trace")
    (root / "workloads" / "gemm" / "gemm_n4096_k4096.jsonl").unlink()
    with pytest.raises(ProblemError) as info:
        import_problems(root)
    assert info.value.where.endswith("gemm_n4096_k4096.json") and "no workloads" in str(info.value)


def test_trace_line_for_another_definition_is_refused(tmp_path: Path) -> None:
    root = flashinfer_trace_set(tmp_path / "trace")
    write_jsonl(root / "workloads" / "rmsnorm" / "rmsnorm_h4096.jsonl",
                [trace("rmsnorm_h4096", rmsnorm_workload("ok", 2)),
                 trace("rmsnorm_h8192", rmsnorm_workload("x", 2))])
    with pytest.raises(ProblemError) as info:
        import_problems(root)
    assert info.value.where.endswith("rmsnorm_h4096.jsonl:2") and info.value.field == "definition"


def test_trace_set_bad_workload_line_names_file_and_line(tmp_path: Path) -> None:
    root = flashinfer_trace_set(tmp_path / "trace")
    path = root / "workloads" / "gemm" / "gemm_n4096_k4096.jsonl"
    path.write_text(path.read_text(encoding="utf-8") + '{"uuid": "broken", \n', encoding="utf-8")
    with pytest.raises(ProblemError) as info:
        import_problems(root)
    assert info.value.where == f"{path}:2" and "not valid JSON" in str(info.value)
    write_jsonl(path, [trace("gemm_n4096_k4096", {"uuid": "m", "axes": {"M": 2, "Q": 1}})])
    with pytest.raises(ProblemError, match=r"unknown axis name\(s\) \['Q'\]"):
        import_problems(root)
