"""The CLI names a problem by its slug or its name as written: `eval` finds it in the suite (flat or
in category folders) by folder, slug or name, and the server commands send it URL-quoted."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from leaderboard.models import Problem
from solarena.cli import UsageError, resolve_problem
from tests.cli.support import Server
from tests.conftest import SCALE_SHIFT

FLUX = "black-forest-labs_FLUX.1-schnell_flux_rope_apply_rotation"


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A suite laid out like SOL-ExecBench's dataset: <category>/<folder>/ (the folder is not the name)."""
    root = tmp_path / "benchmark"
    for folder, name in (("L1/flux_rope", FLUX), ("L2/scale_shift", "scale_shift")):
        shutil.copytree(SCALE_SHIFT, root / folder)
        path = root / folder / "definition.json"
        path.write_text(json.dumps({**json.loads(path.read_text()), "name": name}))
    monkeypatch.setenv("SOLARENA_PROBLEMS_DIR", str(root))
    return root


@pytest.mark.parametrize("identifier", [FLUX, "black-forest-labs_flux-1-schnell_flux_rope_apply_rotation",
                                        "flux_rope"])
def test_eval_finds_a_suite_problem_by_name_slug_or_folder(suite: Path, identifier: str) -> None:
    problem = resolve_problem(identifier)
    assert problem.name == FLUX and problem.directory == suite / "L1" / "flux_rope"


def test_eval_refuses_a_word_naming_two_problems(suite: Path) -> None:
    shutil.copytree(suite / "L2" / "scale_shift", suite / "L2" / "copy")
    with pytest.raises(UsageError, match="'scale_shift' names more than one problem") as info:
        resolve_problem("scale_shift")
    assert str(suite / "L2" / "copy") in str(info.value) and "give the directory" in str(info.value)


def test_eval_names_what_it_looked_for(suite: Path) -> None:
    with pytest.raises(UsageError, match=f"no problem of that folder, slug or name in {suite}"):
        resolve_problem("flux")


def test_show_and_leaderboard_take_a_name_with_spaces(server: Server, cli: Any) -> None:
    Problem.objects.filter(pk=server.problem.pk).update(name="Scale + Shift (fp32)", slug="scale-shift-fp32")
    shown = cli("show", "Scale + Shift (fp32)", "--server", server.url, "--json")
    assert shown.code == 0, shown.err
    assert shown.json()["slug"] == "scale-shift-fp32"
    board = cli("leaderboard", "Scale + Shift (fp32)", "--hardware", "cpu", "--server", server.url, "--json")
    assert board.code == 0, board.err
    assert board.json()["problem_slug"] == "scale-shift-fp32"
    listed = cli("problems", "--server", server.url)
    assert "scale-shift-fp32" in listed.out
