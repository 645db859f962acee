"""JSON from users, parsed with a limit on nesting (docs/api.md, "Limits").

Python's parser recurses once per level: a body nested a thousand levels deep raises RecursionError,
which is no ValueError and so escaped every caller's error handling as a 500. No solution, manifest
or request needs more than a few levels, so anything past MAX_DEPTH is refused with a message.
Django-free: the API's parser, the evaluator's solution.json and the agent bundles share it.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64


class TooDeep(ValueError):
    """JSON nested deeper than MAX_DEPTH; the message names the limit."""


def too_deep_message(where: str, limit: int = MAX_DEPTH) -> str:
    return f"{where}: JSON nested deeper than {limit} levels (the limit on nesting of arrays and objects)"


def loads(text: str | bytes, where: str, limit: int = MAX_DEPTH, **options: Any) -> Any:
    """json.loads(text, **options), refusing nesting deeper than `limit` with TooDeep."""
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise TooDeep(too_deep_message(where, limit)) from None
    check_depth(value, where, limit)
    return value


def check_depth(value: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """Raise TooDeep when `value` (parsed JSON) nests arrays and objects deeper than `limit`;
    walked without recursion, so any depth is measured safely."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            raise TooDeep(too_deep_message(where, limit))
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
