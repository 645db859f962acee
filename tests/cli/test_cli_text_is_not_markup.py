"""What the CLI prints from the server is printed as it is: brackets in a description, a name or a
message are text, not console markup (`y[b, i] = ...` once printed as `y = ...`), and numbers
follow the pages' rules (three significant digits, times in the unit that fits)."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console

from solarena import client_commands
from solarena.client_commands import print_submission

DOCUMENT: dict[str, Any] = {
    "id": 7, "problem": "rms[norm]", "problem_version": 1, "language": "python",
    "created": "2026-12-02T05:00:00Z",
    "evaluations": [{
        "hardware": "h200", "state": "scored", "score": 0.00395, "reward_hack": False,
        "error": "shape [batch, n] expected", "hidden": {"passed": 1, "total": 2, "score": 0.5},
        "aggregates": {"score": 0.81234, "visible_score": 1.0},
        "results": [{"uuid": "a-workload-name-longer-than-twenty-two-characters", "axes": {"n": 4},
                     "status": "INCORRECT_NUMERICAL", "message": "y[b, i] = x[b, i] differs at [0, 3]",
                     "latency_ms": 0.00357, "sol_ms": 0.000412, "score": 0.0}],
    }],
}


def _printed(document: dict[str, Any]) -> str:
    buffer = io.StringIO()
    print_submission(document, Console(file=buffer, width=300, markup=False, highlight=False))
    return buffer.getvalue()


def test_brackets_survive_and_names_are_whole() -> None:
    out = _printed(DOCUMENT)
    assert "y[b, i] = x[b, i] differs at [0, 3]" in out
    assert "shape [batch, n] expected" in out and "rms[norm]" in out
    assert "a-workload-name-longer-than-twenty-two-characters" in out


def test_numbers_follow_the_pages_rules() -> None:
    out = _printed(DOCUMENT)
    assert "score 0.00395" in out and "score 0.812" in out and "visible 1.00" in out
    assert "3.57 us" in out and "412 ns" in out


def test_the_consoles_take_no_markup() -> None:
    assert client_commands._out()._markup is False and client_commands._err()._markup is False
