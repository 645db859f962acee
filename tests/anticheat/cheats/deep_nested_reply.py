"""Channel attack: at its first call the solution finds the connection its process answers the
harness on (through gc) and sends a reply nested 100,000 levels deep. A reporter that parses
whatever arrives dies of a RecursionError, so every workload ends as a crash of the harness
(RUNTIME_ERROR), not as a caught cheat."""

import gc
from multiprocessing.connection import Connection

import torch


def _connection() -> Connection | None:
    for obj in gc.get_objects():
        if isinstance(obj, Connection) and not obj.closed:
            return obj
    return None


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    conn = _connection()
    if conn is not None:
        depth = 100_000
        conn.send_bytes(b'{"kind": "reply", "nonce": ' + b"[" * depth + b"]" * depth + b"}")
    return x * 2.0 + bias[None, :]
