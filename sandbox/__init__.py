"""Backends that run the harness on untrusted code, behind one interface (sandbox.base)."""

from .base import BACKENDS, JOB_DIR_BYTES, Backend, Limits, RunResult, get_backend

__all__ = ["BACKENDS", "JOB_DIR_BYTES", "Backend", "Limits", "RunResult", "get_backend"]
