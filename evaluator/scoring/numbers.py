"""How numbers are written wherever people read them (the pages, the CLI): three significant
digits, times and rates in the unit that fits; and names cut to fit a label. One place, so the
board and the terminal never disagree."""

from __future__ import annotations

import math

DASH = "–"
DIGITS = 3
LABEL_CHARS, CUT = 24, "…"  # a name on a chart or a progress line, and the mark of a cut one
_UNITS = ((1e3, "s"), (1.0, "ms"), (1e-3, "us"), (1e-6, "ns"))
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def significant(value: object, digits: int = DIGITS) -> str:
    """`value` to `digits` significant digits, trailing zeros kept (0.800, 0.00395, 1.00), in
    exponent form only beyond 1e6 or under 1e-4; a dash for none."""
    number = _number(value)
    if number is None:
        return DASH
    number = float(f"{number:.{digits}g}")  # rounded first: 0.9996 is 1.00, not 1.000
    if number == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(number)))
    if magnitude >= 6 or magnitude < -4:
        return f"{number:.{digits - 1}e}"
    decimals = max(digits - 1 - magnitude, 0)
    return f"{round(number, decimals):.{decimals}f}"


def duration(ms: object, digits: int = DIGITS) -> str:
    """A time given in ms, in the unit that fits: 412 ns, 3.57 us, 12.3 ms, 1.50 s; a dash for none."""
    number = _number(ms)
    if number is None:
        return DASH
    number = float(f"{number:.{digits}g}")  # rounded first: 0.99996 ms is 1.00 ms, not 1000 us
    if number == 0:
        return "0 ms"
    scale, unit = next(((scale, unit) for scale, unit in _UNITS if abs(number) >= scale), _UNITS[-1])
    return f"{significant(number / scale, digits)} {unit}"


def rate(value: object, unit: str, digits: int = DIGITS) -> str:
    """A rate with the decimal prefix that fits: 989 TFLOP/s, 4.80 TB/s, 12.0 MFLOP/s; a dash for none."""
    number = _number(value)
    if number is None:
        return DASH
    number = float(f"{number:.{digits}g}")  # rounded first: 999.96e9 is 1.00 T, not 1000 G
    if number == 0:
        return f"0 {unit}"
    scale, prefix = next(((scale, prefix) for scale, prefix in _PREFIXES if abs(number) >= scale),
                         _PREFIXES[-1])
    return f"{significant(number / scale, digits)} {prefix}{unit}"


def share(value: object) -> str:
    """A share in [0, 1] as a percentage to the nearest whole one (0.4 -> 40%)."""
    number = _number(value)
    return DASH if number is None else f"{number:.0%}"


def with_interval(value: object, half_width: object) -> str:
    """`0.812 ± 0.004`: a value and its 95% half-width; the value alone without one (or a zero one)."""
    text = significant(value)
    width = _number(half_width)
    if text == DASH or not width:
        return text
    return f"{text} ± {significant(width, 1)}"


def cut(name: str, width: int = LABEL_CHARS) -> str:
    """`name` in at most `width` characters, a cut one ending in CUT."""
    return name if len(name) <= width else name[:width - 1] + CUT
