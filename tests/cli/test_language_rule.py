"""`solarena submit` without --language stores what the server would infer: both read the file
through evaluator.toolchains.infer_language, the CLI before the server has checked the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluator.jobs import SolutionFiles
from evaluator.toolchains import infer_language
from solarena.client_commands import solution_files

TRITON = "import torch\nimport triton\n\ndef run(x):\n    return x\n"
TORCH = "import torch\n\ndef run(x):\n    return x * 2\n"


def solution_json(sources: dict[str, str], **spec: object) -> str:
    return json.dumps({"name": "s", "spec": {"entry_point": f"{next(iter(sources))}::run", **spec},
                       "sources": [{"path": path, "content": text} for path, text in sources.items()]})


CASES = [
    ("kernel.py", TORCH, "python"),
    ("kernel.py", TRITON, "triton"),
    ("solution.json", solution_json({"k.py": TRITON}), "triton"),
    ("solution.json", solution_json({"k.py": TORCH}, languages=["triton"]), "triton"),
    ("solution.json", solution_json({"k.py": TRITON}, languages=["pytorch"]), "python"),
    ("solution.json", solution_json({"k.py": TORCH}, languages=["pytorch", "cuda_cpp"]), "cuda"),
    ("solution.json", solution_json({"k.py": TORCH}, language="cpp"), "cuda"),
]


@pytest.mark.parametrize(("name", "text", "expected"), CASES)
def test_the_cli_and_the_server_infer_the_same_language(tmp_path: Path, name: str, text: str,
                                                        expected: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    on_the_cli = infer_language(solution_files(path, text), path.name)
    upload = SolutionFiles.from_upload(name, text.encode())
    on_the_server = infer_language(upload.files, upload.entry)
    assert on_the_cli == on_the_server == expected
