"""The expression language of axes, constraints and SOL formulas: what it computes, which names it
reads, and that nothing outside the small grammar is ever evaluated."""

from __future__ import annotations

import pytest

from evaluator.harness.expr import ExpressionError, evaluate, names, parse

NS = {"m": 48, "n": 7, "k": 4096, "h": 32, "kv": 8, "x": 2.5}


@pytest.mark.parametrize(("source", "expected"), [
    ("m + n * 2", 62),
    ("(m + n) * 2", 110),
    ("m - n - 1", 40),
    ("m // n", 6),
    ("m % n", 6),
    ("m / 8", 6.0),
    ("n / 2", 3.5),
    ("2 ** 10", 1024),
    ("-n + 1", -6),
    ("+n", 7),
    ("x * 2", 5.0),
    ("1.5e3 + 1", 1501.0),
    ("min(m, n, 9)", 7),
    ("max(m, k)", 4096),
    ("abs(n - m)", 41),
    ("ceil_div(m, n)", 7),
    ("ceil_div(k, 128) * 128", 4096),
    ("2 * m * n * k", 2 * 48 * 7 * 4096),
    ("h % kv == 0", True),
    ("h % kv != 0", False),
    ("1 <= n < 8", True),
    ("1 <= n < 7", False),
    ("m > n >= 7", True),
    ("h % kv == 0 and k >= 1024", True),
    ("n > 100 or m == 48", True),
    ("not n > 100", True),
])
def test_evaluates_arithmetic_comparisons_and_functions(source: str, expected: object) -> None:
    result = evaluate(source, NS)
    assert result == expected and type(result) is type(expected)


def test_whitespace_around_the_expression_is_ignored() -> None:
    assert evaluate("  m + 1\n", NS) == 49


@pytest.mark.parametrize(("source", "expected"), [
    ("m + n", {"m", "n"}),
    ("min(m, n) + ceil_div(k, 4)", {"m", "n", "k"}),  # function names are not variables
    ("max(abs(h - kv), 1)", {"h", "kv"}),
    ("2 * 3", set()),
    ("h % kv == 0 and not m", {"h", "kv", "m"}),
    ("min + 1", {"min"}),  # a function name used as a value is a variable (and unknown)
])
def test_names_lists_the_variables(source: str, expected: set[str]) -> None:
    assert names(source) == expected


@pytest.mark.parametrize(("source", "why"), [
    ("m.real", "Attribute is not allowed"),
    ("m.bit_length()", "only the functions"),
    ("__import__('os').system('true')", "only the functions"),
    ("open('/etc/passwd')", "only the functions"),
    ("eval('1')", "only the functions"),
    ("pow(m, 2)", "only the functions"),
    ("min(m, key=n)", "only the functions"),
    ("(lambda: 1)()", "only the functions"),
    ("lambda: 1", "Lambda is not allowed"),
    ("m[0]", "Subscript is not allowed"),
    ("[m, n]", "List is not allowed"),
    ("(m, n)", "Tuple is not allowed"),
    ("{m: n}", "Dict is not allowed"),
    ("'m'", "only numbers"),
    ("b'm'", "only numbers"),
    ("None", "only numbers"),
    ("...", "only numbers"),
    ("f'{m}'", "JoinedStr is not allowed"),
    ("m if n else k", "IfExp is not allowed"),
    ("(y := 3)", "NamedExpr is not allowed"),
    ("[i for i in m]", "not allowed"),
    ("min(*m)", "Starred is not allowed"),
    ("m & n", "BitAnd is not allowed"),
    ("m | n", "BitOr is not allowed"),
    ("m << n", "LShift is not allowed"),
    ("m @ n", "MatMult is not allowed"),
    ("m +", "cannot parse"),
    ("m = 1", "cannot parse"),
    ("import os", "cannot parse"),
    ("m; n", "cannot parse"),
    ("", "non-empty"),
    ("   ", "non-empty"),
])
def test_unsafe_or_foreign_syntax_is_refused_before_evaluation(source: str, why: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse(source)
    assert why in str(info.value)
    with pytest.raises(ExpressionError):
        evaluate(source, NS)
    with pytest.raises(ExpressionError):
        names(source)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(ExpressionError, match="non-empty expression string"):
        parse(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(("source", "why"), [
    ("m in n", "comparisons are allowed"),
    ("m not in n", "comparisons are allowed"),
    ("m is n", "comparisons are allowed"),
    ("1 < m is not n", "comparisons are allowed"),
    ("~m", "~ is not allowed"),
])
def test_membership_identity_and_invert_are_refused_at_parse(source: str, why: str) -> None:
    with pytest.raises(ExpressionError, match=why):
        parse(source)


@pytest.mark.parametrize(("source", "why"), [
    ("m + q", "unknown name 'q'"),
    ("m // 0", "division by zero"),
    ("m % (n - 7)", "division by zero"),
    ("ceil_div(m, 0)", "division by zero"),
    ("m / 0", "division by zero"),
    ("2 ** 65", "power too large"),
    ("2 ** -100", "power too large"),
    ("((2 ** 64) ** 64) ** 64", "power too large"),
])
def test_evaluation_errors_say_why(source: str, why: str) -> None:
    with pytest.raises(ExpressionError) as info:
        evaluate(source, NS)
    assert why in str(info.value)


def test_functions_never_reach_the_namespace() -> None:
    # A name bound in the namespace cannot be called: only the whitelisted functions can.
    with pytest.raises(ExpressionError, match="only the functions"):
        evaluate("f(1)", {"f": 1})
    assert evaluate("min(m, 1)", {"m": 5, "min": 99}) == 1
