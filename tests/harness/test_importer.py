"""Importing SOL-ExecBench / FlashInfer-Bench trees as they are, and writing problems back in our
layout so that load_problem round-trips them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.importer import import_problems, write_problem
from evaluator.harness.problem import ProblemError, Tolerance, load_problem

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
    dest = write_problem(rms, tmp_path / "out" / "rmsnorm_h4096")
    assert (dest / "blob" / "workloads" / "rmsnorm" / "w.safetensors").read_bytes() == b"stub"
    assert load_problem(dest).workloads[0].inputs["weight"]["type"] == "safetensors"


def test_stored_tensors_need_a_directory_to_copy_from(tmp_path: Path) -> None:
    root = flashinfer_trace_set(tmp_path / "trace")
    (root / "w.safetensors").write_bytes(b"stub")
    stored = rmsnorm_workload("stored", 3)
    stored["inputs"]["weight"] = {"type": "safetensors", "path": "w.safetensors", "tensor_key": "weight"}
    write_jsonl(root / "workloads" / "rmsnorm" / "rmsnorm_h4096.jsonl", [trace("rmsnorm_h4096", stored)])
    rms = next(p for p in import_problems(root) if p.name == "rmsnorm_h4096")
    detached = type(rms)(rms.definition, rms.workloads, [], None)
    with pytest.raises(ProblemError) as info:
        write_problem(detached, tmp_path / "dest")
    assert info.value.field == "stored.inputs.weight" and not (tmp_path / "dest").exists()


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


# ---------------------------------------------------------------- writing


def test_write_problem_round_trips_a_trace_set_problem(tmp_path: Path) -> None:
    for problem in import_problems(flashinfer_trace_set(tmp_path / "trace")):
        dest = write_problem(problem, tmp_path / "ours" / problem.name)
        assert (dest / "reference.py").read_text(encoding="utf-8") == problem.definition.reference
        assert "reference" not in json.loads((dest / "definition.json").read_text(encoding="utf-8"))
        again = load_problem(dest)
        assert again.definition == problem.definition
        assert again.workloads == problem.workloads and again.smoke_workloads == []


def test_write_problem_round_trips_every_extension(tmp_path: Path) -> None:
    directory = sol_execbench_problem(tmp_path / "source")
    data = rmsnorm_definition()
    del data["reference"]
    data["axes"]["batch_size"]["domain"] = {"min": 1, "max": 8192}
    data["axes"]["batch_size"]["smoke_domain"] = {"min": 1, "max": 16}
    data["axes"]["half"] = {"type": "expr", "expression": "hidden_size // 2"}
    data.update(category="L2", task_type="optimize_triton", tolerance={"atol": 0.02},
                constraints=["batch_size * hidden_size <= 2 ** 30"], hidden={"count": 4, "smoke_count": 1},
                sol={"flops": "4 * batch_size * hidden_size",
                     "bytes": "4 * batch_size * hidden_size + 2 * half", "dtype": "float32"})
    write_json(directory / "definition.json", data)
    for name, text in (("reference", RMSNORM_REFERENCE), ("baseline", "def run(*a):\n    return 0\n"),
                       ("starter", "def run(*a):\n    return 1\n")):
        (directory / f"{name}.py").write_text(text, encoding="utf-8")
    loose = {**rmsnorm_workload("loose", 9), "tolerance": {"rtol": 0.5}}
    write_jsonl(directory / "workload.jsonl", [rmsnorm_workload("b1", 1), loose])
    write_jsonl(directory / "smoke.jsonl", [rmsnorm_workload("s3", 3)])
    original = load_problem(directory)

    dest = write_problem(original, tmp_path / "copy")
    again = load_problem(dest)
    assert again.definition == original.definition
    assert again.workloads == original.workloads and again.smoke_workloads == original.smoke_workloads
    assert again.workloads[1].tolerance == Tolerance(atol=0.02, rtol=0.5)
    assert {p.name for p in dest.iterdir()} == {"definition.json", "reference.py", "baseline.py",
                                                 "starter.py", "workload.jsonl", "smoke.jsonl"}
    plain_line = json.loads((dest / "workload.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "tolerance" not in plain_line  # only overrides are written


def test_rewriting_removes_stale_sources(tmp_path: Path) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "baseline.py").write_text("def run():\n    return 'stale'\n", encoding="utf-8")
    (dest / "smoke.jsonl").write_text(json.dumps(rmsnorm_workload("stale", 1)) + "\n", encoding="utf-8")
    [problem] = import_problems(sol_execbench_problem(tmp_path / "rmsnorm"))
    again = load_problem(write_problem(problem, dest))
    assert again.definition.baseline is None and again.smoke_workloads == []


def test_hidden_workloads_are_never_written(tmp_path: Path) -> None:
    data = rmsnorm_definition()
    data["axes"]["batch_size"]["domain"] = {"min": 1, "max": 512}
    write_json(tmp_path / "src" / "definition.json", data)
    write_jsonl(tmp_path / "src" / "workload.jsonl", [rmsnorm_workload("b1", 1)])
    problem = load_problem(tmp_path / "src")
    leaked = type(problem)(problem.definition, problem.workloads + draw_hidden(problem, "secret"), [])
    with pytest.raises(ProblemError, match="hidden workloads cannot be written"):
        write_problem(leaked, tmp_path / "dest")
    assert not (tmp_path / "dest").exists()
