"""API errors beyond DRF's own: each carries a message written for the user."""

from __future__ import annotations

from rest_framework import status
from rest_framework.exceptions import APIException


class SourceTooLargeError(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the solution's sources are over the size limit"
    default_code = "source_too_large"


class BundleTooLargeError(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the bundle archive is over the size limit"
    default_code = "bundle_too_large"


class QuotaExceededError(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_detail = "daily submission quota reached"
    default_code = "quota_exceeded"


class ConflictError(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "the request conflicts with the object's current state"
    default_code = "conflict"
