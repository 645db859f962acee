"""The processes descending from one process, read from /proc: which, how many, and their memory."""

from __future__ import annotations

import os
from dataclasses import dataclass

PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class TreeUsage:
    processes: int
    rss_bytes: int
    pids: frozenset[int] = frozenset()  # the root included


def tree_usage(root: int) -> TreeUsage:
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone meanwhile
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(b")") + 2:].split()
        parents[int(name)] = int(fields[1])
        rss[int(name)] = int(fields[21]) * PAGE
    children: dict[int, list[int]] = {}
    for pid, ppid in parents.items():
        children.setdefault(ppid, []).append(pid)
    seen, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid in seen or pid not in parents:
            continue
        seen.add(pid)
        stack.extend(children.get(pid, ()))
    return TreeUsage(len(seen), sum(rss[p] for p in seen), frozenset(seen))
