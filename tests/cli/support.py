"""What the client command tests share besides fixtures: the live server's handles, a command's
outcome, and a solution file."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leaderboard.models import Hardware, Problem
from tests.platform import factories


@dataclass
class Server:
    url: str
    token: str
    user: Any
    problem: Problem
    cpu: Hardware


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def write_solution(tmp_path: Path, name: str = "solution.py") -> Path:
    path = tmp_path / name
    path.write_text(factories.CORRECT)
    return path
