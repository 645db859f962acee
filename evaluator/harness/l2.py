"""Persisting L2 state: a kernel can mark lines as persisting (an access-policy window), and a
cold-cache flush then misses them. Before every flush the harness resets persisting lines to
normal and takes the persisting set-aside back to zero (CUDA driver API, through ctypes)."""

from __future__ import annotations

import ctypes
import functools

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06


@functools.cache
def _driver() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def reset_persisting_l2() -> bool:
    """Reset the current context's persisting L2 lines; False where the driver cannot."""
    driver = _driver()
    if driver is None:
        return False
    limit_ok = driver.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(0)) == 0
    reset_ok = driver.cuCtxResetPersistingL2Cache() == 0
    return limit_ok and reset_ok
