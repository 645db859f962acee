"""What the benchmarks that serve the app share (load.py, pages.py): their own PostgreSQL database,
the Server-Timing header ops.timing adds, percentiles and the machine line of a report."""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass

# ops.timing.server_timing's format
SERVER_TIMING = re.compile(r'app;dur=(?P<app>[\d.]+), db;dur=(?P<db>[\d.]+);desc="(?P<queries>\d+) queries"')


@dataclass(frozen=True)
class ServerTiming:
    app_ms: float  # the request inside Django, every middleware included
    db_ms: float
    queries: int


def server_timing(header: str) -> ServerTiming | None:
    """A response's Server-Timing header from ops.timing, or None when it has none."""
    found = SERVER_TIMING.fullmatch(header)
    return ServerTiming(float(found["app"]), float(found["db"]), int(found["queries"])) if found else None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def machine() -> str:
    load = os.getloadavg()
    return (f"{platform.node()}, {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()} "
            f"{platform.release()}, Python {platform.python_version()}; load average at the end "
            f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min)")


def recreate_database(url: str, drop_only: bool = False) -> None:
    """Drop the database `url` names (connections and all), then create it empty unless drop_only."""
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if not drop_only:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
