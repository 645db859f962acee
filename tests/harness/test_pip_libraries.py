"""A cudnn solution finds cuDNN where pip put it (the nvidia-cudnn package beside torch), which
ships only the versioned library: its include folder is added and `-lcudnn` resolved through a
link under the build folder (evaluator/harness/modules.py)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from evaluator.harness.modules import _pip_library


def _package(root: Path, with_library: bool = True) -> Path:
    home = root / "nvidia" / "cudnn"
    (home / "include").mkdir(parents=True)
    (home / "lib").mkdir()
    (root / "nvidia" / "__init__.py").write_text("")
    (home / "__init__.py").write_text("")
    if with_library:
        (home / "lib" / "libcudnn.so.9").write_bytes(b"\x7fELF")
        (home / "lib" / "libcudnn_ops.so.9").write_bytes(b"\x7fELF")
    return home


def _import_from(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(root))
    for name in [m for m in sys.modules if m == "nvidia" or m.startswith("nvidia.")]:
        monkeypatch.delitem(sys.modules, name)
    importlib.invalidate_caches()


def test_the_package_folders_are_used_and_the_library_linked(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    home = _package(tmp_path / "site")
    _import_from(tmp_path / "site", monkeypatch)
    build = tmp_path / "build"
    build.mkdir()
    includes, flags = _pip_library("cudnn", build)
    assert includes == [str(home / "include")]
    assert flags == [f"-L{build / 'lib'}", f"-Wl,-rpath,{home / 'lib'}"]
    assert (build / "lib" / "libcudnn.so").resolve() == (home / "lib" / "libcudnn.so.9").resolve()
    assert _pip_library("cudnn", build) == (includes, flags)  # a second build reuses the link


def test_nothing_is_added_where_the_package_has_no_library(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path / "site", with_library=False)
    _import_from(tmp_path / "site", monkeypatch)
    assert _pip_library("cudnn", tmp_path) == ([], [])
    assert not (tmp_path / "lib").exists()
