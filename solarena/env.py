"""Typed environment settings (docs/configuration.md). A value that is set but cannot be read as
its type is an error naming the variable: `DEBUG=ture` stops the process instead of meaning False,
and so does an empty one (`DEBUG=` is no more a choice than a typo). An unset variable takes its
default. No Django: the sandbox reads its settings with these too."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")
T = TypeVar("T")


class SettingError(ValueError):
    """An environment variable whose value is not of its setting's type."""


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    return None if value is None else value.strip()


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in TRUE:
        return True
    if value.lower() in FALSE:
        return False
    raise SettingError(f"{name}={value!r} is not a boolean: use one of {', '.join(TRUE)} or "
                       f"{', '.join(FALSE)}")


def env_int(name: str, default: int) -> int:
    return _parsed(name, default, int, "a whole number")


def env_float(name: str, default: float) -> float:
    return _parsed(name, default, float, "a number")


def _parsed(name: str, default: T, parse: Callable[[str], T], what: str) -> T:
    value = _raw(name)
    if value is None:
        return default
    try:
        return parse(value)
    except ValueError:
        raise SettingError(f"{name}={value!r} is not {what}") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]
