"""Backends that run the harness on untrusted code, behind one interface (sandbox.base)."""

from .base import BACKENDS, Backend, Limits, RunResult, get_backend

__all__ = ["BACKENDS", "Backend", "Limits", "RunResult", "get_backend"]
