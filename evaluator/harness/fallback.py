"""Fallback rules, checked in the solution's process: the solution must not run the problem's
reference (or baseline) instead of its own kernel, nor call the library functions its problem
forbids (`forbidden` in the definition, e.g. torch.matmul for a GEMM problem).

Statically, the solution's sources must not name a forbidden function. At run time, an audit hook
(which the solution cannot remove) watches for the problem's sources being opened while solution
code runs, and each forbidden function is wrapped by a tripwire that records the call.
"""

from __future__ import annotations

import ast
import functools
import importlib
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PROBLEM_SOURCES = ("reference.py", "baseline.py")


class Tripwires:
    def __init__(self, problem_dir: Path, forbidden: Iterable[str]) -> None:
        self.problem_sources = {str((problem_dir / name).resolve()) for name in PROBLEM_SOURCES}
        self.active = False
        self.violations: list[str] = []
        sys.addaudithook(self._audit)
        for name in forbidden:
            self._wrap(name)

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or event != "open" or not args:
            return
        path = args[0]
        if isinstance(path, (str, bytes, os.PathLike)):
            resolved = os.path.realpath(os.fsdecode(path))
            if resolved in self.problem_sources:
                self.violations.append(f"the solution read the problem's {Path(resolved).name}: "
                                       "falling back to the reference is not allowed")

    def _wrap(self, dotted: str) -> None:
        owner, attr = resolve_owner(dotted)
        if owner is None:
            return
        original = getattr(owner, attr)

        @functools.wraps(original)
        def tripwire(*args: Any, **kwargs: Any) -> Any:
            if self.active:
                self.violations.append(f"the solution called {dotted}, which this problem forbids")
            return original(*args, **kwargs)

        del tripwire.__wrapped__  # functools.wraps would hand out the original
        setattr(owner, attr, tripwire)

    def take(self) -> str | None:
        """The first violation since the last call, if any."""
        found = self.violations[0] if self.violations else None
        self.violations.clear()
        return found


def resolve_owner(dotted: str) -> tuple[Any, str]:
    """(object holding the attribute, attribute name) for a dotted name like torch.nn.functional.linear."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for part in parts[split:-1]:
                owner = getattr(owner, part)
        except AttributeError:
            return None, ""
        return (owner, parts[-1]) if hasattr(owner, parts[-1]) else (None, "")
    return None, ""


def named_in_source(sources: Iterable[Path], forbidden: Iterable[str]) -> str | None:
    """A forbidden name the sources refer to (an attribute chain, through import aliases, or an
    imported name), if any."""
    wanted = set(forbidden)
    if not wanted:
        return None
    for path in sources:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        aliases = _aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Attribute):
                names = [_chain(node, aliases) or ""]
            else:
                continue
            for name in names:
                if name in wanted:
                    return name
    return None


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local names bound by imports -> the dotted names they stand for."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                found[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def _chain(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([aliases.get(node.id, node.id), *reversed(parts)])
    return None
