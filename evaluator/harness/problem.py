"""Typed mirror of the problem format (docs/problem-format.md) and its validating loader.

Every malformed input raises ProblemError naming the file, the field and the reason.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import expr
from .names import CATEGORY_MAX, slug_of, why_not_a_name

DTYPES = (
    "float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
    "int64", "int32", "int16", "int8", "uint8", "bool",
)
TASK_TYPES = ("from_reference", "optimize_triton", "optimize_cuda")
INPUT_TYPES = ("random", "scalar", "safetensors", "custom")
DISTRIBUTIONS = ("normal", "uniform")
AXIS_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A `forbidden` rule naming a dispatcher operator: ns::name, or one overload ns::name.overload.
OPERATOR_RULE = re.compile(r"^[A-Za-z_]\w*::[A-Za-z_]\w*(\.[A-Za-z_]\w*)?$")


class ProblemError(ValueError):
    """A problem definition or workload that cannot be used, with where and why."""

    def __init__(self, where: str, field: str, why: str) -> None:
        self.where, self.field, self.why = where, field, why
        super().__init__(f"{where}: {field}: {why}" if field else f"{where}: {why}")


def is_fixed_size(entry: str) -> bool:
    """A shape entry of ASCII digits ("4") is that size, not an axis name (as in SOL-ExecBench)."""
    return entry.isascii() and entry.isdigit()


@dataclass(frozen=True)
class Domain:
    min: int
    max: int
    multiple_of: int = 1


@dataclass(frozen=True)
class Axis:
    name: str
    kind: str  # const | var | expr
    value: int | None = None
    expression: str | None = None
    domain: Domain | None = None
    smoke_domain: Domain | None = None
    description: str | None = None


@dataclass(frozen=True)
class TensorSpec:
    name: str
    shape: tuple[str, ...] | None
    dtype: str
    description: str | None = None

    @property
    def is_scalar(self) -> bool:
        return self.shape is None


@dataclass(frozen=True)
class Tolerance:
    atol: float = 1e-2
    rtol: float = 1e-2
    required_matched_ratio: float = 0.99

    def merged(self, override: Mapping[str, Any] | None, where: str) -> Tolerance:
        if override is None:
            return self
        if not isinstance(override, Mapping):
            raise ProblemError(where, "tolerance", "must be an object")
        unknown = set(override) - {"atol", "rtol", "required_matched_ratio"}
        if unknown:
            raise ProblemError(where, "tolerance", f"unknown field(s) {sorted(unknown)}")
        values = asdict(self)
        for key in ("atol", "rtol", "required_matched_ratio"):
            if key in override:
                value = override[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                    raise ProblemError(where, f"tolerance.{key}", "must be a number >= 0")
                values[key] = float(value)
        if not 0 < values["required_matched_ratio"] <= 1:
            raise ProblemError(where, "tolerance.required_matched_ratio", "must be in (0, 1]")
        return Tolerance(**values)


@dataclass(frozen=True)
class SolSpec:
    flops: str | None = None
    bytes: str | None = None
    dtype: str | None = None


@dataclass(frozen=True)
class HiddenSpec:
    count: int = 6
    smoke_count: int = 2


@dataclass(frozen=True)
class Workload:
    uuid: str
    axes: dict[str, int]
    inputs: dict[str, dict[str, Any]]
    tolerance: Tolerance
    visibility: str = "visible"  # visible | hidden
    smoke: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "uuid": self.uuid,
            "axes": dict(self.axes),
            "inputs": self.inputs,
            "tolerance": asdict(self.tolerance),
            "visibility": self.visibility,
            "smoke": self.smoke,
        }


@dataclass(frozen=True)
class Definition:
    name: str
    axes: dict[str, Axis]
    inputs: dict[str, TensorSpec]
    outputs: dict[str, TensorSpec]
    reference: str
    op_type: str | None = None
    category: str = "L1"
    task_type: str = "from_reference"
    description: str = ""
    tags: tuple[str, ...] = ()
    baseline: str | None = None
    starter: str | None = None
    custom_inputs_entrypoint: str | None = None
    constraints: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()  # functions a solution must not call (dotted names)
    tolerance: Tolerance = field(default_factory=Tolerance)
    sol: SolSpec | None = None
    hidden: HiddenSpec = field(default_factory=HiddenSpec)

    @property
    def slug(self) -> str:
        return slug_of(self.name)

    @property
    def var_axes(self) -> list[Axis]:
        return [a for a in self.axes.values() if a.kind == "var"]

    def resolve_axes(self, var_values: Mapping[str, int]) -> dict[str, int]:
        """All axis values (const, var, expr) for the given var values."""
        values: dict[str, int] = {}
        for axis in self.axes.values():
            if axis.kind == "const":
                values[axis.name] = int(axis.value or 0)
            elif axis.kind == "var":
                values[axis.name] = int(var_values[axis.name])
        for axis in _expr_order(self.axes):
            result = expr.evaluate(axis.expression or "", values)
            if float(result) != int(result):
                raise expr.ExpressionError(
                    f"axis {axis.name!r} = {axis.expression!r} is not a whole number ({result})"
                )
            values[axis.name] = int(result)
        return values

    def shape(self, spec: TensorSpec, axes: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(int(a) if is_fixed_size(a) else axes[a] for a in spec.shape or ())

    def to_json(self) -> dict[str, Any]:
        """The definition as one self-contained JSON document (sources inline)."""
        def axis_json(a: Axis) -> dict[str, Any]:
            out: dict[str, Any] = {"type": a.kind}
            if a.kind == "const":
                out["value"] = a.value
            if a.kind == "expr":
                out["expression"] = a.expression
            for key in ("domain", "smoke_domain"):
                if getattr(a, key) is not None:
                    out[key] = asdict(getattr(a, key))
            if a.description:
                out["description"] = a.description
            return out

        def tensor_json(t: TensorSpec) -> dict[str, Any]:
            out: dict[str, Any] = {"shape": list(t.shape) if t.shape is not None else None,
                                   "dtype": t.dtype}
            if t.description:
                out["description"] = t.description
            return out

        data: dict[str, Any] = {
            "name": self.name,
            "op_type": self.op_type,
            "category": self.category,
            "task_type": self.task_type,
            "description": self.description,
            "tags": list(self.tags),
            "axes": {n: axis_json(a) for n, a in self.axes.items()},
            "inputs": {n: tensor_json(t) for n, t in self.inputs.items()},
            "outputs": {n: tensor_json(t) for n, t in self.outputs.items()},
            "reference": self.reference,
            "constraints": list(self.constraints),
            "forbidden": list(self.forbidden),
            "tolerance": asdict(self.tolerance),
            "hidden": asdict(self.hidden),
        }
        for key in ("baseline", "starter", "custom_inputs_entrypoint"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.sol is not None:
            data["sol"] = {k: v for k, v in asdict(self.sol).items() if v is not None}
        return data


@dataclass(frozen=True)
class Problem:
    definition: Definition
    workloads: list[Workload]
    smoke_workloads: list[Workload]
    directory: Path | None = None

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def slug(self) -> str:
        return self.definition.slug


# ---------------------------------------------------------------- loading a directory


def load_problem(path: str | Path, default_category: str = "L1") -> Problem:
    """Load a problem directory (ours, SOL-ExecBench's or a single FlashInfer-Bench problem);
    `default_category` is its category when the definition names none."""
    directory = Path(path)
    if not directory.is_dir():
        raise ProblemError(str(directory), "", "not a directory")
    def_path = directory / "definition.json"
    if not def_path.is_file():
        raise ProblemError(str(directory), "", "no definition.json in this directory")
    data = read_json(def_path)
    definition = definition_from_json(data, str(def_path), base_dir=directory,
                                      default_category=default_category)
    workloads = load_workloads(directory / "workload.jsonl", definition, required=True)
    smoke = load_workloads(directory / "smoke.jsonl", definition, smoke=True)
    uuids = [w.uuid for w in workloads + smoke]
    dupes = sorted({u for u in uuids if uuids.count(u) > 1})
    if dupes:
        raise ProblemError(str(directory), "uuid", f"used by more than one workload: {dupes}")
    return Problem(definition, workloads, smoke, directory)


def load_workloads(
    path: Path,
    definition: Definition,
    *,
    required: bool = False,
    smoke: bool = False,
    visibility: str = "visible",
    base_dir: Path | None = None,
) -> list[Workload]:
    """Workloads of a JSONL file; safetensors paths are relative to base_dir (default: its folder)."""
    if not path.is_file():
        if required:
            raise ProblemError(str(path), "", "file is missing")
        return []
    workloads = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProblemError(where, "", f"not valid JSON ({exc.msg})") from None
        if isinstance(data, dict) and isinstance(data.get("workload"), dict):  # a FlashInfer-Bench trace
            named = data.get("definition")
            if isinstance(named, str) and named != definition.name:
                raise ProblemError(where, "definition", f"names {named!r}, not {definition.name!r}")
            data = data["workload"]
        workloads.append(
            workload_from_json(data, definition, where, base_dir=base_dir or path.parent,
                               visibility=visibility, smoke=smoke)
        )
    if required and not workloads:
        raise ProblemError(str(path), "", "holds no workloads")
    uuids = [w.uuid for w in workloads]
    dupes = sorted({u for u in uuids if uuids.count(u) > 1})
    if dupes:
        raise ProblemError(str(path), "uuid", f"used by more than one workload: {dupes}")
    return workloads


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ProblemError(str(path), "", "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ProblemError(str(path), "", f"not valid JSON: {exc.msg} at line {exc.lineno}") from None


# ---------------------------------------------------------------- definition


def definition_from_json(
    data: Any, where: str = "definition.json", base_dir: Path | None = None,
    default_category: str = "L1",
) -> Definition:
    if not isinstance(data, dict):
        raise ProblemError(where, "", "must be a JSON object")

    name = data.get("name")
    refusal = why_not_a_name(name)
    if refusal:
        raise ProblemError(where, "name", refusal)
    assert isinstance(name, str)
    category = _optional_str(data, "category", where) or default_category
    refusal = why_not_a_name(category, longest=CATEGORY_MAX)
    if refusal:
        raise ProblemError(where, "category", refusal)

    axes = _axes(data.get("axes"), where)
    inputs = _tensors(data.get("inputs"), "inputs", axes, where, allow_empty=False)
    named_like_axes = [n for n in inputs if n in axes]
    if named_like_axes:
        raise ProblemError(where, "inputs", f"input names may not be axis names: {named_like_axes}")
    outputs = _tensors(data.get("outputs"), "outputs", axes, where, allow_empty=False)
    for out in outputs.values():
        if out.is_scalar:
            raise ProblemError(where, f"outputs.{out.name}.shape", "outputs must be tensors")
    clash = set(inputs) & set(outputs)
    if clash:
        raise ProblemError(where, "outputs", f"names also used by inputs: {sorted(clash)}")

    reference = _source(data, "reference", where, base_dir, required=True)
    assert reference is not None
    defined = _check_module(reference, where, "reference", need_run=True)
    _check_run_parameters(reference, list(inputs), where)
    baseline = _source(data, "baseline", where, base_dir)
    if baseline is not None:
        _check_module(baseline, where, "baseline", need_run=True)
    starter = _source(data, "starter", where, base_dir)
    if starter is not None:
        _check_module(starter, where, "starter", need_run=True)

    task_type = data.get("task_type", "from_reference")
    if task_type not in TASK_TYPES:
        raise ProblemError(where, "task_type", f"must be one of {', '.join(TASK_TYPES)}")
    if task_type != "from_reference" and starter is None:
        raise ProblemError(where, "starter", f"a {task_type} task needs a starter kernel")

    entry = data.get("custom_inputs_entrypoint")
    if entry is not None and (not isinstance(entry, str) or entry not in defined):
        raise ProblemError(where, "custom_inputs_entrypoint",
                           f"{entry!r} is not a function defined in the reference")

    constraints = _string_list(data.get("constraints"), "constraints", where)
    for i, c in enumerate(constraints):
        _check_expression(c, set(axes), where, f"constraints[{i}]")

    forbidden = _string_list(data.get("forbidden"), "forbidden", where)
    for i, rule in enumerate(forbidden):
        if not _forbidden_rule(rule):
            raise ProblemError(where, f"forbidden[{i}]", f"{rule!r} must be a dotted name like torch.matmul "
                               "or an operator like aten::mm (one overload: aten::mm.out)")

    definition = Definition(
        name=name,
        axes=axes,
        inputs=inputs,
        outputs=outputs,
        reference=reference,
        op_type=_optional_str(data, "op_type", where),
        category=category,
        task_type=task_type,
        description=_optional_str(data, "description", where) or "",
        tags=tuple(_string_list(data.get("tags"), "tags", where)),
        baseline=baseline,
        starter=starter,
        custom_inputs_entrypoint=entry,
        constraints=tuple(constraints),
        forbidden=tuple(forbidden),
        tolerance=Tolerance().merged(data.get("tolerance"), where),
        sol=_sol(data.get("sol"), set(axes), where),
        hidden=_hidden(data.get("hidden"), where),
    )
    _check_expr_axes(definition, where)
    return definition


def _axes(raw: Any, where: str) -> dict[str, Axis]:
    if not isinstance(raw, dict) or not raw:
        raise ProblemError(where, "axes", "required: an object of axis name -> axis")
    axes: dict[str, Axis] = {}
    for name, spec in raw.items():
        loc = f"axes.{name}"
        if not AXIS_RE.match(name):
            raise ProblemError(where, loc, "axis names are identifiers")
        if not isinstance(spec, dict):
            raise ProblemError(where, loc, "must be an object with a 'type'")
        kind = spec.get("type")
        description = spec.get("description")
        if kind == "const":
            value = spec.get("value")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ProblemError(where, f"{loc}.value", "a const axis needs an integer value >= 0")
            axes[name] = Axis(name, "const", value=value, description=description)
        elif kind == "var":
            axes[name] = Axis(
                name, "var",
                domain=_domain(spec.get("domain"), where, f"{loc}.domain"),
                smoke_domain=_domain(spec.get("smoke_domain"), where, f"{loc}.smoke_domain"),
                description=description,
            )
        elif kind == "expr":
            expression = spec.get("expression")
            if not isinstance(expression, str):
                raise ProblemError(where, f"{loc}.expression", "an expr axis needs an expression")
            axes[name] = Axis(name, "expr", expression=expression, description=description)
        else:
            raise ProblemError(where, f"{loc}.type", "must be 'const', 'var' or 'expr'")
    for axis in axes.values():
        if axis.kind == "expr":
            _check_expression(axis.expression or "", set(axes) - {axis.name}, where,
                              f"axes.{axis.name}.expression")
    return axes


def _domain(raw: Any, where: str, loc: str) -> Domain | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProblemError(where, loc, "must be an object {min, max, multiple_of}")
    unknown = set(raw) - {"min", "max", "multiple_of"}
    if unknown:
        raise ProblemError(where, loc, f"unknown field(s) {sorted(unknown)}")
    values = {}
    for key, default in (("min", 1), ("max", None), ("multiple_of", 1)):
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ProblemError(where, f"{loc}.{key}", "must be an integer >= 0")
        values[key] = value
    if values["multiple_of"] < 1:
        raise ProblemError(where, f"{loc}.multiple_of", "must be >= 1")
    if values["max"] < 1:
        raise ProblemError(where, f"{loc}.max", "must be at least 1")
    if values["min"] > values["max"]:
        raise ProblemError(where, loc, "min is larger than max")
    first = -(-values["min"] // values["multiple_of"]) * values["multiple_of"]
    if first > values["max"]:
        raise ProblemError(where, loc, "holds no multiple of multiple_of between min and max")
    return Domain(**values)


def _tensors(
    raw: Any, kind: str, axes: Mapping[str, Axis], where: str, allow_empty: bool
) -> dict[str, TensorSpec]:
    if not isinstance(raw, dict) or (not raw and not allow_empty):
        raise ProblemError(where, kind, "required: an object of name -> {shape, dtype}")
    specs = {}
    for name, spec in raw.items():
        loc = f"{kind}.{name}"
        if not AXIS_RE.match(name):
            raise ProblemError(where, loc, "tensor names are identifiers")
        if not isinstance(spec, dict):
            raise ProblemError(where, loc, "must be an object {shape, dtype}")
        if "shape" not in spec:
            raise ProblemError(where, f"{loc}.shape", "required (null for a scalar)")
        shape = spec["shape"]
        if shape is not None:
            if not isinstance(shape, list) or not all(isinstance(s, str) for s in shape):
                raise ProblemError(where, f"{loc}.shape", "must be a list of axis names or null")
            missing = [s for s in shape if s not in axes and not is_fixed_size(s)]
            if missing:
                raise ProblemError(where, f"{loc}.shape", f"unknown axis name(s) {missing}")
            shape = tuple(shape)
        dtype = spec.get("dtype")
        if dtype is None:
            raise ProblemError(where, f"{loc}.dtype", f"required: one of {', '.join(DTYPES)}")
        if dtype not in DTYPES:
            raise ProblemError(where, f"{loc}.dtype", f"{dtype!r} is not one of {', '.join(DTYPES)}")
        specs[name] = TensorSpec(name, shape, dtype, spec.get("description"))
    return specs


def _source(
    data: Mapping[str, Any], key: str, where: str, base_dir: Path | None, required: bool = False
) -> str | None:
    value = data.get(key)
    if value is not None:
        if not isinstance(value, str) or not value.strip():
            raise ProblemError(where, key, "must be Python source text")
        return value
    if base_dir is not None and (base_dir / f"{key}.py").is_file():
        return (base_dir / f"{key}.py").read_text(encoding="utf-8")
    if required:
        raise ProblemError(where, key, f"required: the source text, or a {key}.py beside the file")
    return None


def _check_module(source: str, where: str, key: str, need_run: bool) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ProblemError(where, key, f"Python syntax error at line {exc.lineno}: {exc.msg}") from None
    functions = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if need_run and "run" not in functions:
        raise ProblemError(where, key, "must define a top-level function run(...)")
    return functions


def _check_run_parameters(source: str, inputs: list[str], where: str) -> None:
    """The reference's run takes the inputs by name, in the definition's order (as SOL-ExecBench
    requires: the harness passes them by position)."""
    run = [n for n in ast.parse(source).body
           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "run"][-1]
    parameters = [a.arg for a in run.args.posonlyargs + run.args.args]
    if parameters != inputs:
        raise ProblemError(where, "reference", f"run({', '.join(parameters)}) must take the inputs in "
                           f"the definition's order: run({', '.join(inputs)})")


def _check_expression(source: str, known: set[str], where: str, loc: str) -> None:
    try:
        unknown = expr.names(source) - known
    except expr.ExpressionError as exc:
        raise ProblemError(where, loc, str(exc)) from None
    if unknown:
        raise ProblemError(where, loc, f"unknown name(s) {sorted(unknown)}")


def _check_expr_axes(definition: Definition, where: str) -> None:
    try:
        _expr_order(definition.axes)
    except expr.ExpressionError as exc:
        raise ProblemError(where, "axes", str(exc)) from None


def _expr_order(axes: Mapping[str, Axis]) -> list[Axis]:
    """Expr axes in an order where each comes after the axes it uses."""
    pending = {a.name: a for a in axes.values() if a.kind == "expr"}
    done = {a.name for a in axes.values() if a.kind != "expr"}
    order = []
    while pending:
        ready = [a for a in pending.values() if expr.names(a.expression or "") <= done]
        if not ready:
            raise expr.ExpressionError(f"expr axes depend on each other in a cycle: {sorted(pending)}")
        for axis in ready:
            order.append(axis)
            done.add(axis.name)
            del pending[axis.name]
    return order


def _sol(raw: Any, known: set[str], where: str) -> SolSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProblemError(where, "sol", "must be an object {flops, bytes, dtype}")
    unknown = set(raw) - {"flops", "bytes", "dtype"}
    if unknown:
        raise ProblemError(where, "sol", f"unknown field(s) {sorted(unknown)}")
    for key in ("flops", "bytes"):
        if key in raw:
            if not isinstance(raw[key], str):
                raise ProblemError(where, f"sol.{key}", "must be an expression string")
            _check_expression(raw[key], known, where, f"sol.{key}")
    dtype = raw.get("dtype")
    if dtype is not None and dtype not in (*DTYPES, "tf32"):
        raise ProblemError(where, "sol.dtype", f"{dtype!r} is not a known dtype")
    return SolSpec(raw.get("flops"), raw.get("bytes"), dtype)


def _hidden(raw: Any, where: str) -> HiddenSpec:
    if raw is None:
        return HiddenSpec()
    if not isinstance(raw, dict) or set(raw) - {"count", "smoke_count"}:
        raise ProblemError(where, "hidden", "must be an object {count, smoke_count}")
    values = {}
    for key, default in (("count", 6), ("smoke_count", 2)):
        value = raw.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
            raise ProblemError(where, f"hidden.{key}", "must be an integer from 0 to 100")
        values[key] = value
    return HiddenSpec(**values)


def _optional_str(data: Mapping[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ProblemError(where, key, "must be a string")
    return value


def _forbidden_rule(rule: str) -> bool:
    """A dotted Python name (torch.matmul) or an operator (aten::mm, one overload: aten::mm.out)."""
    return bool(OPERATOR_RULE.match(rule)) or ("." in rule and all(p.isidentifier() for p in rule.split(".")))


def _string_list(raw: Any, key: str, where: str) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        raise ProblemError(where, key, "must be a list of strings")
    return list(raw)


# ---------------------------------------------------------------- workloads


def workload_from_json(
    data: Any,
    definition: Definition,
    where: str,
    *,
    base_dir: Path | None = None,
    visibility: str = "visible",
    smoke: bool = False,
) -> Workload:
    if not isinstance(data, dict):
        raise ProblemError(where, "", "a workload must be a JSON object")
    uuid = data.get("uuid")
    if not isinstance(uuid, str) or not uuid.strip() or len(uuid) > 200:
        raise ProblemError(where, "uuid", "required: a non-empty string (max 200)")
    axes = check_axes(definition, data.get("axes"), where)
    inputs = _input_descriptors(definition, data.get("inputs") or {}, where, base_dir)
    tolerance = definition.tolerance.merged(data.get("tolerance"), where)
    return Workload(uuid, axes, inputs, tolerance, visibility, smoke)


def check_axes(definition: Definition, raw: Any, where: str) -> dict[str, int]:
    """Validate a workload's var-axis values against the definition and its constraints."""
    if not isinstance(raw, dict):
        raise ProblemError(where, "axes", "required: an object of var axis -> integer")
    var_names = {a.name for a in definition.var_axes}
    const_given = {k for k in raw if k in definition.axes and k not in var_names}
    unknown = set(raw) - set(definition.axes)
    if unknown:
        raise ProblemError(where, "axes", f"unknown axis name(s) {sorted(unknown)}")
    missing = var_names - set(raw)
    if missing:
        raise ProblemError(where, "axes", f"missing value(s) for var axis {sorted(missing)}")
    for name in const_given:  # SOL-ExecBench workloads sometimes repeat const axes
        axis = definition.axes[name]
        if axis.kind == "const" and raw[name] != axis.value:
            raise ProblemError(where, f"axes.{name}", f"const axis is {axis.value}, not {raw[name]}")
    values = {}
    for name in var_names:
        value = raw[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ProblemError(where, f"axes.{name}", "must be an integer >= 0")
        values[name] = value
    try:
        resolved = definition.resolve_axes(values)
        broken = [c for c in definition.constraints if not expr.evaluate(c, resolved)]
    except expr.ExpressionError as exc:
        raise ProblemError(where, "axes", str(exc)) from None
    if broken:
        raise ProblemError(where, "axes", f"constraint(s) not met: {broken}")
    for name in raw.keys() & {a.name for a in definition.axes.values() if a.kind == "expr"}:
        if raw[name] != resolved[name]:
            raise ProblemError(where, f"axes.{name}", f"expr axis is {resolved[name]}, not {raw[name]}")
    return {name: values[name] for name in definition.axes if name in values}


def _input_descriptors(
    definition: Definition, raw: Any, where: str, base_dir: Path | None
) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, dict):
        raise ProblemError(where, "inputs", "must be an object of input name -> descriptor")
    unknown = set(raw) - set(definition.inputs)
    if unknown:
        raise ProblemError(where, "inputs", f"unknown input name(s) {sorted(unknown)}")
    out: dict[str, dict[str, Any]] = {}
    for name, spec in definition.inputs.items():
        loc = f"inputs.{name}"
        desc = raw.get(name, {"type": "random"} if not spec.is_scalar else None)
        if desc is None:
            raise ProblemError(where, loc, "a scalar input needs a descriptor {type: scalar, value}")
        if not isinstance(desc, dict) or desc.get("type") not in INPUT_TYPES:
            raise ProblemError(where, f"{loc}.type", f"must be one of {', '.join(INPUT_TYPES)}")
        kind = desc["type"]
        if kind == "scalar":
            value = desc.get("value")
            if not isinstance(value, (int, float, bool)):
                raise ProblemError(where, f"{loc}.value", "a scalar needs a number or bool value")
        elif spec.is_scalar and kind != "custom":
            raise ProblemError(where, loc, f"{name} is a scalar: use type 'scalar'")
        if kind == "random":
            _check_random(desc, where, loc)
        if kind == "safetensors":
            _check_safetensors(desc, where, loc, base_dir)
        out[name] = dict(desc)
    kinds = {d["type"] for d in out.values()}
    if "custom" in kinds:
        if kinds != {"custom"}:
            raise ProblemError(where, "inputs", "custom inputs cannot be mixed with other types")
        if definition.custom_inputs_entrypoint is None:
            raise ProblemError(where, "inputs", "custom inputs need custom_inputs_entrypoint")
    return out


def _check_random(desc: Mapping[str, Any], where: str, loc: str) -> None:
    unknown = set(desc) - {"type", "distribution", "mean", "std", "low", "high"}
    if unknown:
        raise ProblemError(where, loc, f"unknown field(s) {sorted(unknown)}")
    if desc.get("distribution", "normal") not in DISTRIBUTIONS:
        raise ProblemError(where, f"{loc}.distribution", f"must be one of {DISTRIBUTIONS}")
    for key in ("mean", "std", "low", "high"):
        value = desc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ProblemError(where, f"{loc}.{key}", "must be a number")
    if "low" in desc and "high" in desc and desc["low"] >= desc["high"]:
        raise ProblemError(where, loc, "low must be below high")


def _check_safetensors(
    desc: Mapping[str, Any], where: str, loc: str, base_dir: Path | None
) -> None:
    path, key = desc.get("path"), desc.get("tensor_key")
    if not isinstance(path, str) or not path or not isinstance(key, str) or not key:
        raise ProblemError(where, loc, "safetensors inputs need 'path' and 'tensor_key'")
    if Path(path).is_absolute() or ".." in Path(path).parts:
        raise ProblemError(where, f"{loc}.path", "must be relative and inside the problem directory")
    if base_dir is not None and not (base_dir / path).is_file():
        raise ProblemError(where, f"{loc}.path", f"{path} does not exist")

