"""The dependency order (docs/architecture.md): every import points down the table below or stays
inside its own layer; sibling layers (the API, the pages, the CLI) never import each other; the
Django-free layers import no Django, nothing that needs it, and still import with Django absent.

The imports are read from the source (every import statement, those inside functions too), so a
module that is not in the table fails the test until it is given a layer. No Django here: this file
runs where the harness's tests run."""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("solarena", "ops", "api", "pages", "leaderboard", "submissions", "evaluator", "accounts",
            "sandbox")
DJANGO = ("django", "rest_framework", "celery", "kombu", "django_filters", "drf_spectacular", "axes", "csp")


@dataclass(frozen=True)
class Layer:
    name: str
    modules: tuple[str, ...]  # a module and everything below it; "*.x" is x in any package
    django_free: bool = False


# Top to bottom. A tuple holds siblings: side by side, and never importing each other.
LAYERS: tuple[tuple[Layer, ...], ...] = (
    (Layer("entry", ("solarena", "*.management", "*.apps", "ops")),),
    (Layer("api", ("api",)),
     Layer("pages", ("pages", "submissions.views", "submissions.detail_page", "submissions.compare_views",
                     "submissions.compare_chart", "submissions.forms",
                     "submissions.urls", "submissions.templatetags", "accounts.views", "accounts.forms",
                     "accounts.urls")),
     Layer("cli", ("solarena.cli", "solarena.client", "solarena.client_commands", "solarena.agent_tables"),
           django_free=True)),
    (Layer("boards", ("leaderboard.boards", "leaderboard.agent_boards")),),
    (Layer("submissions", ("submissions",)),),
    (Layer("evaluations", ("evaluator",)),),
    (Layer("accounts", ("accounts",)),),
    (Layer("catalog", ("leaderboard",)),),
    (Layer("platform", ("solarena.celery", "solarena.client_address", "solarena.page_stamps",
                        "solarena.changes", "solarena.change_feed", "ops.inspect")),),
    (Layer("scoring", ("evaluator.scoring",), django_free=True),),
    (Layer("runner", ("evaluator.jobs", "evaluator.supervise", "evaluator.traces", "evaluator.toolchains",
                      "evaluator.bounded_json", "evaluator.solution_check",
                      "evaluator.gpus", "evaluator.ncu_runs", "sandbox"), django_free=True),),
    (Layer("harness", ("evaluator.harness",), django_free=True),),
    (Layer("settings", ("solarena.env",), django_free=True),),
)
LEVEL = {layer.name: level for level, siblings in enumerate(LAYERS) for layer in siblings}
BY_NAME = {layer.name: layer for siblings in LAYERS for layer in siblings}


def _matches(module: str, pattern: str) -> bool:
    if pattern.startswith("*."):
        return f".{pattern[2:]}." in f".{module}."
    return module == pattern or module.startswith(pattern + ".")


def layer_of(module: str) -> Layer | None:
    """The layer whose pattern names the module most closely (the longest match)."""
    best: tuple[int, Layer] | None = None
    for siblings in LAYERS:
        for layer in siblings:
            for pattern in layer.modules:
                if _matches(module, pattern) and (best is None or len(pattern) > best[0]):
                    best = (len(pattern), layer)
    return best[1] if best else None


def project_modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def imports_of(module: str, path: Path, known: set[str]) -> set[str]:
    """The project modules and the top-level outside packages `module` imports."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:  # `from package import module` imports the module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {name if name in known else name.split(".")[0] for name in found}


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {module: imports_of(module, path, set(modules)) for module, path in modules.items()}


def test_every_module_has_a_layer() -> None:
    missing = [module for module in project_modules() if layer_of(module) is None]
    assert not missing, f"give these modules a layer in LAYERS: {missing}"


def test_imports_point_down() -> None:
    wrong = []
    for module, imported in sorted(graph().items()):
        source = layer_of(module)
        if source is None:
            continue
        for name in sorted(imported):
            if name.split(".")[0] in PACKAGES and (target := layer_of(name)) is not None:
                if target != source and LEVEL[target.name] <= LEVEL[source.name]:
                    wrong.append(f"{module} ({source.name}) imports {name} ({target.name})")
    assert not wrong, "imports against the order:\n" + "\n".join(wrong)


def test_django_free_layers_import_no_django() -> None:
    wrong = []
    for module, imported in sorted(graph().items()):
        source = layer_of(module)
        if source is None or not source.django_free:
            continue
        for name in sorted(imported):
            target = layer_of(name) if name.split(".")[0] in PACKAGES else None
            if name in DJANGO or (target is not None and not target.django_free):
                wrong.append(f"{module} ({source.name}) imports {name}")
    assert not wrong, "Django-free modules importing Django:\n" + "\n".join(wrong)


def test_the_django_free_layers_import_with_django_absent() -> None:
    free = sorted(module for module in project_modules()
                  if (layer := layer_of(module)) is not None and layer.django_free)
    blocked = ", ".join(f"{name!r}: None" for name in DJANGO)
    code = (f"import sys; sys.modules.update({{{blocked}}})\n"
            f"import importlib\nfor name in {free!r}:\n    importlib.import_module(name)\n")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]


def test_the_table_names_only_real_modules() -> None:
    modules = project_modules()
    stale = [pattern for siblings in LAYERS for layer in siblings for pattern in layer.modules
             if not pattern.startswith("*.") and not any(_matches(m, pattern) for m in modules)]
    assert stale == []
    assert set(BY_NAME) == set(LEVEL)
