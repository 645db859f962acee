"""The channel between the reporter and the solution's process: one stream socket, each message a
JSON object framed by its length (4 bytes, big-endian). Nothing on it is ever unpickled, no key
is shared, and neither side listens for anyone else: the reporter makes the socket pair before
the solution's process exists and hands it the other end as its only inherited socket.

Messages are read with plain recv, never recvmsg: a file descriptor the solution's process sends
along a message (SCM_RIGHTS) is dropped by the kernel, not received.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Callable
from typing import Any

HEADER = struct.Struct(">I")


class ChannelClosed(Exception):
    """The other end closed the channel (or it broke) before a whole message arrived."""


class FrameTooLarge(Exception):
    """A message announced more bytes than the reader accepts."""


class Channel:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, message: dict[str, Any], default: Callable[[Any], Any] | None = None) -> None:
        data = json.dumps(message, allow_nan=False, separators=(",", ":"), default=default).encode()
        try:
            self.sock.sendall(HEADER.pack(len(data)) + data)
        except OSError as exc:
            raise ChannelClosed(str(exc)) from None

    def receive_bytes(self, limit: int) -> bytes:
        """One message's bytes; FrameTooLarge where it announces more than `limit`."""
        (size,) = HEADER.unpack(self._read(HEADER.size))
        if size > limit:
            raise FrameTooLarge(f"a message of {size} bytes (at most {limit} accepted)")
        return self._read(size)

    def receive(self, limit: int) -> Any:
        """One message, decoded (not validated: that is the reader's business)."""
        return json.loads(self.receive_bytes(limit))

    def _read(self, count: int) -> bytes:
        chunks, left = [], count
        while left:
            try:
                chunk = self.sock.recv(min(left, 1 << 20))
            except OSError as exc:
                raise ChannelClosed(str(exc)) from None
            if not chunk:
                raise ChannelClosed("the other end closed the channel")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()


def pair() -> tuple[Channel, socket.socket]:
    """The reporter's end, and the socket to hand the solution's process (inheritable there)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    return Channel(mine), theirs
