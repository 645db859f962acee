"""SOL-ExecBench solution specs name their languages as a list (spec.languages); Python-family
languages are imported, the C++ family is built as a torch extension; mixing both, or a language
nobody knows, is refused with a message that says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.harness.modules import SolutionLoadError, load_solution, solution_languages
from tests.conftest import SOLX_EXAMPLES

EXAMPLES = SOLX_EXAMPLES


def test_a_list_of_languages_and_the_older_single_language_are_read() -> None:
    assert solution_languages({"languages": ["triton"]}) == ["triton"]
    assert solution_languages({"language": "cuda"}) == ["cuda"]
    assert solution_languages({}) == ["python"]


@pytest.mark.parametrize(("spec", "words"), [
    ({"languages": ["pytorch", "cuda_cpp"]}, "mixes Python and C++"),
    ({"languages": ["fortran"]}, "unknown language 'fortran'"),
    ({"languages": []}, "non-empty list"),
    ({"languages": [3]}, "non-empty list"),
])
def test_bad_language_lists_are_refused_by_name(spec: dict, words: str) -> None:
    with pytest.raises(SolutionLoadError, match=words):
        solution_languages(spec)


def _unpack(solution_json: Path, into: Path) -> Path:
    data = json.loads(solution_json.read_text())
    for source in data["sources"]:
        (into / source["path"]).parent.mkdir(parents=True, exist_ok=True)
        (into / source["path"]).write_text(source["content"])
    (into / "solution.json").write_text(solution_json.read_text())
    return into / "solution.json"


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="needs the shared SOL-ExecBench examples")
def test_their_pytorch_example_loads_with_its_entry_point(tmp_path: Path) -> None:
    path = _unpack(EXAMPLES / "pytorch" / "linear_backward" / "solution_python.json", tmp_path)
    loaded = load_solution(path)
    assert callable(loaded.run) and loaded.language == "pytorch"
    assert loaded.destination_passing is False


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="needs the shared SOL-ExecBench examples")
def test_their_cuda_cpp_example_is_built_not_imported(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from torch.utils import cpp_extension

    seen = {}

    def load(**kwargs):  # stands in for nvcc, which this machine lacks; records what was asked
        seen.update(kwargs)
        raise RuntimeError("no nvcc here")

    monkeypatch.setattr(cpp_extension, "load", load)
    path = _unpack(EXAMPLES / "cuda_cpp" / "rmsnorm" / "solution_cuda.json", tmp_path)
    with pytest.raises(SolutionLoadError, match="build failed: no nvcc here"):
        load_solution(path)
    assert sorted(Path(s).name for s in seen["sources"]) == ["kernel.cu", "main.cpp"]
    assert str(tmp_path) in seen["extra_include_paths"]  # kernel.h is found beside them
    assert seen["extra_cuda_cflags"] == ["-O3", "--use_fast_math"]
