"""A benchmark's own PostgreSQL database, made afresh and dropped afterwards (load.py, pages.py)."""

from __future__ import annotations


def recreate_database(url: str, drop_only: bool = False) -> None:
    """Drop the database `url` names (connections and all), then create it empty unless drop_only."""
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if not drop_only:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
