"""Tensors the reporter shares with the solution's process, and how the solution's process finds
them: described in plain JSON, never pickled.

- On the CPU, an arena: one anonymous memory file (memfd) the reporter makes before the solution's
  process starts and hands it at its start; both map it, and each workload's buffers are laid out
  in it from the start. A description is an offset, a shape, strides and a dtype.
- On a GPU, CUDA IPC: the reporter's allocation is exported as an IPC memory handle
  (torch's `_share_cuda_`), which the solution's process opens (`_new_shared_cuda`).
"""

from __future__ import annotations

import base64
import ctypes
import mmap
import os
from typing import Any

import torch

ALIGN = 64
ARENA_BYTES = 1 << 38  # address space, not memory: pages exist only once written
FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE = 1, 2


class BufferError(Exception):
    """A buffer description that does not describe a buffer of this arena."""


def storage_bytes(shape: tuple[int, ...], stride: tuple[int, ...], itemsize: int) -> int:
    if any(size == 0 for size in shape):
        return 0
    return (1 + sum((size - 1) * step for size, step in zip(shape, stride, strict=True))) * itemsize


class HostArena:
    def __init__(self, fd: int | None = None) -> None:
        """fd: an arena the reporter made (in the solution's process); None makes a new one."""
        if fd is None:
            fd = os.memfd_create("solarena-buffers", os.MFD_CLOEXEC)
            os.ftruncate(fd, ARENA_BYTES)
        self.fd = fd
        self.map = mmap.mmap(fd, ARENA_BYTES, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        self.used = 0

    def empty(self, shape: tuple[int, ...], stride: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
        """A new uninitialized tensor of this layout in the arena."""
        itemsize = torch.empty(0, dtype=dtype).element_size()
        size = storage_bytes(shape, stride, itemsize)
        offset = -(-self.used // ALIGN) * ALIGN
        if offset + size > ARENA_BYTES:
            raise BufferError("the shared buffers do not fit in the arena")
        self.used = offset + size
        return self._view(offset, shape, stride, dtype)

    def describe(self, tensor: torch.Tensor) -> dict[str, Any]:
        offset = tensor.data_ptr() - self.base
        return {"offset": offset, "shape": list(tensor.shape), "stride": list(tensor.stride()),
                "dtype": str(tensor.dtype).removeprefix("torch.")}

    def attach(self, description: dict[str, Any]) -> torch.Tensor:
        shape, stride = tuple(description["shape"]), tuple(description["stride"])
        dtype = dtype_named(description["dtype"])
        offset = int(description["offset"])
        size = storage_bytes(shape, stride, torch.empty(0, dtype=dtype).element_size())
        if offset < 0 or offset % ALIGN or offset + size > ARENA_BYTES:
            raise BufferError(f"no buffer at offset {offset} of the arena")
        return self._view(offset, shape, stride, dtype)

    def _view(self, offset: int, shape: tuple[int, ...], stride: tuple[int, ...],
              dtype: torch.dtype) -> torch.Tensor:
        itemsize = torch.empty(0, dtype=dtype).element_size()
        count = max(storage_bytes(shape, stride, itemsize), itemsize)
        raw = torch.frombuffer(self.map, dtype=torch.uint8, count=count, offset=offset)
        return raw.view(dtype).as_strided(shape, stride)

    def release(self) -> None:
        """Give the pages of every buffer back to the system; the arena starts again from 0."""
        if self.used:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.fallocate(self.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, ctypes.c_long(0),
                           ctypes.c_long(self.used))
        self.used = 0

    def close(self) -> None:
        """Release every buffer and close the file (the mapping goes with the tensors on it)."""
        self.release()
        os.close(self.fd)


def share_cuda(tensor: torch.Tensor) -> dict[str, Any]:
    """A CUDA tensor's IPC description (its allocation must hold nothing else of the reporter's)."""
    storage = tensor.untyped_storage()
    (device, handle, size, offset, ref, ref_offset, event, event_sync) = storage._share_cuda_()
    return {"device": device, "handle": _b64(handle), "storage_bytes": size, "storage_offset": offset,
            "ref": _b64(ref), "ref_offset": ref_offset, "event": _b64(event), "event_sync": event_sync,
            "offset": tensor.storage_offset(), "shape": list(tensor.shape), "stride": list(tensor.stride()),
            "dtype": str(tensor.dtype).removeprefix("torch.")}


def attach_cuda(description: dict[str, Any]) -> torch.Tensor:
    storage = torch.UntypedStorage._new_shared_cuda(
        description["device"], _unb64(description["handle"]), description["storage_bytes"],
        description["storage_offset"], _unb64(description["ref"]), description["ref_offset"],
        _unb64(description["event"]), description["event_sync"])
    dtype = dtype_named(description["dtype"])
    device = torch.device("cuda", description["device"])
    return torch.empty(0, dtype=dtype, device=device).set_(
        storage, description["offset"], tuple(description["shape"]), tuple(description["stride"]))


def dtype_named(name: str) -> torch.dtype:
    dtype = getattr(torch, str(name), None)
    if not isinstance(dtype, torch.dtype):
        raise BufferError(f"{name!r} is not a dtype")
    return dtype


def _b64(value: bytes | None) -> str | None:
    return base64.b64encode(value).decode() if isinstance(value, bytes) else None


def _unb64(value: str | None) -> bytes | None:
    return base64.b64decode(value) if value is not None else None
