"""The sandbox tests run under every sandboxed backend (tests/sandbox/backends.py)."""

from tests.sandbox.backends import sandbox_backend

__all__ = ["sandbox_backend"]
