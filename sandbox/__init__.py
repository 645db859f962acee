"""Backends that run the harness on untrusted code, behind one interface (sandbox.base)."""

from .base import Backend, Limits, RunResult, get_backend

__all__ = ["Backend", "Limits", "RunResult", "get_backend"]
