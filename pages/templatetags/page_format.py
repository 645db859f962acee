"""`{% load page_format %}`: number and axis formats the public pages share."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django import template

from evaluator.scoring import numbers

register = template.Library()
DASH = "–"


@register.filter
def sig(value: Any, digits: int) -> str:
    """A catalog figure to `digits` significant digits (a datasheet's 1979, a budget); measured
    numbers take `score` or `ms`."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return DASH
    return f"{value:.{int(digits)}g}"


@register.filter
def score(value: Any) -> str:
    """A score, ratio or speedup as the CLI and the boards write it: three significant digits,
    trailing zeros kept (evaluator/scoring/numbers.py); a dash for none."""
    return numbers.significant(value)


@register.filter
def delta(value: Any) -> str:
    """A difference with its sign (+0.120, -0.0500, +2, 0), as `score` writes the number (a count as
    a whole number); a dash for none."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:+d}" if value else "0"
    text = numbers.significant(value)
    return f"+{text}" if text not in (DASH, "0") and not text.startswith("-") else text


@register.filter
def axes(values: Any) -> str:
    """Workload axes as `batch=4, n=128`."""
    if not isinstance(values, Mapping):
        return ""
    return ", ".join(f"{name}={value}" for name, value in values.items())


@register.filter
def percent(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return DASH
    return f"{value:.0%}"


@register.filter
def ms(value: Any) -> str:
    """A time given in ms, three significant digits in the unit that fits (412 ns, 3.57 us, 12.3 ms),
    as the CLI writes it (evaluator/scoring/numbers.py)."""
    return numbers.duration(value)


@register.filter
def wait(seconds: Any) -> str:
    """A wait in the unit that fits: `40 s`, `3 min`, `1.5 h`."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not math.isfinite(seconds):
        return DASH
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
