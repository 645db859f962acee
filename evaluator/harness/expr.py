"""A small, safe evaluator for the arithmetic in problem definitions (axes, constraints, SOL).

Only numbers, names bound in the given namespace, arithmetic, comparisons, boolean operators and
a few whitelisted functions are evaluated; anything else is rejected before evaluation.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping

Number = int | float | bool


class ExpressionError(ValueError):
    """An expression that cannot be parsed or evaluated; the message says why."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "ceil_div": _ceil_div,
    "sqrt": math.sqrt,
    "log2": math.log2,
}

_BINARY: dict[type, Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type, Callable[[Number, Number], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def parse(source: str) -> ast.Expression:
    """Parse and vet an expression; raises ExpressionError for anything outside the grammar."""
    if not isinstance(source, str) or not source.strip():
        raise ExpressionError("expected a non-empty expression string")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {source!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        _vet(node, source)
    return tree


def names(source: str) -> set[str]:
    """The variable names an expression refers to (functions excluded)."""
    tree = parse(source)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


def evaluate(source: str, namespace: Mapping[str, Number]) -> Number:
    """Evaluate an expression over the given names."""
    tree = parse(source)
    try:
        return _eval(tree.body, namespace)
    except ZeroDivisionError:
        raise ExpressionError(f"division by zero in {source!r}") from None
    except OverflowError:
        raise ExpressionError(f"result too large in {source!r}") from None


def _vet(node: ast.AST, source: str) -> None:
    allowed = (
        ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Name,
        ast.Constant, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
    )
    if not isinstance(node, allowed):
        raise ExpressionError(f"{type(node).__name__} is not allowed in {source!r}")
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
        raise ExpressionError(f"only numbers are allowed as constants in {source!r}")
    if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
        raise ExpressionError(f"operator {type(node.op).__name__} is not allowed in {source!r}")
    if isinstance(node, ast.Compare) and any(type(op) not in _COMPARE for op in node.ops):
        raise ExpressionError(f"only ==, !=, <, <=, >, >= comparisons are allowed in {source!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        raise ExpressionError(f"operator ~ is not allowed in {source!r}")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise ExpressionError(
                f"only the functions {', '.join(sorted(FUNCTIONS))} may be called in {source!r}"
            )


def _eval(node: ast.AST, ns: Mapping[str, Number]) -> Number:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in ns:
            raise ExpressionError(f"unknown name {node.id!r}")
        return ns[node.id]
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, ns), _eval(node.right, ns)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 2**64):
            raise ExpressionError("power too large")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, ns)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        if isinstance(node.op, ast.Not):
            return not value
        raise ExpressionError(f"unary {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, ns) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, ns)
        for op, comparator in zip(node.ops, node.comparators, strict=False):
            right = _eval(comparator, ns)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return FUNCTIONS[node.func.id](*(_eval(a, ns) for a in node.args))
    raise ExpressionError(f"{type(node).__name__} is not allowed")
