"""The problem loader: good definitions load with every feature of the format, and every malformed
definition or workload is refused with a ProblemError naming the file, the field and the reason."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness.hidden import draw_hidden
from evaluator.harness.problem import DTYPES, ProblemError, Tolerance, load_problem

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ("softmax", "rmsnorm", "gemm_bf16", "fused_add_rmsnorm")

REFERENCE = """import torch

def run(x, w, eps):
    return x * w + eps
"""


def base_definition() -> dict[str, Any]:
    return {
        "name": "scaled_rows",
        "op_type": "elementwise",
        "axes": {
            "rows": {"type": "var", "domain": {"min": 1, "max": 4096}},
            "cols": {"type": "var", "domain": {"min": 4, "max": 8192, "multiple_of": 4}},
            "groups": {"type": "const", "value": 4},
            "group_size": {"type": "expr", "expression": "cols // groups"},
        },
        "inputs": {
            "x": {"shape": ["rows", "cols"], "dtype": "float32"},
            "w": {"shape": ["cols"], "dtype": "float32"},
            "eps": {"shape": None, "dtype": "float32"},
        },
        "outputs": {"y": {"shape": ["rows", "cols"], "dtype": "float32"}},
        "reference": REFERENCE,
        "constraints": ["cols % groups == 0"],
    }


def base_workload(uuid: str = "w1", **changes: Any) -> dict[str, Any]:
    workload = {
        "uuid": uuid,
        "axes": {"rows": 8, "cols": 64},
        "inputs": {"x": {"type": "random"}, "w": {"type": "random"},
                   "eps": {"type": "scalar", "value": 1e-6}},
    }
    workload.update(changes)
    return workload


def write_dir(
    tmp_path: Path,
    definition: dict[str, Any] | str | None = None,
    workloads: list[dict[str, Any] | str] | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """A problem directory; strings are written as they are (for malformed JSON)."""
    directory = tmp_path / "problem"
    directory.mkdir(exist_ok=True)
    definition = base_definition() if definition is None else definition
    text = definition if isinstance(definition, str) else json.dumps(definition, indent=1)
    (directory / "definition.json").write_text(text, encoding="utf-8")
    lines = [base_workload()] if workloads is None else workloads
    (directory / "workload.jsonl").write_text(
        "\n".join(w if isinstance(w, str) else json.dumps(w) for w in lines) + "\n", encoding="utf-8"
    )
    for name, content in (files or {}).items():
        (directory / name).write_text(content, encoding="utf-8")
    return directory


def refused(directory: Path, file: str, field: str, why: str) -> ProblemError:
    with pytest.raises(ProblemError) as info:
        load_problem(directory)
    error = info.value
    message = str(error)
    assert file in error.where and file in message, message
    assert error.field == field, message
    assert why in error.why and why in message, message
    return error


# ---------------------------------------------------------------- good definitions


def test_good_definition_loads_axes_inputs_and_workloads(tmp_path: Path) -> None:
    problem = load_problem(write_dir(tmp_path))
    d = problem.definition
    assert problem.name == "scaled_rows" and problem.directory == tmp_path / "problem"
    assert [(a.name, a.kind) for a in d.axes.values()] == [
        ("rows", "var"), ("cols", "var"), ("groups", "const"), ("group_size", "expr")]
    assert d.axes["cols"].domain is not None and d.axes["cols"].domain.multiple_of == 4
    assert d.axes["groups"].value == 4
    assert [a.name for a in d.var_axes] == ["rows", "cols"]
    assert list(d.inputs) == ["x", "w", "eps"]  # the order of run's arguments
    assert d.inputs["eps"].is_scalar and not d.inputs["x"].is_scalar
    assert d.category == "L1" and d.task_type == "from_reference" and d.op_type == "elementwise"
    assert d.tolerance == Tolerance() and d.hidden.count == 6 and d.hidden.smoke_count == 2
    [w] = problem.workloads
    assert w.axes == {"rows": 8, "cols": 64} and w.visibility == "visible" and not w.smoke
    assert w.inputs["eps"] == {"type": "scalar", "value": 1e-6}
    assert d.resolve_axes(w.axes) == {"rows": 8, "cols": 64, "groups": 4, "group_size": 16}
    assert d.shape(d.inputs["x"], d.resolve_axes(w.axes)) == (8, 64)
    assert problem.smoke_workloads == []


def test_missing_input_descriptor_means_random(tmp_path: Path) -> None:
    workload = base_workload(inputs={"eps": {"type": "scalar", "value": 0.5}})
    [w] = load_problem(write_dir(tmp_path, workloads=[workload])).workloads
    assert w.inputs["x"] == {"type": "random"} and w.inputs["w"] == {"type": "random"}


def test_every_dtype_and_zero_d_tensor(tmp_path: Path) -> None:
    definition = base_definition()
    definition["inputs"] = {f"in_{dt}": {"shape": ["rows"], "dtype": dt} for dt in DTYPES}
    definition["inputs"]["zero_d"] = {"shape": [], "dtype": "float32"}
    definition["reference"] = f"def run({', '.join(definition['inputs'])}):\n    return zero_d\n"
    problem = load_problem(write_dir(tmp_path, definition, [{"uuid": "a", "axes": {"rows": 3, "cols": 8}}]))
    assert [s.dtype for s in problem.definition.inputs.values()] == [*DTYPES, "float32"]
    assert problem.definition.inputs["zero_d"].shape == ()


def test_a_shape_may_hold_a_literal_size(tmp_path: Path) -> None:
    """As in SOL-ExecBench: a digit string in a shape is that size, not an axis."""
    definition = base_definition()
    definition["outputs"]["y"]["shape"] = ["rows", "2"]
    d = load_problem(write_dir(tmp_path, definition)).definition
    assert d.shape(d.outputs["y"], d.resolve_axes({"rows": 8, "cols": 64})) == (8, 2)


def test_expr_axes_may_chain_in_any_order(tmp_path: Path) -> None:
    definition = base_definition()
    definition["axes"] = {
        "quarter": {"type": "expr", "expression": "half // 2"},
        "half": {"type": "expr", "expression": "n // 2"},
        "n": {"type": "var"},
    }
    definition["inputs"] = {"x": {"shape": ["quarter"], "dtype": "float16"}}
    definition["outputs"] = {"y": {"shape": ["half"], "dtype": "float16"}}
    definition["constraints"] = []
    definition["reference"] = "def run(x):\n    return x\n"
    problem = load_problem(write_dir(tmp_path, definition, [{"uuid": "a", "axes": {"n": 20}}]))
    assert problem.definition.resolve_axes({"n": 20}) == {"n": 20, "half": 10, "quarter": 5}


def test_reference_baseline_and_starter_files_beside_the_definition(tmp_path: Path) -> None:
    definition = base_definition()
    del definition["reference"]
    definition["task_type"] = "optimize_triton"
    files = {"reference.py": REFERENCE, "baseline.py": "def run(x, w, eps):\n    return 1\n",
             "starter.py": "def run(x, w, eps):\n    return 2\n"}
    d = load_problem(write_dir(tmp_path, definition, files=files)).definition
    assert d.reference == REFERENCE
    assert d.baseline == files["baseline.py"] and d.starter == files["starter.py"]
    assert d.task_type == "optimize_triton"


def test_inline_sources_win_over_files(tmp_path: Path) -> None:
    definition = base_definition()
    definition["baseline"] = "def run(x, w, eps):\n    return 'inline'\n"
    files = {"reference.py": "def run():\n    return 'file'\n", "baseline.py": "def run():\n    return 0\n"}
    d = load_problem(write_dir(tmp_path, definition, files=files)).definition
    assert d.reference == REFERENCE and "inline" in (d.baseline or "")
    assert d.starter is None


def test_tolerance_merges_field_by_field(tmp_path: Path) -> None:
    definition = base_definition()
    definition["tolerance"] = {"atol": 1e-3, "rtol": 1e-4}
    workloads = [base_workload("plain"),
                 base_workload("loose", tolerance={"atol": 0.5, "required_matched_ratio": 0.9})]
    problem = load_problem(write_dir(tmp_path, definition, workloads))
    assert problem.definition.tolerance == Tolerance(1e-3, 1e-4, 0.99)
    plain, loose = problem.workloads
    assert plain.tolerance == Tolerance(1e-3, 1e-4, 0.99)
    assert loose.tolerance == Tolerance(0.5, 1e-4, 0.9)


def test_sol_custom_inputs_hidden_and_metadata(tmp_path: Path) -> None:
    definition = base_definition()
    definition.update(
        category="L2", description="# Title", tags=["model:x", "memory-bound"],
        sol={"flops": "2 * rows * cols", "bytes": "4 * (2 * rows * cols + ceil_div(cols, 4))",
             "dtype": "bfloat16"},
        hidden={"count": 3, "smoke_count": 1},
        custom_inputs_entrypoint="make_inputs",
        reference=REFERENCE + "\ndef make_inputs(axes, device):\n    return {}\n",
    )
    custom = {"type": "custom"}
    workload = base_workload(inputs={"x": custom, "w": custom, "eps": custom})
    problem = load_problem(write_dir(tmp_path, definition, [workload]))
    d = problem.definition
    assert d.sol is not None and d.sol.flops == "2 * rows * cols" and d.sol.dtype == "bfloat16"
    assert d.category == "L2" and d.tags == ("model:x", "memory-bound") and d.description == "# Title"
    assert d.hidden.count == 3 and d.hidden.smoke_count == 1
    assert d.custom_inputs_entrypoint == "make_inputs"
    assert {v["type"] for v in problem.workloads[0].inputs.values()} == {"custom"}


def test_smoke_workloads_and_flashinfer_trace_lines(tmp_path: Path) -> None:
    trace = {"definition": "scaled_rows", "workload": base_workload("traced"), "solution": None,
             "evaluation": None}
    directory = write_dir(tmp_path, workloads=[trace, "", base_workload("plain")])
    (directory / "smoke.jsonl").write_text(json.dumps(base_workload("tiny")) + "\n", encoding="utf-8")
    problem = load_problem(directory)
    assert [w.uuid for w in problem.workloads] == ["traced", "plain"]
    assert [(w.uuid, w.smoke) for w in problem.smoke_workloads] == [("tiny", True)]


def test_const_axis_repeated_in_workload_is_accepted_when_equal(tmp_path: Path) -> None:
    workload = base_workload(axes={"rows": 2, "cols": 8, "groups": 4})
    [w] = load_problem(write_dir(tmp_path, workloads=[workload])).workloads
    assert w.axes == {"rows": 2, "cols": 8}


def test_safetensors_input_inside_the_directory(tmp_path: Path) -> None:
    workload = base_workload()
    workload["inputs"]["x"] = {"type": "safetensors", "path": "data/x.safetensors", "tensor_key": "x"}
    directory = write_dir(tmp_path, workloads=[workload])
    (directory / "data").mkdir()
    (directory / "data" / "x.safetensors").write_bytes(b"stub")
    [w] = load_problem(directory).workloads
    assert w.inputs["x"]["path"] == "data/x.safetensors"


# ---------------------------------------------------------------- malformed definitions

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for key in parents:
            d = d[key]
        d[last] = value
    return mutate


def _delete(path: str) -> Mutation:
    def mutate(d: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for key in parents:
            d = d[key]
        del d[last]
    return mutate


BAD_DEFINITIONS: list[tuple[str, Mutation, str, str]] = [
    ("missing name", _delete("name"), "name", "required"),
    ("name empty", _set("name", ""), "name", "required: a non-empty string"),
    ("name not a string", _set("name", 3), "name", "required"),
    ("name too long", _set("name", "n" * 201), "name", "longer than 200 characters (201)"),
    ("name with a newline", _set("name", "soft\nmax"), "name", "control or format character '\\n'"),
    ("name with a zero-width space", _set("name", "soft\u200bmax"), "name", "control or format character"),
    ("name with surrounding space", _set("name", " softmax"), "name", "begins or ends with white space"),
    ("name without letter or digit", _set("name", "--"), "name", "at least one letter or digit"),
    ("category empty", _set("category", "   "), "category", "begins or ends with white space"),
    ("category too long", _set("category", "C" * 41), "category", "longer than 40 characters"),
    ("category not a string", _set("category", 1), "category", "must be a string"),
    ("axes not an object", _set("axes", ["rows", "cols"]), "axes", "an object of axis name"),
    ("axes empty", _set("axes", {}), "axes", "an object of axis name"),
    ("axis not an object", _set("axes.rows", "var"), "axes.rows", "must be an object"),
    ("axis name not identifier", _set("axes.2d", {"type": "var"}), "axes.2d", "identifiers"),
    ("unknown axis type", _set("axes.rows.type", "dynamic"), "axes.rows.type", "'const', 'var' or 'expr'"),
    ("const without value", _delete("axes.groups.value"), "axes.groups.value", "integer value"),
    ("const negative", _set("axes.groups.value", -1), "axes.groups.value", "integer value >= 0"),
    ("const not int", _set("axes.groups.value", 4.5), "axes.groups.value", "integer value"),
    ("expr without expression", _delete("axes.group_size.expression"), "axes.group_size.expression",
     "needs an expression"),
    ("expr unknown name", _set("axes.group_size.expression", "cols // nope"),
     "axes.group_size.expression", "unknown name(s) ['nope']"),
    ("expr refers to itself", _set("axes.group_size.expression", "group_size + 1"),
     "axes.group_size.expression", "unknown name(s) ['group_size']"),
    ("expr cycle", _set("axes", {"a": {"type": "expr", "expression": "b + 1"},
                                 "b": {"type": "expr", "expression": "a - 1"},
                                 "rows": {"type": "var"}, "cols": {"type": "var"},
                                 "groups": {"type": "const", "value": 4}}),
     "axes", "cycle"),
    ("expr attribute access", _set("axes.group_size.expression", "cols.numerator // 4"),
     "axes.group_size.expression", "Attribute is not allowed"),
    ("expr method call", _set("axes.group_size.expression", "cols.bit_length()"),
     "axes.group_size.expression", "only the functions"),
    ("domain min above max", _set("axes.rows.domain", {"min": 9, "max": 3}), "axes.rows.domain",
     "min is larger than max"),
    ("domain without max", _set("axes.rows.domain", {"min": 1}), "axes.rows.domain.max", "integer"),
    ("domain max zero", _set("axes.rows.domain", {"min": 0, "max": 0}), "axes.rows.domain.max",
     "at least 1"),
    ("domain unknown field", _set("axes.rows.domain", {"min": 1, "max": 9, "step": 2}),
     "axes.rows.domain", "unknown field(s) ['step']"),
    ("domain multiple_of zero", _set("axes.rows.domain", {"min": 1, "max": 9, "multiple_of": 0}),
     "axes.rows.domain.multiple_of", ">= 1"),
    ("domain holds no multiple", _set("axes.rows.domain", {"min": 5, "max": 7, "multiple_of": 8}),
     "axes.rows.domain", "no multiple"),
    ("smoke domain not an object", _set("axes.rows.smoke_domain", [1, 8]), "axes.rows.smoke_domain",
     "must be an object"),
    ("inputs missing", _delete("inputs"), "inputs", "required"),
    ("inputs empty", _set("inputs", {}), "inputs", "required"),
    ("input not an object", _set("inputs.x", ["rows"]), "inputs.x", "must be an object"),
    ("input without shape", _delete("inputs.x.shape"), "inputs.x.shape", "required (null for a scalar)"),
    ("shape not a list", _set("inputs.x.shape", "rows"), "inputs.x.shape", "list of axis names"),
    ("shape unknown axis", _set("inputs.x.shape", ["rows", "width"]), "inputs.x.shape",
     "unknown axis name(s) ['width']"),
    ("output shape unknown axis", _set("outputs.y.shape", ["rows", "3x"]), "outputs.y.shape",
     "unknown axis name(s) ['3x']"),
    ("shape with a non-ASCII digit", _set("outputs.y.shape", ["rows", "\u00b2"]), "outputs.y.shape",
     "unknown axis name(s) ['\u00b2']"),
    ("input named like an axis", _set("axes.eps", {"type": "const", "value": 1}), "inputs",
     "input names may not be axis names: ['eps']"),
    ("bad dtype", _set("inputs.x.dtype", "float17"), "inputs.x.dtype", "'float17' is not one of"),
    ("missing dtype", _delete("inputs.w.dtype"), "inputs.w.dtype", "required: one of float64"),
    ("outputs missing", _delete("outputs"), "outputs", "required"),
    ("output scalar", _set("outputs.y.shape", None), "outputs.y.shape", "outputs must be tensors"),
    ("output named like input", _set("outputs.x", {"shape": ["rows"], "dtype": "float32"}),
     "outputs", "names also used by inputs: ['x']"),
    ("reference missing", _delete("reference"), "reference", "reference.py beside the file"),
    ("reference not text", _set("reference", 42), "reference", "Python source text"),
    ("reference blank", _set("reference", "   "), "reference", "Python source text"),
    ("reference syntax error", _set("reference", "import torch\ndef run(x:\n    pass\n"), "reference",
     "syntax error at line 2"),
    ("reference without run", _set("reference", "def forward(x):\n    return x\n"), "reference",
     "top-level function run"),
    ("run without the last input", _set("reference", "def run(x, w):\n    return x\n"), "reference",
     "run(x, w) must take the inputs in the definition's order: run(x, w, eps)"),
    ("run with an extra parameter", _set("reference", "def run(x, w, eps, out):\n    pass\n"), "reference",
     "run(x, w, eps, out) must take"),
    ("run with the inputs swapped", _set("reference", "def run(w, x, eps):\n    return x\n"), "reference",
     "run(w, x, eps) must take the inputs in the definition's order"),
    ("run taking *args", _set("reference", "def run(*args):\n    return args[0]\n"), "reference",
     "run() must take the inputs"),
    ("run nested, not top level", _set("reference", "class M:\n    def run(self):\n        pass\n"),
     "reference", "top-level function run"),
    ("baseline without run", _set("baseline", "x = 1\n"), "baseline", "top-level function run"),
    ("starter syntax error", _set("starter", "def run(:\n"), "starter", "syntax error"),
    ("bad task type", _set("task_type", "speedrun"), "task_type", "from_reference"),
    ("optimize_triton without starter", _set("task_type", "optimize_triton"), "starter",
     "optimize_triton task needs a starter kernel"),
    ("optimize_cuda without starter", _set("task_type", "optimize_cuda"), "starter", "needs a starter"),
    ("custom entrypoint not defined", _set("custom_inputs_entrypoint", "make_inputs"),
     "custom_inputs_entrypoint", "'make_inputs' is not a function defined in the reference"),
    ("custom entrypoint not a string", _set("custom_inputs_entrypoint", 7), "custom_inputs_entrypoint",
     "not a function defined"),
    ("constraints not a list", _set("constraints", "rows > 0"), "constraints", "list of strings"),
    ("constraint unknown name", _set("constraints", ["rows > 0", "heads % 2 == 0"]), "constraints[1]",
     "unknown name(s) ['heads']"),
    ("constraint bad syntax", _set("constraints", ["rows >"]), "constraints[0]", "cannot parse"),
    ("constraint call", _set("constraints", ["len(rows) > 0"]), "constraints[0]", "only the functions"),
    ("tolerance not an object", _set("tolerance", 0.1), "tolerance", "must be an object"),
    ("tolerance negative", _set("tolerance", {"atol": -1}), "tolerance.atol", "number >= 0"),
    ("tolerance not a number", _set("tolerance", {"rtol": "tight"}), "tolerance.rtol", "number >= 0"),
    ("tolerance bool", _set("tolerance", {"rtol": True}), "tolerance.rtol", "number >= 0"),
    ("tolerance ratio zero", _set("tolerance", {"required_matched_ratio": 0}),
     "tolerance.required_matched_ratio", "(0, 1]"),
    ("tolerance ratio above one", _set("tolerance", {"required_matched_ratio": 1.5}),
     "tolerance.required_matched_ratio", "(0, 1]"),
    ("tolerance unknown field", _set("tolerance", {"eps": 1}), "tolerance", "unknown field(s) ['eps']"),
    ("sol not an object", _set("sol", "2 * rows"), "sol", "must be an object"),
    ("sol unknown field", _set("sol", {"flop": "rows"}), "sol", "unknown field(s) ['flop']"),
    ("sol not a string", _set("sol", {"flops": 12}), "sol.flops", "expression string"),
    ("sol unknown name", _set("sol", {"bytes": "rows * width"}), "sol.bytes", "unknown name(s) ['width']"),
    ("sol attribute access", _set("sol", {"flops": "rows.real * cols"}), "sol.flops",
     "Attribute is not allowed"),
    ("sol call to another function", _set("sol", {"flops": "__import__('os').getpid()"}), "sol.flops",
     "may be called"),
    ("sol call to builtin", _set("sol", {"bytes": "pow(rows, 2)"}), "sol.bytes", "only the functions"),
    ("sol subscript", _set("sol", {"flops": "rows[0]"}), "sol.flops", "Subscript is not allowed"),
    ("sol lambda", _set("sol", {"flops": "(lambda: 1)()"}), "sol.flops", "may be called"),
    ("sol string constant", _set("sol", {"flops": "'rows' * 2"}), "sol.flops", "only numbers"),
    ("sol bad syntax", _set("sol", {"flops": "rows *"}), "sol.flops", "cannot parse"),
    ("sol bad dtype", _set("sol", {"flops": "rows", "dtype": "fp4"}), "sol.dtype", "not a known dtype"),
    ("hidden not an object", _set("hidden", 6), "hidden", "{count, smoke_count}"),
    ("hidden unknown field", _set("hidden", {"number": 2}), "hidden", "{count, smoke_count}"),
    ("hidden count too large", _set("hidden", {"count": 1000}), "hidden.count", "0 to 100"),
    ("hidden smoke_count negative", _set("hidden", {"smoke_count": -1}), "hidden.smoke_count", "0 to 100"),
    ("op_type not a string", _set("op_type", ["softmax"]), "op_type", "must be a string"),
    ("tags not strings", _set("tags", ["ok", 3]), "tags", "list of strings"),
]


@pytest.mark.parametrize(("mutate", "field", "why"), [case[1:] for case in BAD_DEFINITIONS],
                         ids=[case[0] for case in BAD_DEFINITIONS])
def test_malformed_definition_is_refused(tmp_path: Path, mutate: Mutation, field: str, why: str) -> None:
    definition = copy.deepcopy(base_definition())
    mutate(definition)
    refused(write_dir(tmp_path, definition), "definition.json", field, why)


def test_definition_not_json_names_the_line(tmp_path: Path) -> None:
    text = '{\n  "name": "x",\n  "axes": {,\n}\n'
    refused(write_dir(tmp_path, text), "definition.json", "", "at line 3")


def test_definition_not_an_object(tmp_path: Path) -> None:
    refused(write_dir(tmp_path, "[1, 2]"), "definition.json", "", "must be a JSON object")


def test_not_a_problem_directory(tmp_path: Path) -> None:
    with pytest.raises(ProblemError, match=r"no definition\.json"):
        load_problem(tmp_path)
    with pytest.raises(ProblemError, match="not a directory"):
        load_problem(tmp_path / "absent")


def test_workload_file_missing_or_empty(tmp_path: Path) -> None:
    directory = write_dir(tmp_path, workloads=["", "  "])
    refused(directory, "workload.jsonl", "", "holds no workloads")
    (directory / "workload.jsonl").unlink()
    refused(directory, "workload.jsonl", "", "file is missing")


# ---------------------------------------------------------------- malformed workloads


def _inputs(**descriptors: Any) -> dict[str, Any]:
    inputs: dict[str, Any] = {"x": {"type": "random"}, "w": {"type": "random"},
                              "eps": {"type": "scalar", "value": 1e-6}}
    inputs.update(descriptors)
    return {k: v for k, v in inputs.items() if v is not None}


BAD_WORKLOADS: list[tuple[str, Any, str, str]] = [
    ("invalid JSON", '{"uuid": "w2", "axes": {', "", "not valid JSON"),
    ("not an object", "[1, 2, 3]", "", "must be a JSON object"),
    ("missing uuid", {"axes": {"rows": 1, "cols": 4}, "inputs": _inputs()}, "uuid", "non-empty string"),
    ("empty uuid", base_workload("  "), "uuid", "non-empty string"),
    ("axes missing", {"uuid": "w2", "inputs": _inputs()}, "axes", "var axis -> integer"),
    ("missing var axis", base_workload("w2", axes={"rows": 4}), "axes",
     "missing value(s) for var axis ['cols']"),
    ("unknown axis", base_workload("w2", axes={"rows": 4, "cols": 8, "depth": 2}), "axes",
     "unknown axis name(s) ['depth']"),
    ("const axis differs", base_workload("w2", axes={"rows": 4, "cols": 8, "groups": 2}), "axes.groups",
     "const axis is 4, not 2"),
    ("expr axis differs", base_workload("w2", axes={"rows": 4, "cols": 8, "group_size": 5}),
     "axes.group_size", "expr axis is 2, not 5"),
    ("negative axis", base_workload("w2", axes={"rows": -4, "cols": 8}), "axes.rows", "integer >= 0"),
    ("float axis", base_workload("w2", axes={"rows": 4.0, "cols": 8}), "axes.rows", "integer >= 0"),
    ("constraint violated", base_workload("w2", axes={"rows": 4, "cols": 10}), "axes",
     "constraint(s) not met: ['cols % groups == 0']"),
    ("unknown input", base_workload("w2", inputs=_inputs(z={"type": "random"})), "inputs",
     "unknown input name(s) ['z']"),
    ("inputs not an object", base_workload("w2", inputs=["x"]), "inputs", "must be an object"),
    ("unknown input type", base_workload("w2", inputs=_inputs(x={"type": "zeros"})), "inputs.x.type",
     "must be one of"),
    ("scalar without value", base_workload("w2", inputs=_inputs(eps={"type": "scalar"})),
     "inputs.eps.value", "needs a number or bool value"),
    ("scalar value a string", base_workload("w2", inputs=_inputs(eps={"type": "scalar", "value": "1e-6"})),
     "inputs.eps.value", "needs a number"),
    ("scalar input left out", base_workload("w2", inputs=_inputs(eps=None)), "inputs.eps",
     "needs a descriptor"),
    ("scalar input given random", base_workload("w2", inputs=_inputs(eps={"type": "random"})),
     "inputs.eps", "use type 'scalar'"),
    ("mixed custom and random", base_workload("w2", inputs=_inputs(x={"type": "custom"})), "inputs",
     "cannot be mixed"),
    ("custom without entrypoint",
     base_workload("w2", inputs={k: {"type": "custom"} for k in ("x", "w", "eps")}), "inputs",
     "need custom_inputs_entrypoint"),
    ("safetensors path traversal", base_workload("w2", inputs=_inputs(
        x={"type": "safetensors", "path": "../x", "tensor_key": "x"})), "inputs.x.path",
     "relative and inside the problem directory"),
    ("safetensors absolute path", base_workload("w2", inputs=_inputs(
        x={"type": "safetensors", "path": "/etc/passwd", "tensor_key": "x"})), "inputs.x.path",
     "relative and inside"),
    ("safetensors file missing", base_workload("w2", inputs=_inputs(
        x={"type": "safetensors", "path": "x.safetensors", "tensor_key": "x"})), "inputs.x.path",
     "does not exist"),
    ("safetensors without key", base_workload("w2", inputs=_inputs(
        x={"type": "safetensors", "path": "x.safetensors"})), "inputs.x", "need 'path' and 'tensor_key'"),
    ("unknown random field", base_workload("w2", inputs=_inputs(x={"type": "random", "seed": 3})),
     "inputs.x", "unknown field(s) ['seed']"),
    ("bad distribution", base_workload("w2", inputs=_inputs(x={"type": "random", "distribution": "cauchy"})),
     "inputs.x.distribution", "must be one of"),
    ("random bound not a number", base_workload("w2", inputs=_inputs(x={"type": "random", "low": "0"})),
     "inputs.x.low", "must be a number"),
    ("low equals high", base_workload("w2", inputs=_inputs(x={"type": "random", "low": 2, "high": 2})),
     "inputs.x", "low must be below high"),
    ("low above high", base_workload("w2", inputs=_inputs(x={"type": "random", "low": 3, "high": -3})),
     "inputs.x", "low must be below high"),
    ("bad workload tolerance", base_workload("w2", tolerance={"rtol": -0.1}), "tolerance.rtol",
     "number >= 0"),
]


@pytest.mark.parametrize(("line", "field", "why"), [case[1:] for case in BAD_WORKLOADS],
                         ids=[case[0] for case in BAD_WORKLOADS])
def test_malformed_workload_is_refused_with_its_line(tmp_path: Path, line: Any, field: str, why: str) -> None:
    directory = write_dir(tmp_path, workloads=[base_workload("w1"), line])
    refused(directory, "workload.jsonl:2", field, why)


def test_expr_axis_that_is_not_whole_is_refused(tmp_path: Path) -> None:
    definition = base_definition()
    definition["axes"]["group_size"]["expression"] = "cols / 3"
    refused(write_dir(tmp_path, definition), "workload.jsonl:1", "axes", "not a whole number")


def test_duplicate_uuid_in_one_file(tmp_path: Path) -> None:
    directory = write_dir(tmp_path, workloads=[base_workload("same"), base_workload("other"),
                                               base_workload("same")])
    refused(directory, "workload.jsonl", "uuid", "used by more than one workload: ['same']")


def test_duplicate_uuid_across_visible_and_smoke(tmp_path: Path) -> None:
    directory = write_dir(tmp_path, workloads=[base_workload("same")])
    (directory / "smoke.jsonl").write_text(json.dumps(base_workload("same")) + "\n", encoding="utf-8")
    error = refused(directory, "problem", "uuid", "used by more than one workload")
    assert error.where == str(directory)


def test_bad_smoke_line_names_the_smoke_file(tmp_path: Path) -> None:
    directory = write_dir(tmp_path)
    (directory / "smoke.jsonl").write_text("\n" + json.dumps(base_workload("s", axes={"rows": 1})) + "\n",
                                           encoding="utf-8")
    refused(directory, "smoke.jsonl:2", "axes", "missing value(s)")


# ---------------------------------------------------------------- the bundled suite


def _bundled_names() -> list[str]:
    found = set(BUNDLED)
    problems = ROOT / "problems"
    if problems.is_dir():
        found |= {p.name for p in problems.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}
    return sorted(found)


@pytest.mark.parametrize("name", _bundled_names())
def test_bundled_problem_loads(name: str) -> None:
    problem = load_problem(ROOT / "problems" / name)
    assert problem.name == name  # the directory name matches the definition's
    assert problem.workloads and problem.smoke_workloads
    for axis in problem.definition.var_axes:  # hidden workloads are drawn from these
        assert axis.domain is not None and axis.smoke_domain is not None, axis.name
    hidden, drawable = problem.definition.hidden, bool(problem.definition.var_axes)
    assert len(draw_hidden(problem, "ci-secret")) == hidden.count * drawable
    assert len(draw_hidden(problem, "ci-secret", smoke=True)) == hidden.smoke_count * drawable
