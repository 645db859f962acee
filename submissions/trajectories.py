"""An agent's trajectory: a log of its bundle whose path ends in `.jsonl`, one JSON object per line
for each step (docs/agent-bundles.md, "Trajectories"). Read leniently, since agents write many
dialects: a line that is not JSON, or not an object, is kept as a step that says so, never an error
of the whole log; the text is the agent's, so whoever shows it escapes it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from evaluator import bounded_json

SUFFIX = ".jsonl"
SHOWN = 2000  # characters of a text shown before "show all"
RESULT_KEYS = ("tool_result", "result")


def is_trajectory(path: str) -> bool:
    return path.endswith(SUFFIX)


def trajectories(logs: dict[str, str]) -> list[str]:
    """The paths of the logs that are trajectories, sorted."""
    return sorted(path for path in logs if is_trajectory(path))


class BadTrajectory(ValueError):
    """No log named, or one that is not a trajectory (a 400); the message names the upload's
    trajectories."""


class NoSuchTrajectory(LookupError):
    """The upload has no log of that path (a 404)."""


def read(logs: dict[str, str], path: str, upload: int) -> list[Step]:
    """The steps of the upload's log `path`; BadTrajectory or NoSuchTrajectory when it cannot be."""
    known = ", ".join(map(repr, trajectories(logs))) or "none"
    if not path:
        raise BadTrajectory(f"give log=<path> of a trajectory of agent submission #{upload} "
                            f"(its trajectories: {known})")
    if path not in logs:
        raise NoSuchTrajectory(f"agent submission #{upload} has no log {path!r} (its trajectories: {known})")
    if not is_trajectory(path):
        raise BadTrajectory(f"{path!r} is a log of agent submission #{upload} but not a trajectory: those "
                            f"are the logs whose path ends in {SUFFIX} (its trajectories: {known})")
    return parse(logs[path])


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # as written when text, else the JSON re-written


@dataclass(frozen=True)
class Step:
    """One line of the log; `problem` says why the line could not be read as a step (then the
    other fields are empty and `raw` holds the line)."""

    line: int
    role: str = ""
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    result: str | None = None
    problem: str = ""
    raw: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def parse(text: str) -> list[Step]:
    """Every non-blank line of the log as a step, in order."""
    steps = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            steps.append(_step(number, line))
    return steps


def _step(number: int, line: str) -> Step:
    try:
        value = bounded_json.loads(line, f"line {number}")
    except bounded_json.TooDeep as exc:
        return Step(number, problem=str(exc), raw=line)
    except ValueError as exc:
        return Step(number, problem=f"line {number} is not JSON ({_reason(exc)})", raw=line)
    if not isinstance(value, dict):
        return Step(number, problem=f"line {number} is not a JSON object but {_kind(value)}", raw=line)
    result = next((value[key] for key in RESULT_KEYS if value.get(key) is not None), None)
    return Step(number, role=_text(value.get("role")), content=_text(value.get("content")),
                tool_calls=_tool_calls(value.get("tool_calls")),
                result=None if result is None else _text(result))


def _tool_calls(value: Any) -> list[ToolCall]:
    if value is None:
        return []
    calls = value if isinstance(value, list) else [value]
    found = []
    for call in calls:
        if isinstance(call, dict):
            inner = call.get("function") if isinstance(call.get("function"), dict) else call  # OpenAI's form
            arguments = inner.get("arguments", inner.get("input"))
            found.append(ToolCall(_text(inner.get("name")), _text(arguments)))
        else:
            found.append(ToolCall("", _text(call)))
    return found


def _text(value: Any) -> str:
    """A field as text: a string as it is; a list of content parts ({"type": "text", "text": ...})
    as their texts; anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(p, dict) and isinstance(p.get("text"), str)
                                                 for p in value):
        return "\n".join(part["text"] for part in value)
    return json.dumps(value, ensure_ascii=False, indent=1)


def _reason(exc: Exception) -> str:
    return exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__


def _kind(value: Any) -> str:
    kinds = {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")
