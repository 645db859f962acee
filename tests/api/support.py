"""Helpers of the API tests: clients signed in with real tokens, and submission requests."""

from __future__ import annotations

import itertools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.response import Response
from rest_framework.test import APIClient

from accounts.services import create_token
from tests.platform import factories

SUBMISSIONS = "/api/v1/submissions/"
_names = itertools.count(1)


def api_user(staff: bool = False) -> AbstractBaseUser:
    """A user for API calls, which sign in with tokens: no password, so no slow password hashing."""
    return get_user_model().objects.create_user(f"api-user{next(_names)}", is_staff=staff)


def client_for(user: AbstractBaseUser | None = None) -> APIClient:
    """A client signed in with a bearer token of `user` (anonymous without one)."""
    client = APIClient()
    if user is not None:
        _, secret = create_token(user, "tests")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def upload(client: APIClient, content: bytes = factories.CORRECT.encode(), name: str = "solution.py",
           **fields: Any) -> Response:
    """POST a solution as a multipart file upload."""
    data = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
            "file": SimpleUploadedFile(name, content), **fields}
    return client.post(SUBMISSIONS, data, format="multipart")


def post_sources(client: APIClient, sources: dict[str, str] | None = None,
                 entry: str | None = "solution.py", **fields: Any) -> Response:
    """POST a solution as JSON sources (without an entry when it is None)."""
    data = {"problem": "scale_shift", "hardware": ["cpu"], "language": "python",
            "sources": sources if sources is not None else {"solution.py": factories.CORRECT}, **fields}
    if entry is not None:
        data["entry"] = entry
    return client.post(SUBMISSIONS, data, format="json")
