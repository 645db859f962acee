"""Hidden workloads: drawn deterministically from a secret, awkward, inside the domains and the
constraints, counted as the definition says; a private file loads; the public tree holds none."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evaluator.harness.hidden import awkward_candidates, draw_hidden, load_hidden_file
from evaluator.harness.problem import (
    Domain,
    Problem,
    ProblemError,
    Tolerance,
    definition_from_json,
    workload_from_json,
)

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cr3t-deployment-key"
HIDDEN_UUID = re.compile(r"hidden-[0-9a-f]{16}")


SMOKE_AXES = {"heads": 4, "kv_heads": 2, "seq": 8, "dim": 32}


def _var(top: int, smoke_top: int, step: int = 1) -> dict[str, Any]:
    return {"type": "var", "domain": {"min": step, "max": top, "multiple_of": step},
            "smoke_domain": {"min": step, "max": smoke_top, "multiple_of": step}}


def make_problem(
    axes: dict[str, Any] | None = None,
    constraints: list[str] | None = None,
    hidden: dict[str, int] | None = None,
    workload_axes: dict[str, int] | None = None,
    inputs: dict[str, Any] | None = None,
    tolerance: dict[str, float] | None = None,
    smoke_axes: dict[str, int] | None = SMOKE_AXES,
) -> Problem:
    """An in-memory problem with one visible workload and, unless smoke_axes is None, one smoke one."""
    axes = axes or {"heads": _var(64, 8), "kv_heads": _var(16, 4), "seq": _var(8192, 40),
                    "dim": _var(256, 64, step=16)}
    data = {
        "name": "toy_attention",
        "axes": axes,
        "inputs": {"q": {"shape": list(axes), "dtype": "bfloat16"},
                   "scale": {"shape": None, "dtype": "float32"}},
        "outputs": {"o": {"shape": list(axes), "dtype": "bfloat16"}},
        "reference": "def run(q, scale):\n    return q * scale\n",
        "constraints": ["heads % kv_heads == 0"] if constraints is None else constraints,
        "hidden": hidden or {"count": 6, "smoke_count": 2},
    }
    definition = definition_from_json(data, "definition.json")
    raw: dict[str, Any] = {
        "uuid": "visible-1",
        "axes": workload_axes or {"heads": 32, "kv_heads": 8, "seq": 4096, "dim": 128},
        "inputs": inputs or {"q": {"type": "random", "std": 0.5},
                             "scale": {"type": "scalar", "value": 0.125}},
    }
    if tolerance:
        raw["tolerance"] = tolerance
    visible = workload_from_json(raw, definition, "workload.jsonl:1")
    smoke = [] if smoke_axes is None else [
        workload_from_json({**raw, "uuid": "smoke-1", "axes": smoke_axes}, definition, "smoke.jsonl:1",
                           smoke=True)]
    return Problem(definition, [visible], smoke)


def values(workloads: list, axis: str) -> list[int]:
    return [w.axes[axis] for w in workloads]


def _is_prime(n: int) -> bool:
    return n > 1 and all(n % f for f in range(2, int(n**0.5) + 1))


def test_same_secret_same_workloads() -> None:
    problem = make_problem()
    first, again = draw_hidden(problem, SECRET), draw_hidden(make_problem(), SECRET)
    assert first == again and len(first) == 6
    assert draw_hidden(problem, SECRET, smoke=True) == draw_hidden(problem, SECRET, smoke=True)


def test_other_secret_other_workloads() -> None:
    problem = make_problem()
    drawn = {s: [tuple(w.axes.values()) for w in draw_hidden(problem, s)] for s in ("a", "b", "c")}
    assert drawn["a"] != drawn["b"] and drawn["b"] != drawn["c"] and drawn["a"] != drawn["c"]
    assert {w.uuid for w in draw_hidden(problem, "a")}.isdisjoint(w.uuid for w in draw_hidden(problem, "b"))


def test_drawn_sizes_are_awkward() -> None:
    problem = make_problem(hidden={"count": 40, "smoke_count": 2})
    seqs = [v for secret in ("one", "two", "three") for v in values(draw_hidden(problem, secret), "seq")]
    assert sum(v % 16 != 0 for v in seqs) / len(seqs) > 0.7  # most are not multiples of 16
    assert any(_is_prime(v) and v > 100 for v in seqs)  # large primes
    assert 1 in seqs and max(seqs) == 8192  # both edges of the domain
    assert {2**k + d for k in range(6, 14) for d in (-1, 1)} & set(seqs)  # 2^k +- 1
    assert len(set(seqs)) > len(seqs) // 2  # not a handful of repeats


def test_first_draw_takes_the_size_one_edge_where_allowed() -> None:
    first = draw_hidden(make_problem(), SECRET)[0]
    assert first.axes == {"heads": 1, "kv_heads": 1, "seq": 1, "dim": 16}  # dim's domain starts at 16


def test_awkward_candidates_hold_the_edges_and_powers_of_two_plus_minus_one() -> None:
    candidates = awkward_candidates(Domain(1, 8192))
    assert {1, 8192, 2, 3, 5, 7, 9, 127, 129, 4095, 4097}.issubset(candidates)
    assert all(1 <= v <= 8192 for v in candidates)
    assert 128 not in candidates and 4096 not in candidates  # the sizes people hard-code
    assert candidates[0] % 16 != 0  # most awkward first
    stepped = awkward_candidates(Domain(48, 1000, 16))
    assert 48 in stepped and 992 in stepped and all(v % 16 == 0 and 48 <= v <= 1000 for v in stepped)


def test_draws_stay_inside_domain_multiple_of_and_constraints() -> None:
    problem = make_problem(hidden={"count": 50, "smoke_count": 2})
    for secret in ("x", "y"):
        drawn = draw_hidden(problem, secret)
        assert len(drawn) == 50
        for w in drawn:
            for name, axis in problem.definition.axes.items():
                d = axis.domain
                assert d is not None and d.min <= w.axes[name] <= d.max and w.axes[name] % d.multiple_of == 0
            assert w.axes["heads"] % w.axes["kv_heads"] == 0
        assert len({tuple(w.axes.values()) for w in drawn}) == 50  # no repeated shape


def test_expr_axes_take_part_in_constraints() -> None:
    axes = {
        "hidden": {"type": "var", "domain": {"min": 2, "max": 4096, "multiple_of": 2}},
        "heads": {"type": "var", "domain": {"min": 1, "max": 64}},
        "head_dim": {"type": "expr", "expression": "hidden // heads"},
    }
    problem = make_problem(axes=axes, constraints=["hidden % heads == 0", "head_dim % 2 == 0"],
                           workload_axes={"hidden": 4096, "heads": 32}, smoke_axes=None)
    for w in draw_hidden(problem, SECRET):
        resolved = problem.definition.resolve_axes(w.axes)
        assert resolved["hidden"] % resolved["heads"] == 0 and resolved["head_dim"] % 2 == 0


def test_min_above_one_has_no_size_one_edge() -> None:
    axes = {name: {"type": "var", "domain": {"min": 32, "max": 4096, "multiple_of": 32}}
            for name in ("heads", "kv_heads", "seq", "dim")}
    problem = make_problem(axes=axes, constraints=[], hidden={"count": 20, "smoke_count": 1},
                           smoke_axes=None)
    drawn = draw_hidden(problem, SECRET)
    assert all(v >= 32 and v % 32 == 0 for w in drawn for v in w.axes.values())


def test_smoke_draws_use_the_smoke_domain() -> None:
    problem = make_problem(hidden={"count": 6, "smoke_count": 10})
    drawn = draw_hidden(problem, SECRET, smoke=True)
    assert len(drawn) == 10
    for w in drawn:
        assert w.smoke and w.visibility == "hidden"
        assert w.axes["heads"] <= 8 and w.axes["seq"] <= 40 and w.axes["dim"] in (16, 32, 48, 64)
    full = draw_hidden(problem, SECRET)
    assert not any(w.smoke for w in full) and max(values(full, "seq")) > 40


def test_smoke_falls_back_to_the_full_domain() -> None:
    axes = {name: {"type": "var", "domain": {"min": 1, "max": 12}} for name in SMOKE_AXES}
    drawn = draw_hidden(make_problem(axes=axes, constraints=[], smoke_axes=None), SECRET, smoke=True)
    assert len(drawn) == 2 and all(1 <= v <= 12 for w in drawn for v in w.axes.values())


@pytest.mark.parametrize(("count", "smoke_count"), [(0, 0), (1, 5), (9, 1)])
def test_counts_follow_the_definition(count: int, smoke_count: int) -> None:
    problem = make_problem(hidden={"count": count, "smoke_count": smoke_count})
    assert len(draw_hidden(problem, SECRET)) == count
    assert len(draw_hidden(problem, SECRET, smoke=True)) == smoke_count


def test_uuids_never_carry_the_secret() -> None:
    drawn = draw_hidden(make_problem(hidden={"count": 12, "smoke_count": 4}), SECRET)
    drawn += draw_hidden(make_problem(hidden={"count": 12, "smoke_count": 4}), SECRET, smoke=True)
    uuids = [w.uuid for w in drawn]
    assert len(set(uuids)) == len(uuids) and all(HIDDEN_UUID.fullmatch(u) for u in uuids)
    text = json.dumps([w.to_json() for w in drawn])
    assert SECRET not in text and "s3cr3t" not in text


def test_inputs_and_tolerance_come_from_the_visible_workload(tmp_path: Path) -> None:
    (tmp_path / "q.safetensors").write_bytes(b"stub")
    problem = make_problem(tolerance={"atol": 0.25})
    for w in draw_hidden(problem, SECRET) + draw_hidden(problem, SECRET, smoke=True):
        assert w.inputs == {"q": {"type": "random", "std": 0.5}, "scale": {"type": "scalar", "value": 0.125}}
        assert w.tolerance == Tolerance(atol=0.25)
    stored = make_problem(inputs={"q": {"type": "safetensors", "path": "q.safetensors", "tensor_key": "q"},
                                  "scale": {"type": "scalar", "value": 2.0}})
    assert all(w.inputs["q"] == {"type": "random"} for w in draw_hidden(stored, SECRET))  # never stored data


def test_var_axis_without_domain_is_a_clear_error() -> None:
    axes = {"heads": {"type": "var", "domain": {"min": 1, "max": 8}}, "kv_heads": {"type": "var"},
            "seq": {"type": "const", "value": 4}, "dim": {"type": "const", "value": 16}}
    problem = make_problem(axes=axes, workload_axes={"heads": 2, "kv_heads": 1}, smoke_axes=None)
    with pytest.raises(ProblemError) as info:
        draw_hidden(problem, SECRET)
    assert info.value.field == "axes.kv_heads" and "need a domain" in str(info.value)
    assert "toy_attention" in str(info.value)


def test_unsatisfiable_constraints_are_a_clear_error() -> None:
    axes = {"heads": _var(64, 8), "kv_heads": _var(16, 4), "seq": _var(100, 10), "dim": _var(256, 64, 16)}
    # The visible workload (seq 4096) meets the constraint; nothing inside seq's domain can.
    problem = make_problem(axes=axes, constraints=["seq > 1000"], smoke_axes=None)
    with pytest.raises(ProblemError, match="no hidden workload meets the constraints"):
        draw_hidden(problem, SECRET)


def test_empty_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="secret"):
        draw_hidden(make_problem(), "")


def test_hidden_file_loads_as_hidden(tmp_path: Path) -> None:
    path = tmp_path / "private" / "hidden.jsonl"
    path.parent.mkdir()
    lines = [{"uuid": f"p{i}", "axes": {"heads": 6, "kv_heads": 3, "seq": 999 + i, "dim": 80},
              "inputs": {"scale": {"type": "scalar", "value": 0.5}}} for i in range(3)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    loaded = load_hidden_file(path, make_problem())
    assert [w.uuid for w in loaded] == ["p0", "p1", "p2"]
    assert all(w.visibility == "hidden" and not w.smoke for w in loaded)
    assert values(loaded, "seq") == [999, 1000, 1001]


def test_hidden_file_refuses_safetensors(tmp_path: Path) -> None:
    (tmp_path / "q.safetensors").write_bytes(b"stub")
    path = tmp_path / "hidden.jsonl"
    line = {"uuid": "stored", "axes": {"heads": 2, "kv_heads": 1, "seq": 3, "dim": 16},
            "inputs": {"q": {"type": "safetensors", "path": "q.safetensors", "tensor_key": "q"},
                       "scale": {"type": "scalar", "value": 1.0}}}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(ProblemError) as info:
        load_hidden_file(path, make_problem())
    assert info.value.where == str(path) and info.value.field == "stored"
    assert "cannot use safetensors" in str(info.value)


def test_hidden_file_checks_like_workload_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "hidden.jsonl"
    path.write_text(json.dumps({"uuid": "bad", "axes": {"heads": 3, "kv_heads": 2, "seq": 3, "dim": 16}}),
                    encoding="utf-8")
    with pytest.raises(ProblemError, match="constraint"):
        load_hidden_file(path, make_problem())
    with pytest.raises(ProblemError, match="file is missing"):
        load_hidden_file(tmp_path / "absent.jsonl", make_problem())


def test_public_problem_tree_holds_no_hidden_workloads() -> None:
    problems = ROOT / "problems"
    assert problems.is_dir()
    for path in problems.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        assert not re.search(r"hidden.*\.jsonl$", path.name), f"{path}: a hidden workload file"
        if path.suffix in (".json", ".jsonl", ".py", ".md", ".txt"):
            text = path.read_text(encoding="utf-8", errors="replace")
            assert not HIDDEN_UUID.search(text), f"{path} mentions a hidden workload uuid"
