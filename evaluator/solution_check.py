"""What a submitted solution's Python can be told wrong by reading it, at intake (Django-free).

Sources are parsed (ast), never imported or run: the entry file must bind its entry function at
the top level, and a problem's task type asks for a language the files must be written in. Syntax
errors are reported by the caller's compile step (submissions.services.syntax_errors), so this
module only reads files that parse.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping

from evaluator.harness.modules import NATIVE_LANGUAGES
from evaluator.toolchains import languages_of


def entry_function(files: Mapping[str, str], entry: str) -> tuple[str, str] | None:
    """(the Python file the harness loads, the function it calls): run in a .py entry, the spec's
    entry_point in a solution.json; None when the entry point is not a Python file."""
    if entry.endswith(".py"):
        return entry, "run"
    try:
        spec = json.loads(files[entry]).get("spec", {})
        path, function = str(spec["entry_point"]).split("::", 1)
    except (ValueError, AttributeError, KeyError, TypeError):
        return None
    return (path, function) if path.endswith(".py") and path in files else None


def missing_entry(files: Mapping[str, str], entry: str) -> str | None:
    """A message when the entry file binds no entry function at the top level (a def, an
    assignment or an import of that name, also inside a top-level if/try/with); else None."""
    found = entry_function(files, entry)
    if found is None:
        return None
    path, function = found
    if function in _top_level_names(ast.parse(files[path])):
        return None
    return (f"{path} defines no {function}(...): the harness calls a top-level function {function} with "
            "the problem's inputs (docs/solution-format.md); nothing was stored")


def _top_level_names(tree: ast.Module) -> set[str]:
    return {name for statement in _top_level(tree.body) for name in _bound(statement)}


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.For, ast.While, ast.With, ast.AsyncWith)):
            yield from _top_level(statement.body + getattr(statement, "orelse", []))
        elif isinstance(statement, ast.Try | ast.TryStar):
            blocks = [statement.body, statement.orelse, statement.finalbody,
                      *(handler.body for handler in statement.handlers)]
            for block in blocks:
                yield from _top_level(block)


def _bound(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield statement.name
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        for alias in statement.names:
            yield alias.asname or alias.name.split(".")[0]
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            yield from _names(target)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        yield from _names(statement.target)


def _names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _names(item)


# What each task type asks of the files, as said in the refusal.
TASK_NEEDS = {
    "optimize_triton": "a Triton kernel: a .py source that imports triton and defines a @triton.jit "
                       "function",
    "optimize_cuda": "a CUDA/C++ kernel: a solution.json whose spec.languages names a C++ family language "
                     "(cuda_cpp, cutlass, ...) and its .cu/.cpp sources",
}


def task_type_mismatch(files: Mapping[str, str], entry: str, task_type: str) -> str | None:
    """A message when the files are not written in what the problem's task type asks for
    (from_reference takes any language); else None. The files are read, not a declared language."""
    if task_type == "optimize_triton":
        if any(_has_triton_kernel(text) for path, text in files.items() if path.endswith(".py")):
            return None
    elif task_type == "optimize_cuda":
        if any(x in NATIVE_LANGUAGES for x in languages_of(files, entry)):
            return None
    else:
        return None
    return (f"this problem's task type is {task_type}, which needs {TASK_NEEDS[task_type]}; the solution is "
            f"{_written_in(files, entry)}; nothing was stored (submit it to a from_reference problem, or "
            "see docs/solution-format.md)")


def _written_in(files: Mapping[str, str], entry: str) -> str:
    languages = languages_of(files, entry)
    if any(x in NATIVE_LANGUAGES for x in languages):
        return f"C++/CUDA ({', '.join(languages)})"
    if "triton" in languages:
        return "Python that imports triton but defines no @triton.jit kernel"
    return f"{'/'.join(languages)} with no Triton kernel"


def _has_triton_kernel(text: str) -> bool:
    """Whether the source imports triton and decorates a function with triton.jit (as `triton.jit`,
    `triton.jit(...)`, or a `jit` imported from triton, under any alias)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    modules: set[str] = set()  # names bound to the triton module
    jits: set[str] = set()  # names bound to triton.jit
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "triton" or (alias.asname is None and alias.name.startswith("triton.")):
                    modules.add(alias.asname or "triton")
        elif isinstance(node, ast.ImportFrom) and node.module == "triton":
            jits |= {alias.asname or "jit" for alias in node.names if alias.name == "jit"}
    if not modules and not jits:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(called, ast.Name) and called.id in jits:
                    return True
                if (isinstance(called, ast.Attribute) and called.attr == "jit"
                        and isinstance(called.value, ast.Name) and called.value.id in modules):
                    return True
    return False
